"""Brute-force throttles: login lockouts (django-axes, configured in
settings) and failed bearer tokens per client address (here, in Redis
through Django's cache).

Logins lock per account and per address: guessing one account's password
from many addresses, or many accounts' passwords from one address, both stop
at the limit. Bearer tokens name no account, so their failures are counted
per address only; counting them per token owner would let anyone lock a
script out by sending wrong tokens.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from datetime import timedelta

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from redis.exceptions import RedisError

from .tokens import user_for_token

log = logging.getLogger(__name__)


def client_address(request: HttpRequest) -> str | None:
    """The client's IP address, for both throttles (``AXES_CLIENT_IP_CALLABLE``).

    ``REMOTE_ADDR`` unless ``NALARKU_TRUSTED_PROXIES`` reverse proxies stand
    in front; then the address the outermost of them saw, counted from the
    right of ``X-Forwarded-For``: each proxy appends what it saw, so entries
    further left are whatever the client chose to send. Trusting the header
    without a proxy would let a client pick a fresh address per attempt."""
    address = request.META.get("REMOTE_ADDR", "")
    proxies = settings.NALARKU_TRUSTED_PROXIES
    if proxies:
        forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()]
        if forwarded:
            address = forwarded[-min(proxies, len(forwarded))]
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:  # a unix socket gives no address; axes stores NULL, tokens share one count
        return None


# --- Logins (django-axes) ----------------------------------------------------------

class LoginAttempts(AxesDatabaseHandler):
    """axes' database handler, except that a successful login clears only the
    account's own failures. axes' reset also deletes every failure from the
    address, so anyone holding one account could log into it between guesses
    at other accounts from the same address and never reach the address limit."""

    def reset_user_attempts(self, request: HttpRequest, credentials: dict | None = None) -> int:
        count, _ = AccessAttempt.objects.filter(username=get_client_username(request, credentials)).delete()
        return count


def login_lockout_response(request: HttpRequest, original_response: HttpResponse | None = None,
                           credentials: dict | None = None) -> HttpResponse:
    """The Indonesian lockout page (``AXES_LOCKOUT_CALLABLE``), 429 with
    ``Retry-After``. The attempt that got here was itself recorded as a
    failure and restarted the cool-off (``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT``),
    so a retry is allowed again at the latest a full cool-off from now."""
    cool_off = get_cool_off(request) or timedelta(0)
    seconds = max(1, math.ceil(cool_off.total_seconds()))
    response = render(request, "registration/locked_out.html",
                      {"minutes": math.ceil(seconds / 60), "until": timezone.localtime() + cool_off},
                      status=429)
    response["Retry-After"] = str(seconds)
    return response


# --- Bearer tokens -------------------------------------------------------------------

class BearerLocked(Exception):
    """Too many wrong tokens from this address; ``retry_after`` in seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(retry_after)
        self.retry_after = retry_after


def _keys(address: str | None) -> tuple[str, str]:
    return f"throttle:bearer:{address}:failures", f"throttle:bearer:{address}:locked-until"


def bearer_authenticate(*, plain: str, address: str | None) -> AbstractBaseUser | None:
    """The user of a valid token, None for a wrong one (counted against the
    address); raises BearerLocked, without looking the token up, while the
    address is locked. A correct token neither ends the lock nor resets the
    count: otherwise one valid token would let its holder keep guessing
    others' between uses."""
    try:
        wait = _bearer_locked_for(address)
    except RedisError:
        # Fail open: the tokens are 256-bit random, so the throttle guards
        # against hammering, not against a guess succeeding; a Redis outage
        # should not take the API down with it.
        log.warning("bearer throttle unavailable (Redis); token checked without it", exc_info=True)
        wait = None
    if wait is not None:
        raise BearerLocked(wait)
    user = user_for_token(plain)
    if user is None:
        try:
            _bearer_failure_record(address)
        except RedisError:
            log.warning("bearer throttle unavailable (Redis); failure not counted", exc_info=True)
    return user


def _bearer_locked_for(address: str | None) -> int | None:
    """Seconds until the address may try again, or None if it is not locked."""
    until = cache.get(_keys(address)[1])
    if until is None:
        return None
    return max(1, math.ceil(until - time.time()))


def _bearer_failure_record(address: str | None) -> None:
    """One more wrong token from ``address``; at the limit, lock it for the
    window. A fixed window per address: the first failure starts it, the
    counter is one atomic INCR in Redis, so concurrent workers never lose a
    failure."""
    limit, window = settings.NALARKU_BEARER_THROTTLE["limit"], settings.NALARKU_BEARER_THROTTLE["window"]
    failures, locked = _keys(address)
    cache.add(failures, 0, timeout=window)
    try:
        count = cache.incr(failures)
    except ValueError:  # expired between add and incr
        cache.set(failures, 1, timeout=window)
        count = 1
    if count == 1:
        # (Re)start the window: if the key expired between Django's existence
        # check and INCR, Redis recreated it without a timeout, and a counter
        # that never expires would lock the address for good at the limit.
        cache.touch(failures, window)
    if count >= limit:
        cache.set(locked, time.time() + window, timeout=window)
        cache.delete(failures)  # after the lock, counting starts afresh
        log.warning("bearer tokens locked for %s s after %s failures from one address", window, count)
