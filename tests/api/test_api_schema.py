"""The JSON API's OpenAPI 3 schema (valid by openapi-spec-validator), and
every endpoint's real responses —
successes and errors, by session and by bearer token — validated against
it (jsonschema, Draft 2020-12, the schema's own components as $refs). The
docs page is for logged-in users; the bearer scheme is declared."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_openapi

from review.models import Answer, Claim, ClaimReview
from review.tokens import token_issue

pytestmark = pytest.mark.django_db

ASK_PATH, REVIEW_PATH = "/api/ask", "/api/claims/{pk}/review"


@pytest.fixture
def schema(client, make_user):
    client.force_login(make_user("integrator"))
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    return response.json()


def assert_valid(schema: dict, path: str, method: str, response) -> None:  # noqa: ANN001
    """The response's JSON against the schema declared for its path, method and status."""
    declared = schema["paths"][path][method]["responses"]
    assert str(response.status_code) in declared, (path, method, response.status_code, sorted(declared))
    media = declared[str(response.status_code)]["content"]["application/json"]["schema"]
    validator = Draft202012Validator({**media, "components": schema["components"]})
    problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(response.json())]
    assert not problems, problems[:5]


@pytest.fixture
def archive(make_revision):
    make_revision(
        "# Headset LX-700BT\n\nWaktu pemutaran baterai 30 jam.", key="P1", public=True, title="Spesifikasi LX-700BT"
    )


def test_the_schema_declares_every_endpoint_its_models_and_the_bearer_scheme(schema):
    assert schema["openapi"].startswith("3.")
    validate_openapi(schema)  # a valid OpenAPI 3 document (openapi-spec-validator raises otherwise)
    assert {"/api/search", ASK_PATH, REVIEW_PATH} <= set(schema["paths"])
    assert schema["components"]["securitySchemes"] == {"SessionOrBearer": {"type": "http", "scheme": "bearer"}}
    for path, method in (("/api/search", "get"), (ASK_PATH, "post"), (REVIEW_PATH, "post")):
        operation = schema["paths"][path][method]
        assert operation["security"] == [{"SessionOrBearer": []}]
        for status in ("400", "401", "429"):
            assert operation["responses"][status]["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/Error"
            }
    ask = schema["paths"][ASK_PATH]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert ask == {"$ref": "#/components/schemas/AskBody"}
    assert schema["components"]["schemas"]["ReviewBody"]["properties"]["status"]["enum"] == [
        "supported",
        "needs_review",
    ]
    # The check can fail: a hit without its id is not a search result.
    media = schema["paths"]["/api/search"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    hitless = {"query": "x", "mode": "hybrid", "results": [{"document": "D1"}], "timings_ms": {}, "degraded": []}
    assert not Draft202012Validator({**media, "components": schema["components"]}).is_valid(hitless)
    parameters = {p["name"] for p in schema["paths"]["/api/search"]["get"]["parameters"]}
    assert parameters == {"q", "k", "pool", "mode", "include_superseded", "rerank", "expand"}


def test_docs_are_for_logged_in_users(client, make_user):
    assert Client().get("/api/docs").status_code == 302  # to the login page
    client.force_login(make_user("pembaca"))
    page = client.get("/api/docs")
    assert page.status_code == 200 and b"swagger" in page.content.lower()
    assert b"cdn.jsdelivr" not in page.content  # its assets are ours: the CSP allows no CDN
    html = page.content.decode()
    # The session's CSRF token for "Coba" on POST, and the way back to the app.
    token = re.search(r'data-csrf-token="([^"]+)"', html)
    assert token and len(token.group(1)) >= 32
    assert '<a href="/">← Kembali ke Nalarku</a>' in html and "js/api-docs.js" in html
    assert "swagger-ui-init.js" not in html  # ninja's init (no token without a csrf auth) is replaced


def test_operations_are_described_in_indonesian(schema):
    for path, method in (("/api/search", "get"), (ASK_PATH, "post"), (REVIEW_PATH, "post")):
        description = schema["paths"][path][method]["description"]
        assert re.search(r"\b(yang|dari|atas|tidak)\b", description), description
        assert not re.search(r"\b(the|what|caller|answer)\b", description), description


def test_search_responses_match_the_schema(schema, archive, make_user):
    reader = make_user("pembaca")
    session = Client()
    session.force_login(reader)
    plain = token_issue(user=reader, name="skrip")[1]
    bearer = Client(HTTP_AUTHORIZATION=f"Bearer {plain}")
    for client in (session, bearer):
        for params in (
            {"q": "baterai LX-700BT", "k": 3},
            {"q": "baterai", "mode": "lexical"},
            {"q": "x", "k": "sepuluh"},
            {"q": " "},
            {"q": "x", "include_superseded": "mungkin"},
            {},
        ):
            assert_valid(schema, "/api/search", "get", client.get(reverse("api-search"), params))
    assert_valid(schema, "/api/search", "get", Client().get(reverse("api-search"), {"q": "x"}))  # 401
    wrong = Client(HTTP_AUTHORIZATION="Bearer salah")
    assert_valid(schema, "/api/search", "get", wrong.get(reverse("api-search"), {"q": "x"}))  # 401


def test_ask_responses_match_the_schema(schema, archive, make_user):
    reader = make_user("pembaca")
    plain = token_issue(user=reader, name="skrip")[1]
    bearer = Client(HTTP_AUTHORIZATION=f"Bearer {plain}")
    for body in (
        {"question": "Berapa jam waktu pemutaran baterai LX-700BT?"},
        {"question": "Berapa harga paket Enterprise Plus?", "as_of": "2026-01-01"},
        {"question": 12},
        {"question": "x", "as_of": 20260101},
        {},
    ):
        response = bearer.post(reverse("api-ask"), json.dumps(body), content_type="application/json")
        assert_valid(schema, ASK_PATH, "post", response)
    not_json = bearer.post(reverse("api-ask"), "bukan json", content_type="application/json")
    assert_valid(schema, ASK_PATH, "post", not_json)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(reader)
    no_csrf = browser.post(reverse("api-ask"), json.dumps({"question": "x"}), content_type="application/json")
    assert no_csrf.status_code == 403
    assert_valid(schema, ASK_PATH, "post", no_csrf)


def test_review_responses_match_the_schema(schema, archive, make_user):
    # The reader asks; the editor, a reviewer of the reader's group, reviews.
    editor, reader = make_user("editor", "redaksi", reviewer=True), make_user("pembaca", "redaksi")
    asked = Client(HTTP_AUTHORIZATION=f"Bearer {token_issue(user=editor, name='skrip')[1]}")
    no_right = Client(HTTP_AUTHORIZATION=f"Bearer {token_issue(user=reader, name='baca')[1]}")
    no_right.post(
        reverse("api-ask"),
        json.dumps({"question": "Berapa jam waktu pemutaran baterai LX-700BT?"}),
        content_type="application/json",
    )
    claim = Claim.objects.filter(answer__in=Answer.objects.all()).first()
    assert claim is not None, "the question's answer has a claim to review"
    url = reverse("api-claim-review", args=[claim.pk])
    body = json.dumps({"status": ClaimReview.SUPPORTED, "note": "cek"})
    done = asked.post(url, body, content_type="application/json")
    assert done.status_code == 200
    assert_valid(schema, REVIEW_PATH, "post", done)
    for bad in ({"status": "benar"}, {"status": "supported", "note": 3}):
        assert_valid(schema, REVIEW_PATH, "post", asked.post(url, json.dumps(bad), content_type="application/json"))
    missing = asked.post(reverse("api-claim-review", args=[claim.pk + 1000]), body, content_type="application/json")
    assert missing.status_code == 404
    assert_valid(schema, REVIEW_PATH, "post", missing)
    refused = no_right.post(url, body, content_type="application/json")
    assert refused.status_code == 403
    assert_valid(schema, REVIEW_PATH, "post", refused)


def test_the_frameworks_own_errors_speak_indonesian(rf, make_user):
    from django.http import Http404

    from review.api.views import api

    request = rf.get("/api/search")
    handler = api._lookup_exception_handler(Http404("x"))
    response = handler(request, Http404("x"))
    assert response.status_code == 404 and json.loads(response.content) == {"error": "tidak ditemukan"}


def test_every_reply_is_described_in_indonesian(schema):
    """The docs page shows each reply's description: not the HTTP reason phrase."""
    from http.client import responses

    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, reply in operation["responses"].items():
                assert reply["description"] != responses[int(status)], (path, method, status)
