"""The archive page lists only what the reader's groups may see."""

import pytest
from django.urls import reverse


@pytest.mark.django_db
def test_archive_page_filters_by_groups(client, make_revision, make_user):
    make_revision("# Rahasia\n\nProyek Garuda Biru.", key="S1", title="Memo hukum", groups=("hukum",))
    make_revision("# Umum\n\nPengumuman publik.", key="P1", title="Pengumuman", public=True)
    client.force_login(make_user("pembaca"))
    page = client.get(reverse("archive")).content.decode()
    # The key as the page would show or link it: a bare "S1" can occur inside
    # the page's random CSRF token (it did, once in about 60 runs).
    assert "Pengumuman" in page and "Memo hukum" not in page and ">S1<" not in page and "/S1/" not in page
    client.force_login(make_user("pengacara", "hukum"))
    assert "Memo hukum" in client.get(reverse("archive")).content.decode()


@pytest.mark.django_db
def test_archive_page_requires_login(client):
    response = client.get(reverse("archive"))
    assert response.status_code == 302 and reverse("login") in response["Location"]
