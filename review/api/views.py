"""The JSON API: ``GET /api/search``, ``POST /api/ask`` and
``POST /api/claims/<id>/review`` (needs the review permission).

Authenticated by the browser session or by ``Authorization: Bearer <token>``
for scripts. Bearer requests carry no cookies, so they need no CSRF token;
session requests that change state still go through the CSRF check. Wrong
tokens are counted per client address; past the limit the address gets 429
with ``Retry-After`` (review/api/throttle.py). Errors are JSON with a message fit
for the user and never name documents.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from functools import wraps

from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.middleware.csrf import CsrfViewMiddleware
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from retrieval.search import SearchError, search
from review.answers.pipeline import question_ask
from review.api.throttle import BearerLocked, bearer_authenticate, client_address
from review.desk.reviewing import can_review, claim_review, claims_visible_to
from review.models import ClaimReview

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def error(status: int, message: str, *, retry_after: int | None = None) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status, json_dumps_params={"ensure_ascii": False})
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="nalarku"'
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def api_view(*methods: str) -> Callable:
    """Method check, session-or-bearer authentication, CSRF for session
    writes, and SearchError → 400, around a view returning a dict."""

    def decorate(view: Callable[..., dict]) -> Callable[..., HttpResponse]:
        @csrf_exempt
        @wraps(view)
        def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            if request.method not in methods:
                return error(405, f"metode {request.method} tidak didukung; gunakan {', '.join(methods)}")
            header = request.headers.get("Authorization", "")
            if header:
                scheme, _, plain = header.partition(" ")
                user = None
                # Only a token actually looked up counts as a failure: a
                # malformed header guesses nothing.
                if scheme.lower() == "bearer" and plain.strip():
                    try:
                        user = bearer_authenticate(plain=plain, address=client_address(request))
                    except BearerLocked as locked:
                        return error(
                            429,
                            "terlalu banyak token yang salah dari alamat ini; coba lagi dalam "
                            f"{locked.retry_after} detik",
                            retry_after=locked.retry_after,
                        )
                if user is None:
                    return error(401, "token tidak valid atau sudah dicabut")
                request.user = user
            elif not request.user.is_authenticated:
                return error(401, "masuk terlebih dahulu atau kirim header Authorization: Bearer <token>")
            elif request.method not in SAFE_METHODS:
                rejected = CsrfViewMiddleware(lambda r: HttpResponse()).process_view(request, None, (), {})
                if rejected is not None:
                    return error(403, "token CSRF tidak ada atau tidak valid")
            try:
                payload = view(request, *args, **kwargs)
            except (SearchError, ParameterError) as exc:
                return error(400, str(exc))
            except ApiError as exc:
                return error(exc.status, exc.message)
            return JsonResponse(payload, json_dumps_params={"ensure_ascii": False})

        return wrapper

    return decorate


class ParameterError(ValueError):
    """A request parameter that cannot be parsed; the message names it."""


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def json_body(request: HttpRequest, example: str) -> dict:
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        raise ParameterError(f"badan permintaan harus JSON, mis. {example}") from None
    if not isinstance(body, dict):
        raise ParameterError(f"badan permintaan harus objek JSON, mis. {example}")
    return body


def int_param(params: QueryDict, name: str, default: int) -> int:
    raw = params.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ParameterError(f"parameter '{name}' harus bilangan bulat, bukan {raw[:20]!r}") from None


def bool_param(params: QueryDict, name: str, default: bool | None = False) -> bool | None:
    raw = params.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "ya", "yes"):
        return True
    if raw in ("0", "false", "tidak", "no"):
        return False
    raise ParameterError(f"parameter '{name}' harus 1/0 atau true/false")


@api_view("GET")
def search_api(request: HttpRequest) -> dict:
    """``GET /api/search?q=&k=&mode=&pool=&include_superseded=&rerank=&expand=``"""
    params = request.GET
    if "q" not in params:
        raise ParameterError("parameter 'q' (pertanyaan) wajib diisi")
    k = int_param(params, "k", 10)
    response = search(
        params["q"],
        request.user,
        k=k,
        pool=int_param(params, "pool", max(50, k)),
        mode=params.get("mode", "hybrid").strip() or "hybrid",
        include_superseded=bool_param(params, "include_superseded"),
        rerank=bool_param(params, "rerank", None),
        expand=bool_param(params, "expand", True),
    )
    return response.as_dict()


@api_view("POST")
def ask_api(request: HttpRequest) -> dict:
    """``POST /api/ask`` with JSON ``{"question": "...", "as_of": "YYYY-MM-DD" | null}``."""
    body = json_body(request, '{"question": "..."}')
    if not isinstance(body.get("question"), str):
        raise ParameterError("field 'question' (teks) wajib diisi")
    as_of = body.get("as_of")
    if as_of is not None:
        try:
            as_of = date.fromisoformat(as_of) if isinstance(as_of, str) else None
        except ValueError:
            as_of = None
        if as_of is None:
            raise ParameterError("field 'as_of' harus tanggal YYYY-MM-DD atau null")
        if as_of > timezone.localdate():
            raise ParameterError("field 'as_of' tidak boleh tanggal di masa depan")
    asked = question_ask(text=body["question"], user=request.user, as_of=as_of)
    return asked.contract.model_dump(mode="json")


@api_view("POST")
def claim_review_api(request: HttpRequest, pk: int) -> dict:
    """``POST /api/claims/<id>/review`` with ``{"status": "supported" | "needs_review", "note": "..."}``.
    A claim the caller may not see is a 404 like a missing one; one they may
    see but not judge is a 403."""
    claim = claims_visible_to(request.user).filter(pk=pk).first()
    if claim is None:
        raise ApiError(404, "klaim tidak ditemukan")
    if not can_review(request.user):
        raise ApiError(403, "meninjau klaim memerlukan hak peninjau")
    body = json_body(request, '{"status": "supported", "note": "..."}')
    status, note = body.get("status"), body.get("note", "")
    if status not in (ClaimReview.SUPPORTED, ClaimReview.NEEDS_REVIEW) or not isinstance(note, str):
        raise ParameterError("field 'status' harus 'supported' atau 'needs_review'; 'note' (opsional) teks")
    try:
        claim = claim_review(claim=claim, reviewer=request.user, status=status, note=note)
    except ValueError as exc:
        raise ParameterError(str(exc)) from None
    return {
        "claim": claim.pk,
        "status": claim.review_status,
        "note": claim.review_note,
        "answer_status": claim.answer.status,
    }
