"""The audit log: review decisions and permission changes, each with who,
what and when, readable by admins only."""

from __future__ import annotations

import pytest
from auditlog.models import LogEntry
from bs4 import BeautifulSoup
from django.contrib.auth.models import Group, Permission
from django.test import Client
from django.urls import reverse

from retrieval.models import Document
from review.asking import question_ask
from review.models import ApiToken

pytestmark = pytest.mark.django_db


def form_data(html: str, form_id: str) -> dict[str, list[str]]:
    """The fields of a form as a browser would submit them unchanged."""
    form = BeautifulSoup(html, "html.parser").find("form", id=form_id)
    data: dict[str, list[str]] = {}
    for field in form.find_all(["input", "select", "textarea"]):
        name, kind = field.get("name"), field.get("type", "")
        if not name or kind in ("submit", "button", "file"):
            continue
        if kind in ("checkbox", "radio"):
            if field.has_attr("checked"):
                data.setdefault(name, []).append(field.get("value", "on"))
        elif field.name == "select":
            data[name] = [o.get("value", "") for o in field.find_all("option") if o.has_attr("selected")]
        elif field.name == "textarea":
            data[name] = [field.text]
        else:
            data[name] = [field.get("value", "")]
    return data


def entries_for(obj) -> list[LogEntry]:  # noqa: ANN001
    return list(LogEntry.objects.get_for_object(obj).order_by("timestamp"))


def test_a_review_decision_is_logged_with_its_editor(make_revision, make_user):
    make_revision(
        "# Sinar\n\nFitur Sinar tersedia untuk semua pelanggan sejak 2 Mei 2026.",
        key="A1",
        public=True,
        title="Dokumentasi Sinar",
    )
    editor = make_user("editor", "redaksi", reviewer=True)
    answer = question_ask(text="Apakah fitur Sinar tersedia untuk semua pelanggan?", user=editor).answer
    claim = answer.claims.first()
    assert claim is not None and entries_for(claim) == []  # the pipeline's claims are no events
    client = Client()
    client.force_login(editor)
    client.post(reverse("claim-decide", args=[claim.pk]), {"status": "needs_review", "note": "tanggal?"})
    client.post(reverse("claim-decide", args=[claim.pk]), {"status": "supported", "note": ""})
    first, second = entries_for(claim)
    assert (first.actor, first.action) == (editor, LogEntry.Action.UPDATE)
    assert first.changes_dict["review_status"] == ["pending", "needs_review"]
    assert first.changes_dict["review_note"] == ["", "tanggal?"]
    assert second.changes_dict["review_status"] == ["needs_review", "supported"]
    assert second.timestamp >= first.timestamp and second.remote_addr == "127.0.0.1"


def test_permission_changes_in_admin_are_logged_with_the_admin(admin_client, admin_user, make_revision, make_user):
    make_revision("# Memo\n\nIsi memo.", key="M1", title="Memo", groups=("hukum",))
    reader = make_user("pembaca")
    hukum = Group.objects.get(name="hukum")

    page = admin_client.get(f"/admin/auth/user/{reader.pk}/change/").content.decode()
    data = form_data(page, "user_form")
    data["groups"] = [str(hukum.pk)]
    response = admin_client.post(f"/admin/auth/user/{reader.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert list(reader.groups.all()) == [hukum]
    [membership] = [e for e in entries_for(reader) if "groups" in e.changes_dict]
    assert membership.actor == admin_user
    assert membership.changes_dict["groups"]["operation"] == "add"
    assert membership.changes_dict["groups"]["objects"] == ["hukum"]

    document = Document.objects.get(key="M1")
    page = admin_client.get(f"/admin/retrieval/document/{document.pk}/change/").content.decode()
    data = form_data(page, "document_form")
    data["public"] = ["on"]
    data["groups"] = []
    assert admin_client.post(f"/admin/retrieval/document/{document.pk}/change/", data).status_code == 302
    changes = [e.changes_dict for e in entries_for(document) if e.actor == admin_user]
    assert {"public": ["False", "True"]} in [{k: v for k, v in c.items() if k == "public"} for c in changes]
    assert any(c.get("groups", {}).get("operation") == "delete" for c in changes)

    assert admin_client.post("/admin/review/apitoken/add/", {"user": reader.pk, "name": "skrip"}).status_code == 302
    [issued] = entries_for(ApiToken.objects.get(user=reader))
    assert (issued.actor, issued.action) == (admin_user, LogEntry.Action.CREATE)

    permission = Permission.objects.get(codename="view_document")
    hukum.permissions.add(permission)  # outside a request: logged, with no actor (a command or a worker)
    [granted] = [e for e in entries_for(hukum) if "permissions" in e.changes_dict]
    assert granted.actor is None and granted.changes_dict["permissions"]["operation"] == "add"


def test_the_log_is_for_admins_only(admin_client, make_user):
    editor = make_user("editor", "redaksi")
    editor.groups.add(Group.objects.get_or_create(name="produk")[0])  # an entry to list
    assert "produk" in admin_client.get("/admin/auditlog/logentry/").content.decode()
    client = Client()
    client.force_login(editor)
    assert client.get("/admin/auditlog/logentry/").status_code == 302  # not staff: to the admin login
    staff = make_user("staf", is_staff=True)
    client.force_login(staff)
    assert client.get("/admin/auditlog/logentry/").status_code == 403
