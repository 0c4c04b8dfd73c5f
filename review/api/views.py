"""The JSON API: ``GET /api/search``, ``POST /api/ask`` and
``POST /api/claims/<id>/review`` (needs the review permission), with its
OpenAPI 3 schema at ``/api/openapi.json`` and interactive docs at
``/api/docs`` for logged-in users.

Built with django-ninja: the request and response models
(``review/api/schemas.py``, pydantic, as the answer contract already is)
generate the schema, so it cannot drift from the code.

Authenticated by the browser session or by ``Authorization: Bearer <token>``
for scripts. Bearer requests carry no cookies, so they need no CSRF token;
session requests that change state still go through the CSRF check. Wrong
tokens are counted per client address; past the limit the address gets 429
with ``Retry-After`` (review/api/throttle.py). Errors are ``{"error": …}``
with a message in Indonesian fit for the user, never naming documents.
"""

from __future__ import annotations

from datetime import date

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.utils import timezone
from ninja import NinjaAPI, Query
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.renderers import JSONRenderer
from ninja.security import HttpBearer

from answering.contract import AnswerContract
from retrieval.in_force import archive_starts
from retrieval.search import SearchError, search
from review.api.schemas import AskBody, Error, ReviewBody, Reviewed, SearchQuery, SearchResult, StoredAnswer
from review.api.throttle import BearerLocked, bearer_authenticate, client_address
from review.asking import contract_for, question_ask
from review.freshness import asked_again_links, contract_now, newer_since
from review.reviewing import (
    OldSourcesUnconfirmed,
    answers_visible_to,
    can_review,
    claim_review,
    claims_visible_to,
)

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
# Every operation: bad input (400), no or a wrong token (401), an address
# locked for wrong tokens (429); writes add CSRF (403); the review, 403 and 404.
ERRORS = {400: Error, 401: Error, 429: Error}


class ApiError(Exception):
    def __init__(self, status: int, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


class SessionOrBearer(HttpBearer):
    """A bearer token when the request carries an Authorization header (then
    only the token counts), else the browser session, whose writes need the
    CSRF token. Declared in the schema as the bearer scheme."""

    def __call__(self, request: HttpRequest) -> object | None:
        header = request.headers.get("Authorization", "")
        if header:
            scheme, _, plain = header.partition(" ")
            # Only a token actually looked up counts as a failure: a
            # malformed header guesses nothing.
            if scheme.lower() != "bearer" or not plain.strip():
                return None
            try:
                user = bearer_authenticate(plain=plain, address=client_address(request))
            except BearerLocked as locked:
                raise ApiError(
                    429,
                    f"terlalu banyak token yang salah dari alamat ini; coba lagi dalam {locked.retry_after} detik",
                    retry_after=locked.retry_after,
                ) from None
            if user is not None:
                request.user = user
            return user
        if not request.user.is_authenticated:
            return None
        if request.method not in SAFE_METHODS:
            rejected = CsrfViewMiddleware(lambda r: HttpResponse()).process_view(request, None, (), {})
            if rejected is not None:
                raise ApiError(403, "token CSRF tidak ada atau tidak valid")
        return request.user

    def authenticate(self, request: HttpRequest, token: str) -> object | None:  # the schema's bearer scheme
        return None


class Renderer(JSONRenderer):
    """Indonesian text as it is rather than as \\u escapes."""

    json_dumps_params = {"ensure_ascii": False}


# What each reply means, as the docs page says it (django-ninja writes the
# HTTP reason phrase: "OK", "Bad Request").
RESPONSE_MEANINGS = {
    200: "Berhasil",
    400: "Permintaan tidak valid (pesan galat menyebut bagian yang salah)",
    401: "Belum masuk, atau token tidak valid atau sudah dicabut",
    403: "Tidak diizinkan (hak peninjau, atau token CSRF untuk sesi peramban)",
    404: "Tidak ditemukan, atau tidak boleh Anda lihat",
    409: "Perlu konfirmasi: klaim bersandar pada revisi yang sudah diganti",
    429: "Terlalu banyak token salah dari alamat ini; coba lagi setelah Retry-After detik",
}


class Api(NinjaAPI):
    def get_content_type(self) -> str:
        return "application/json"  # UTF-8 is JSON's own encoding; no charset, as Django's JsonResponse

    def get_openapi_schema(self, *, path_prefix: str | None = None, path_params: dict | None = None):  # noqa: ANN201
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                for status, response in operation.get("responses", {}).items():
                    response["description"] = RESPONSE_MEANINGS.get(int(status), response["description"])
        return schema


api = Api(
    renderer=Renderer(),
    title="Nalarku API",
    version="1",
    description="Cari bukti di arsip dan susun jawaban berklaim, sebagai pengguna yang izin grupnya berlaku.",
    auth=SessionOrBearer(),
    urls_namespace="api",
    docs_decorator=login_required,
)


def error(status: int, message: str, *, retry_after: int | None = None) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status, json_dumps_params={"ensure_ascii": False})
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="nalarku"'
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


@api.exception_handler(ApiError)
def _api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return error(exc.status, exc.message, retry_after=exc.retry_after)


@api.exception_handler(SearchError)
def _search_error(request: HttpRequest, exc: SearchError) -> HttpResponse:
    return error(400, str(exc))


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    """What django-ninja raises itself: a body that is not JSON (400)."""
    if exc.status_code == 400:
        return error(400, "badan permintaan harus JSON, mis. " + _EXAMPLES.get(request.path, "{}"))
    return error(exc.status_code, "permintaan tidak dapat diproses")


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    """django-ninja's own 404 says "Not Found"; ours says it in Indonesian."""
    return error(404, "tidak ditemukan")


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    if request.headers.get("Authorization"):
        return error(401, "token tidak valid atau sudah dicabut")
    return error(401, "masuk terlebih dahulu atau kirim header Authorization: Bearer <token>")


_REASONS = {
    "missing": "wajib diisi",
    "int_parsing": "harus bilangan bulat",
    "int_type": "harus bilangan bulat",
    "string_type": "harus teks",
    "literal_error": "harus salah satu dari {expected}",
    "string_too_long": "paling banyak {max_length} karakter",
    "model_attributes_type": "harus objek JSON",
    "dict_type": "harus objek JSON",
}


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """The first problem, in Indonesian, naming the parameter or field."""
    first = exc.errors[0] if exc.errors else {}
    loc = [str(part) for part in first.get("loc", ())]
    where = "parameter" if loc[:1] == ["query"] else "field"
    # ("query", "k"), ("body", "body", "question"); ("body", "body") is the body itself.
    name = loc[-1] if len(loc) >= 2 and loc[-1] not in ("body", "params") else ""
    kind = first.get("type", "")
    if kind in ("json_invalid", "model_attributes_type", "dict_type") or (where == "field" and not name):
        return error(400, "badan permintaan harus objek JSON, mis. " + _EXAMPLES.get(request.path, "{}"))
    if kind == "value_error":
        reason = str(first.get("ctx", {}).get("error", first.get("msg", "")))
    else:
        reason = _REASONS.get(kind, "tidak valid").format(**first.get("ctx", {}))
    given = first.get("input")
    if kind.startswith("int_") and isinstance(given, str):
        reason += f", bukan {given[:20]!r}"
    return error(400, f"{where} '{name}' {reason}")


_EXAMPLES = {"/api/ask": '{"question": "..."}'}


@api.get(
    "/search",
    response={200: SearchResult, **ERRORS},
    summary="Cari bukti",
    description="Pencarian hibrida, leksikal atau semantik atas dokumen yang boleh Anda baca.",
    url_name="api-search",
)
def search_api(request: HttpRequest, params: Query[SearchQuery]) -> dict:
    """Hybrid, lexical or vector search over what the caller may read."""
    k = params.k if params.k is not None else 10
    response = search(
        params.q,
        request.user,
        k=k,
        pool=params.pool if params.pool is not None else max(50, k),
        mode=params.mode.strip() or "hybrid",
        include_superseded=bool(params.include_superseded),
        rerank=params.rerank,
        expand=params.expand if params.expand is not None else True,
    )
    return response.as_dict()


@api.post(
    "/ask",
    response={200: AnswerContract, 403: Error, **ERRORS},
    summary="Susun jawaban",
    description=(
        "Jawaban berupa klaim, masing-masing terikat pada bukti yang mendukungnya, dari dokumen yang boleh "
        "Anda baca; `insufficient_evidence` bila bukti tidak menjawab."
    ),
    url_name="api-ask",
)
def ask_api(request: HttpRequest, body: AskBody) -> AnswerContract:
    """An answer drafted as claims, each tied to the evidence that supports
    it, from what the caller may read; ``insufficient_evidence`` when the
    evidence does not answer."""
    as_of = None
    if body.as_of is not None:
        try:
            as_of = date.fromisoformat(body.as_of)
        except ValueError:
            raise ApiError(400, "field 'as_of' harus tanggal YYYY-MM-DD atau null") from None
        if as_of > timezone.localdate():
            raise ApiError(400, "field 'as_of' tidak boleh tanggal di masa depan")
        if (starts := archive_starts(request.user)) and as_of < starts:
            raise ApiError(400, f"field 'as_of': arsip baru berisi dokumen sejak {starts:%Y-%m-%d}")
    return question_ask(text=body.question, user=request.user, as_of=as_of).contract


@api.get(
    "/answers/{pk}",
    response={200: StoredAnswer, 404: Error, **ERRORS},
    summary="Jawaban tersimpan",
    url_name="api-answer",
)
def answer_api(request: HttpRequest, pk: int) -> dict:
    """A stored answer as the caller may see it now, its evidence checked
    against the revisions in force: ``superseded`` and ``current_revision``
    per evidence, and ``sources_changed``, the cited evidence whose revision
    was replaced since the answer was made. An answer the caller may not
    open is a 404 like a missing one."""
    answer = answers_visible_to(request.user).select_related("question").filter(pk=pk).first()
    if answer is None:
        raise ApiError(404, "jawaban tidak ditemukan")
    fresh = contract_now(contract_for(answer, request.user), request.user, as_of=answer.question.as_of)
    cited = {eid for claim in fresh.contract.claims for eid in claim.evidence_ids}
    older, newer = asked_again_links(answer, request.user)
    return {
        "answer": answer.pk,
        "question": answer.question.text,
        "contract": fresh.contract,
        "sources_changed": sorted(eid for eid in fresh.changed if eid in cited),
        "newer_since": newer_since(fresh),
        "asked_again_from": older.pk if older else None,
        "asked_again": [a.pk for a in newer],
    }


@api.post(
    "/claims/{pk}/review",
    response={200: Reviewed, 403: Error, 404: Error, 409: Error, **ERRORS},
    summary="Nilai klaim",
    description=(
        "Tandai klaim `supported` atau `needs_review`. Klaim yang tidak boleh Anda lihat: 404; boleh dilihat "
        "tetapi tidak boleh dinilai: 403 (hak peninjau). Klaim yang bersandar pada revisi yang tidak berlaku "
        "lagi dinilai hanya dengan `confirm`: tanpa itu 409, dan tidak ada yang disimpan."
    ),
    url_name="api-claim-review",
)
def claim_review_api(request: HttpRequest, pk: int, body: ReviewBody) -> dict:
    """Mark a claim ``supported`` or ``needs_review``. A claim the caller may
    not see is a 404 like a missing one; one they may see but not judge is a
    403 (the review permission, ``review.review_claim``). A claim resting on
    a revision no longer in force is judged only with ``confirm``: else 409,
    saying which revisions, and nothing is saved."""
    claim = claims_visible_to(request.user).filter(pk=pk).first()
    if claim is None:
        raise ApiError(404, "klaim tidak ditemukan")
    if not can_review(request.user):
        raise ApiError(403, "meninjau klaim memerlukan hak peninjau")
    try:
        claim = claim_review(
            claim=claim, reviewer=request.user, status=body.status, note=body.note, confirmed=body.confirm
        )
    except OldSourcesUnconfirmed:
        # Like every API error, it names no document: the desk's prompt does.
        raise ApiError(
            409, 'klaim ini bersandar pada revisi yang sudah diganti; kirim "confirm": true untuk tetap menilainya'
        ) from None
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None
    return {
        "claim": claim.pk,
        "status": claim.review_status,
        "note": claim.review_note,
        "answer_status": claim.answer.status,
    }
