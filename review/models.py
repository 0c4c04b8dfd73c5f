"""Review models: API tokens now; questions, answers, claims and evidence
lookups arrive with the answers issue."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A bearer token for scripts, issued per user. Only its SHA-256 is kept;
    the token itself is shown once, when it is issued (``review.tokens``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="Untuk apa token ini, mis. 'skrip evaluasi'")
    prefix = models.CharField(max_length=12, editable=False, help_text="Awal token, untuk mengenalinya")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked = models.BooleanField(default=False, help_text="Token yang dicabut tidak lagi diterima")

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "token API"
        verbose_name_plural = "token API"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user}, {self.name})"
