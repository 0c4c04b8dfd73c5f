"""Brute-force throttles: login lockouts (django-axes, configured in
settings) and failed bearer tokens per client address (here, in Redis
through Django's cache).

Logins are counted in three scopes, each against its own limit within the
cool-off (``LoginAttempts``):

- one account from one address (``AXES_FAILURE_LIMIT``, 5): someone's typos
  lock only that account at that address, never a colleague behind the same
  newsroom address;
- one address, all accounts together (``NALARKU_LOGIN_ADDRESS_LIMIT``, 50):
  spraying many accounts from one address still stops, far above anyone's typos;
- one account, all addresses together (``NALARKU_LOGIN_ACCOUNT_LIMIT``, 20),
  which stops guessing one account from many addresses. Anyone who knows a
  username could reach that limit from anywhere, so it does not apply at
  the addresses the account has logged in from successfully within
  ``KNOWN_ADDRESS_DAYS``: under attack the account still logs in from the
  newsroom, only a new address is refused.

Bearer tokens name no account, so their failures are counted per address
only; counting them per token owner would let anyone lock a script out by
sending wrong tokens.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from dataclasses import dataclass
from datetime import timedelta

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from axes.models import AccessAttempt, AccessLog
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.cache import cache
from django.db.models import QuerySet, Sum, Value
from django.db.models.functions import Least
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from redis.exceptions import RedisError

from review.tokens import user_for_token

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

# Successful logins (axes' AccessLog) that make an address known to an account.
KNOWN_ADDRESS_DAYS = 90
# The login page warns from this many failures on (and never after the lock).
WARN_FROM_FAILURE = 3


@dataclass(frozen=True)
class LoginStanding:
    """How close a login is to a lock: ``remaining`` failures allowed before
    it, in the ``scope`` nearest to its limit: "pair" (this account from this
    address), "address" (this address, all accounts) or "account" (this
    account from all addresses; only at an address it is not known from)."""

    remaining: int
    scope: str

    @property
    def warn(self) -> bool:
        """From the third failure of the pair on (or as near to another
        scope's limit), until the lock."""
        return 0 < self.remaining <= settings.AXES_FAILURE_LIMIT - WARN_FROM_FAILURE


class LoginAttempts(AxesDatabaseHandler):
    """axes' database handler with the three scopes of the module docstring.

    axes compares one number, ``get_failures``, with one limit; here that
    number is the limit minus the fewest failures any scope still allows, so
    whichever scope is exhausted first locks. axes itself is configured for
    the account+address pair only (``AXES_LOCKOUT_PARAMETERS``), which is
    also what a successful login clears: that account's failures from that
    address, never other accounts' (else anyone holding one account could log
    into it between guesses at others and never reach the address limit), nor
    its failures from elsewhere (else its owner's daily login would restart a
    distributed guess's count).

    The standing is left on the request (``request.nalarku_login``) for the
    login page's warning and the lockout page; the last call, after a failure
    was recorded, is the one they see."""

    def get_failures(self, request: HttpRequest, credentials: dict | None = None) -> int:
        standing = self.standing(request, credentials)
        request.nalarku_login = standing
        return get_failure_limit(request, credentials) - standing.remaining

    def standing(self, request: HttpRequest, credentials: dict | None = None) -> LoginStanding:
        """Each pair (account, address) counts at most the pair limit towards
        the wider scopes: one person retrying while locked, or a script with
        a stale password, never adds up to the address's or the account's
        limit alone; reaching the address limit takes failures at ten accounts
        (50 / 5), the account limit failures from four addresses (20 / 5)."""
        username = get_client_username(request, credentials)
        address = request.axes_ip_address
        limit = get_failure_limit(request, credentials)
        recent = AccessAttempt.objects.filter(attempt_time__gte=get_cool_off_threshold(request))

        def capped(attempts: QuerySet, per: str) -> int:
            """Failures summed in the database (a spray may leave thousands of rows), each ``per`` capped."""
            per_pair = attempts.values(per).annotate(failures=Least(Sum("failures_since_start"), Value(limit)))
            return per_pair.aggregate(total=Sum("failures", default=0))["total"]

        counts = {
            "pair": capped(recent.filter(username=username, ip_address=address), "username"),
            "address": capped(recent.filter(ip_address=address), "username"),
            "account": capped(recent.filter(username=username), "ip_address"),
        }
        pair_left = limit - counts["pair"]
        address_left = settings.NALARKU_LOGIN_ADDRESS_LIMIT - counts["address"]
        remaining, scope = (pair_left, "pair") if pair_left <= address_left else (address_left, "address")
        account_left = settings.NALARKU_LOGIN_ACCOUNT_LIMIT - counts["account"]
        # The known-address query only when the account-wide count would decide.
        if account_left < remaining and not self.known_address(username, address):
            remaining, scope = account_left, "account"
        return LoginStanding(remaining=remaining, scope=scope)

    def reset_user_attempts(self, request: HttpRequest, credentials: dict | None = None) -> int:
        """After a successful login: the pair's failures only (see the class docstring)."""
        count, _ = AccessAttempt.objects.filter(
            username=get_client_username(request, credentials), ip_address=request.axes_ip_address
        ).delete()
        return count

    @staticmethod
    def known_address(username: str | None, address: str | None) -> bool:
        """Has this account logged in from this address lately? Then guesses
        at it from elsewhere cannot lock it here."""
        if username is None:
            return False
        since = timezone.now() - timedelta(days=KNOWN_ADDRESS_DAYS)
        return AccessLog.objects.filter(username=username, ip_address=address, attempt_time__gte=since).exists()


def login_lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict | None = None
) -> HttpResponse:
    """The Indonesian lockout page (``AXES_LOCKOUT_CALLABLE``), 429 with
    ``Retry-After``. The attempt that got here was itself recorded as a
    failure and restarted the cool-off (``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT``),
    so a retry is allowed again at the latest a full cool-off from now."""
    cool_off = get_cool_off(request) or timedelta(0)
    seconds = max(1, math.ceil(cool_off.total_seconds()))
    standing = getattr(request, "nalarku_login", None)
    response = render(
        request,
        "registration/locked_out.html",
        {
            "minutes": math.ceil(seconds / 60),
            "until": timezone.localtime() + cool_off,
            "scope": standing.scope if standing else "pair",
        },
        status=429,
    )
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
