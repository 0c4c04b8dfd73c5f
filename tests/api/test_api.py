"""/api/search: session or bearer authentication, the JSON of the search
contract, clear 400s, and nothing of a hidden document in any field."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from review.models import ApiToken
from review.tokens import token_issue

pytestmark = pytest.mark.django_db

HIT_FIELDS = {
    "evidence_id",
    "document",
    "revision",
    "title",
    "heading_path",
    "text",
    "superseded",
    "lexical_rank",
    "semantic_rank",
    "rrf_score",
    "semantic_score",
    "rerank_score",
    "via_graph",
    "relation",
    "page",
    "page_end",
    "ocr",
    "repeats",
    "repeat_pages",
    "source_type",
    "document_date",
    "url",
}


@pytest.fixture
def archive(make_revision):
    make_revision(
        "# Headset LX-700BT\n\nWaktu pemutaran baterai 30 jam.", key="P1", public=True, title="Spesifikasi LX-700BT"
    )
    make_revision(
        "# Headset LX-700BT\n\nWaktu pemutaran baterai 26 jam dengan ANC.",
        key="P1",
        public=True,
        title="Spesifikasi LX-700BT",
    )


def secret(make_revision):
    return make_revision(
        "# Memo\n\nProyek Garuda Biru: baterai cadangan 40 jam.",
        key="S1",
        title="Memo hukum Garuda",
        groups=("hukum",),
        relations=[("cites", "P1")],
    )


def get(client, **params):
    return client.get(reverse("api-search"), params)


def test_session_search_returns_the_contract(client, archive, make_user):
    client.force_login(make_user("pembaca"))
    response = get(client, q="berapa jam baterai LX-700BT", k=5)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) >= {"query", "results", "timings_ms", "degraded"}
    assert body["results"] and set(body["results"][0]) == HIT_FIELDS
    assert body["results"][0]["evidence_id"] == "P1:r2:p1" and body["results"][0]["superseded"] is False
    assert {"embed", "sql"} <= set(body["timings_ms"])
    old = get(client, q="baterai LX-700BT", include_superseded="true").json()["results"]
    assert {"P1:r1:p1", "P1:r2:p1"} <= {h["evidence_id"] for h in old}


def test_bearer_tokens(client, archive, make_user):
    _, plain = token_issue(user=make_user("skrip"), name="uji")
    ok = client.get(reverse("api-search"), {"q": "baterai"}, HTTP_AUTHORIZATION=f"Bearer {plain}")
    assert ok.status_code == 200 and ok.json()["results"]
    assert ApiToken.objects.get().last_used_at is not None
    for header in (f"Bearer {plain}x", f"Token {plain}", "Bearer ", "Bearer nlk_tidak-ada"):
        refused = client.get(reverse("api-search"), {"q": "baterai"}, HTTP_AUTHORIZATION=header)
        assert refused.status_code == 401 and "token" in refused.json()["error"]
    ApiToken.objects.update(revoked=True)
    assert client.get(reverse("api-search"), {"q": "x"}, HTTP_AUTHORIZATION=f"Bearer {plain}").status_code == 401


def test_anonymous_is_refused(client, archive):
    response = get(client, q="baterai")
    assert response.status_code == 401 and response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "params, message",
    [
        ({}, "'q'"),
        ({"q": "  "}, "kosong"),
        ({"q": "x", "k": "sepuluh"}, "'k'"),
        ({"q": "x", "k": "0"}, "k harus"),
        ({"q": "x", "k": "500"}, "k harus"),
        ({"q": "x", "mode": "fuzzy"}, "mode"),
        ({"q": "x", "include_superseded": "mungkin"}, "include_superseded"),
    ],
)
def test_invalid_parameters_are_400_with_a_clear_message(client, make_user, params, message):
    client.force_login(make_user("pembaca"))
    response = get(client, **params)
    assert response.status_code == 400 and message in response.json()["error"]


def test_writes_are_refused(client, make_user):
    client.force_login(make_user("pembaca"))
    assert client.post(reverse("api-search"), {"q": "x"}).status_code == 405


def test_hidden_documents_leave_no_trace(client, archive, make_revision, make_user):
    """Results, snippets, relations and every other field are the same for an
    outsider whether the hidden document exists or not."""
    client.force_login(make_user("pembaca"))
    queries = ["Proyek Garuda Biru", "baterai 40 jam", "S1", "memo hukum"]

    def strip(body):  # timings vary run to run
        return {key: value for key, value in body.items() if key != "timings_ms"}

    before = [strip(get(client, q=q, k=20, include_superseded=1).json()) for q in queries]
    secret(make_revision)
    after = [strip(get(client, q=q, k=20, include_superseded=1).json()) for q in queries]
    assert before == after
    assert "Garuda" not in json.dumps([b["results"] for b in after])
    for mode in ("lexical", "vector"):
        assert "S1" not in {h["document"] for h in get(client, q="Proyek Garuda Biru", mode=mode).json()["results"]}


def test_group_changes_apply_at_the_next_query(client, archive, make_revision, make_user):
    secret(make_revision)
    lawyer = make_user("pengacara", "hukum")
    _, plain = token_issue(user=lawyer, name="uji")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {plain}"}
    found = client.get(reverse("api-search"), {"q": "Proyek Garuda Biru"}, **auth).json()["results"]
    assert "S1" in {h["document"] for h in found}
    lawyer.groups.clear()
    found = client.get(reverse("api-search"), {"q": "Proyek Garuda Biru"}, **auth).json()["results"]
    assert "S1" not in {h["document"] for h in found}


def test_search_command_json(archive, make_user, capsys):
    make_user("pembaca")
    call_command("search", "berapa jam baterai", "--user", "pembaca", "--k", "3", "--json")
    body = json.loads(capsys.readouterr().out)
    assert body["query"] == "berapa jam baterai" and set(body["results"][0]) == HIT_FIELDS
    assert set(body) >= {"results", "timings_ms", "degraded"}


def test_search_command_text_and_errors(archive, make_user, capsys):
    from django.core.management.base import CommandError

    make_user("pembaca")
    call_command("search", "baterai", "--user", "pembaca", "--include-superseded")
    out = capsys.readouterr().out
    assert "[P1:r2:p1]" in out and "[P1:r1:p1]" in out and "DIGANTI" in out and "sql" in out
    with pytest.raises(CommandError, match="tidak ada"):
        call_command("search", "baterai", "--user", "hantu")
    with pytest.raises(CommandError, match="k harus"):
        call_command("search", "baterai", "--user", "pembaca", "--k", "0")


def test_issue_token_command(client, archive, make_user, capsys):
    make_user("skrip")
    call_command("issue_token", "skrip", "--name", "evaluasi")
    plain = capsys.readouterr().out.strip()
    assert client.get(reverse("api-search"), {"q": "baterai"}, HTTP_AUTHORIZATION=f"Bearer {plain}").status_code == 200
    call_command("issue_token", "skrip", "--revoke", plain[:12])
    assert client.get(reverse("api-search"), {"q": "baterai"}, HTTP_AUTHORIZATION=f"Bearer {plain}").status_code == 401


def test_admin_issues_a_token_once(admin_client, make_user):
    owner = make_user("skrip")
    response = admin_client.post(reverse("admin:review_apitoken_add"), {"user": owner.pk, "name": "cron"}, follow=True)
    token = ApiToken.objects.get()
    shown = [str(m) for m in response.context["messages"]]
    assert any(token.prefix in m and "tidak akan ditampilkan lagi" in m for m in shown)
    assert token.digest not in response.content.decode()


# --- /api/ask ------------------------------------------------------------------------


def post_ask(client, body, **extra):
    return client.post(
        reverse("api-ask"),
        data=json.dumps(body) if not isinstance(body, str) else body,
        content_type="application/json",
        **extra,
    )


def test_ask_returns_the_answer_contract(client, archive, make_user):
    client.force_login(make_user("pembaca"))
    response = post_ask(client, {"question": "Berapa jam waktu pemutaran baterai LX-700BT?", "as_of": None})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"question_id", "status", "claims", "missing", "conflicts", "evidence", "degraded"}
    assert body["claims"] and all(set(c["evidence_ids"]) <= set(body["evidence"]) for c in body["claims"])


def test_ask_as_of_and_bearer(client, archive, make_user):
    from review.models import Question

    _, plain = token_issue(user=make_user("skrip"), name="uji")
    response = post_ask(
        client,
        {"question": "Berapa jam waktu pemutaran baterai LX-700BT?", "as_of": "2025-12-31"},
        HTTP_AUTHORIZATION=f"Bearer {plain}",
    )
    assert response.status_code == 200
    question = Question.objects.get(pk=int(response.json()["question_id"][1:]))
    assert question.as_of.isoformat() == "2025-12-31" and question.asked_by.username == "skrip"


@pytest.mark.parametrize(
    "body, message",
    [
        ("bukan json", "JSON"),
        ({}, "'question'"),
        ({"question": 12}, "'question'"),
        ({"question": "   "}, "kosong"),
        ({"question": "x", "as_of": "kemarin"}, "'as_of'"),
        ({"question": "x", "as_of": 20260101}, "'as_of'"),
    ],
)
def test_ask_rejects_bad_input_with_a_clear_message(client, make_user, body, message):
    client.force_login(make_user("pembaca"))
    response = post_ask(client, body)
    assert response.status_code == 400 and message in response.json()["error"]


def test_ask_needs_csrf_for_session_but_not_for_bearer(archive, make_user):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(make_user("pembaca"))
    refused = post_ask(browser, {"question": "baterai"})
    assert refused.status_code == 403 and "CSRF" in refused.json()["error"]
    _, plain = token_issue(user=make_user("skrip"), name="uji")
    script = Client(enforce_csrf_checks=True)
    assert post_ask(script, {"question": "baterai"}, HTTP_AUTHORIZATION=f"Bearer {plain}").status_code == 200
    assert post_ask(Client(), {"question": "baterai"}).status_code == 401
    assert Client().get(reverse("api-ask")).status_code == 405


def test_ask_command(archive, make_user, capsys):
    make_user("pembaca")
    call_command("ask", "Berapa jam waktu pemutaran baterai LX-700BT?", "--user", "pembaca", "--json")
    body = json.loads(capsys.readouterr().out)
    assert body["question_id"].startswith("Q") and body["claims"]
    call_command("ask", "Berapa jam waktu pemutaran baterai LX-700BT?", "--user", "pembaca")
    out = capsys.readouterr().out
    assert "P1:r2:p1" in out and ("TERJAWAB" in out or "DITINJAU" in out)
