"""The desk never records a decision nobody meant, and an htmx action that
may not go on gets one line to say in place: a note alone decides nothing;
an ended session is a 401 naming the way back; a refusal or a changed
session is a 403 with its reason, never a whole page in a claim's row."""

from __future__ import annotations

from datetime import date

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from review.asking import question_ask
from review.models import Answer, Claim, EvidenceLookup

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
QUESTION = "Apakah fitur Sinar sekarang sudah tersedia untuk semua pelanggan?"


@pytest.fixture
def answer(make_revision, make_user) -> Answer:
    make_revision(
        "# Sinar\n\nFitur Sinar masih private preview untuk pelanggan terpilih.",
        key="S1",
        title="Dokumentasi Sinar",
        public=True,
        source_type="documentation",
        document_date=date(2026, 3, 1),
    )
    make_revision(
        "# Sinar\n\nSejak 2 Mei 2026 fitur Sinar tersedia untuk semua pelanggan.",
        key="S1",
        title="Dokumentasi Sinar",
        public=True,
        source_type="documentation",
        document_date=date(2026, 5, 2),
    )
    editor = make_user("editor", reviewer=True)
    result = question_ask(text=QUESTION, user=editor).answer
    assert result.claims.exists()
    return result


def _editor(client: Client, answer: Answer) -> Claim:
    from django.contrib.auth.models import User

    client.force_login(User.objects.get(username="editor"))
    client.get(reverse("answer", args=[answer.pk]))
    return answer.claims.order_by("position").first()


def test_a_note_without_a_status_is_saved_and_decides_nothing(client, answer):
    claim = _editor(client, answer)
    status_before = Answer.objects.get(pk=answer.pk).status
    response = client.post(reverse("claim-decide", args=[claim.pk]), {"note": " cek ulang ke tim produk "}, **HX)
    html = response.content.decode()
    assert response.status_code == 200 and "Catatan disimpan; klaim belum dinilai." in html
    claim.refresh_from_db()
    assert (claim.review_status, claim.review_note, claim.reviewer) == ("pending", "cek ulang ke tim produk", None)
    assert Answer.objects.get(pk=answer.pk).status == status_before
    assert not EvidenceLookup.objects.filter(claim=claim, decided_at__isnull=False).exists()
    # The note's own button comes first in the form: it is the one Enter presses.
    form = html[html.index('<form method="post" action="' + reverse("claim-decide", args=[claim.pk])) :]
    buttons = form.split("<button")[1:]
    assert "data-note-save" in buttons[0] and "data-decide" in buttons[1]


def test_a_note_on_a_decided_claim_keeps_the_decision(client, answer):
    claim = _editor(client, answer)
    client.post(reverse("claim-decide", args=[claim.pk]), {"status": "needs_review"}, **HX)
    response = client.post(reverse("claim-decide", args=[claim.pk]), {"note": "tanya tim hukum"}, **HX)
    assert "penilaian tidak berubah" in response.content.decode()
    claim.refresh_from_db()
    assert (claim.review_status, claim.review_note) == ("needs_review", "tanya tim hukum")
    assert EvidenceLookup.objects.filter(claim=claim, decided_at__isnull=False).count() == 1


def test_an_ended_session_is_a_401_that_names_the_way_back(client, answer):
    claim = _editor(client, answer)
    client.logout()
    here = reverse("answer", args=[answer.pk])
    response = client.post(
        reverse("claim-decide", args=[claim.pk]),
        {"status": "supported"},
        HTTP_HX_CURRENT_URL=f"http://testserver{here}",
        **HX,
    )
    assert response.status_code == 401 and response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == "Sesi berakhir — masuk lagi. Perubahan ini belum disimpan."
    assert response["X-Nalarku-Login"] == f"{reverse('login')}?next={here.replace('/', '%2F')}"
    claim.refresh_from_db()
    assert claim.review_status == "pending"
    # Another site's address never becomes the way back.
    elsewhere = client.post(
        reverse("claim-decide", args=[claim.pk]),
        {"status": "supported"},
        HTTP_HX_CURRENT_URL="https://jahat.example/jawaban/1/",
        **HX,
    )
    assert elsewhere["X-Nalarku-Login"] == f"{reverse('login')}?next=%2F"
    # Without htmx, the login redirect stays as it was.
    plain = client.post(reverse("claim-decide", args=[claim.pk]), {"status": "supported"})
    assert plain.status_code == 302 and plain["Location"].startswith(reverse("login"))


def test_a_refusal_is_one_line_not_a_page(client, answer):
    claim = _editor(client, answer)
    from django.contrib.auth.models import User

    editor = User.objects.get(username="editor")
    editor.user_permissions.remove(Permission.objects.get(codename="review_claim"))
    for group in editor.groups.all():
        group.permissions.remove(Permission.objects.get(codename="review_claim"))
    client.force_login(User.objects.get(pk=editor.pk))  # a fresh user: no cached permissions
    response = client.post(reverse("claim-decide", args=[claim.pk]), {"status": "supported"}, **HX)
    text = response.content.decode()
    assert response.status_code == 403 and response["Content-Type"].startswith("text/plain")
    assert text.startswith("Ini untuk peninjau") and "<html" not in text
    claim.refresh_from_db()
    assert claim.review_status == "pending"
    # The page itself still gets Django's 403 page.
    assert "<html" in client.post(reverse("claim-decide", args=[claim.pk]), {"status": "supported"}).content.decode()


def test_a_changed_session_is_a_403_that_says_so(answer):
    from django.contrib.auth.models import User

    client = Client(enforce_csrf_checks=True)
    claim = _editor(client, answer)
    response = client.post(
        reverse("claim-decide", args=[claim.pk]), {"status": "supported"}, HTTP_X_CSRFTOKEN="salah", **HX
    )
    assert response.status_code == 403 and "Sesi Anda berubah" in response.content.decode()
    assert "<html" not in response.content.decode()
    assert User.objects.filter(username="editor").exists()
    claim.refresh_from_db()
    assert claim.review_status == "pending"
