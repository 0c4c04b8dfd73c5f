"""Bearer tokens for the JSON API: issued once, stored as a digest."""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth.base_user import AbstractBaseUser
from django.utils import timezone

from review.models import ApiToken

PREFIX = "nlk_"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_issue(*, user: AbstractBaseUser, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user``; the plain token is returned only here."""
    plain = PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, prefix=plain[:12], digest=_digest(plain))
    return token, plain


def user_for_token(plain: str) -> AbstractBaseUser | None:
    """The active user a valid, unrevoked token belongs to, else None."""
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=_digest(plain.strip()), revoked=False, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user
