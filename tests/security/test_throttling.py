"""Brute force: logins lock one account at one address, and far later one
address for all accounts, or one account at addresses it has never logged
in from (django-axes, review/api/throttle.py); wrong bearer tokens lock the
address they come from (review/api/throttle.py); both with an Indonesian 429
and Retry-After. Real PostgreSQL for axes' attempts,
real Redis for the token counts."""

from __future__ import annotations

import re
import time
import uuid
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.cache.backends.redis import RedisCache
from django.db.models import F
from django.test import Client, RequestFactory
from django.urls import reverse

from review.api.throttle import _keys, client_address
from review.models import ApiToken
from review.tokens import token_issue

pytestmark = pytest.mark.django_db

# Documentation addresses (RFC 5737): never a real client.
A, B, C = "198.51.100.1", "198.51.100.2", "203.0.113.3"
PASSWORD = "rahasia-uji"  # make_user's


@pytest.fixture(autouse=True)
def _own_throttle_keys(settings):
    """The token counts of each test under a prefix of its own, deleted
    afterwards: the Redis database is shared with other test runs, and a
    count left over would lock the next test's address. (axes' attempts are
    rows in the test's transaction, rolled back with it.)"""
    own = {**settings.CACHES["default"], "KEY_PREFIX": f"test-throttle-{uuid.uuid4().hex}"}
    settings.CACHES = {"default": own}
    yield
    # Not through django.core.cache: a test may have pointed it at a dead Redis.
    RedisCache(own["LOCATION"], own).delete_many([key for a in (A, B, C, None) for key in _keys(a)])


@pytest.fixture(autouse=True)
def _fast_hashing(settings):
    """Password hashing is not under test here; PBKDF2's deliberate slowness
    would make these tests take half a minute."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def login_limit(settings) -> int:
    return settings.AXES_FAILURE_LIMIT


def log_in(address: str, username: str, password: str, *, admin: bool = False, **extra: str):
    """A login at /masuk/ or, with ``admin``, at /admin/login/, from ``address``."""
    client = Client(REMOTE_ADDR=address, **extra)
    url = reverse("admin:login") if admin else reverse("login")
    response = client.post(url, {"username": username, "password": password, "next": "/admin/" if admin else ""})
    return response, client


def logged_in(response, client) -> bool:  # noqa: ANN001
    return response.status_code == 302 and "_auth_user_id" in client.session


def assert_lockout_page(response, reason: str = "untuk akun ini dari alamat jaringan Anda") -> None:  # noqa: ANN001
    body = " ".join(response.content.decode().split())
    assert response.status_code == 429
    assert "Masuk dikunci sementara" in body and "Coba lagi setelah pukul" in body and "15 menit" in body
    assert reason in body
    assert response["Retry-After"] == str(15 * 60)
    assert "Traceback" not in body and "axes" not in body.lower()


def warning(response) -> str | None:  # noqa: ANN001
    """The login page's warning before a lock, if it shows one."""
    assert response.status_code == 200 and "Nama pengguna atau kata sandi salah" in response.content.decode()
    found = re.search(r'<p class="error" id="login-warning">(.*?)</p>', response.content.decode(), re.S)
    return " ".join(found.group(1).split()) if found else None


# --- Logins -------------------------------------------------------------------------


def test_settings_lock_the_pair_with_wider_limits_far_above(settings):
    assert settings.AXES_FAILURE_LIMIT == 5 and settings.AXES_COOLOFF_TIME == timedelta(minutes=15)
    assert settings.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]
    assert settings.NALARKU_LOGIN_ADDRESS_LIMIT == 50 and settings.NALARKU_LOGIN_ACCOUNT_LIMIT == 20


def test_one_accounts_failures_never_lock_another_at_the_same_address(make_user, login_limit, settings):
    """The newsroom behind one address: someone's typos, and their retries
    while locked (each counted), lock their own account there and nothing
    else, at /masuk/ or /admin/login/, even past the address limit."""
    for name in ("editor", "produk"):
        make_user(name)
    make_user("redaktur", is_staff=True)
    for _ in range(login_limit - 1):
        assert log_in(A, "editor", "salah")[0].status_code == 200
    assert_lockout_page(log_in(A, "editor", "salah", admin=True)[0])  # the admin's login counts alike
    for _ in range(settings.NALARKU_LOGIN_ADDRESS_LIMIT):
        assert_lockout_page(log_in(A, "editor", "salah")[0])
    assert AccessAttempt.objects.get().failures_since_start == login_limit + settings.NALARKU_LOGIN_ADDRESS_LIMIT

    for admin in (False, True):  # the account itself is locked here, the right password or not
        response, client = log_in(A, "editor", PASSWORD, admin=admin)
        assert_lockout_page(response)
        assert "_auth_user_id" not in client.session
    assert logged_in(*log_in(A, "produk", PASSWORD))
    assert logged_in(*log_in(A, "redaktur", PASSWORD, admin=True))
    assert logged_in(*log_in(B, "editor", PASSWORD))  # and the account from elsewhere


def test_the_account_is_locked_at_the_limit_at_that_address(make_user, login_limit):
    make_user("editor")
    for _ in range(login_limit - 1):
        assert log_in(A, "editor", "salah")[0].status_code == 200
    assert_lockout_page(log_in(A, "editor", "salah")[0])  # the limit-th failure already answers with the lockout
    response, client = log_in(A, "editor", PASSWORD)
    assert_lockout_page(response)
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("limit", [5, 7])
def test_the_warning_counts_down_from_the_third_failure(make_user, settings, limit):
    settings.AXES_FAILURE_LIMIT = limit
    make_user("editor")
    make_user("produk")
    for failure in range(1, limit):
        shown = warning(log_in(A, "editor", "salah")[0])
        if failure < 3:
            assert shown is None
        else:
            assert shown == f"{limit - failure} percobaan lagi sebelum akun dikunci sementara."
    # The count is the pair's: the same account elsewhere, another account here, start afresh.
    assert warning(log_in(B, "editor", "salah")[0]) is None
    assert warning(log_in(A, "produk", "salah")[0]) is None
    assert_lockout_page(log_in(A, "editor", "salah")[0])


def test_spraying_many_accounts_from_one_address_locks_the_address(make_user, settings):
    """One guess each at many usernames: no pair comes near its limit, the
    address's failures together do."""
    make_user("editor")
    address_limit = settings.NALARKU_LOGIN_ADDRESS_LIMIT
    for failure in range(1, address_limit):
        shown = warning(log_in(A, f"tebakan{failure}", "salah")[0])
        if address_limit - failure > 2:
            assert shown is None
        else:
            assert shown == (
                f"{address_limit - failure} percobaan lagi sebelum masuk dari alamat jaringan ini "
                "dikunci sementara untuk semua akun."
            )
    for name in ("tebakan-terakhir", "editor"):  # now nobody, whoever it is, from this address
        response, client = log_in(A, name, PASSWORD)
        assert_lockout_page(response, "masuk dari alamat ini dikunci sementara untuk semua akun")
        assert "_auth_user_id" not in client.session
    assert logged_in(*log_in(B, "editor", PASSWORD))


def test_guessing_one_account_from_many_addresses_locks_it_except_where_it_logs_in(make_user, settings, login_limit):
    """The account-wide limit would let anyone who knows a username lock it
    out; it spares the addresses the account has logged in from."""
    make_user("editor")
    assert logged_in(*log_in(A, "editor", PASSWORD))  # the newsroom: known to the account from now on
    account_limit = settings.NALARKU_LOGIN_ACCOUNT_LIMIT
    for i in range(account_limit - 1):  # one guess from each address: no pair near its limit
        assert log_in(f"192.0.2.{10 + i}", "editor", "salah")[0].status_code == 200
    assert_lockout_page(log_in("192.0.2.99", "editor", "salah")[0], "untuk akun ini dari berbagai alamat jaringan")

    response, client = log_in(C, "editor", PASSWORD)  # a fresh address: refused
    assert_lockout_page(response, "untuk akun ini dari berbagai alamat jaringan")
    assert "_auth_user_id" not in client.session
    assert logged_in(*log_in(A, "editor", PASSWORD))  # the known one: in
    for _ in range(login_limit - 1):  # and there only the pair's own limit applies
        assert log_in(A, "editor", "salah")[0].status_code == 200
    assert logged_in(*log_in(A, "editor", PASSWORD))


def test_a_forged_forwarded_for_does_not_give_a_fresh_address(make_user, login_limit):
    """Without NALARKU_TRUSTED_PROXIES the header is the client's own word:
    trusted, it would make every guess a fresh account+address pair."""
    for i in range(login_limit):
        response, _ = log_in(A, "editor", "salah", HTTP_X_FORWARDED_FOR=f"192.0.2.{i + 1}")
    assert_lockout_page(response)
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {A}


def test_a_successful_login_resets_the_pairs_count_only(make_user, login_limit):
    make_user("editor")
    assert log_in(C, "editor", "salah")[0].status_code == 200
    for _ in range(2):  # twice the limit in failures, with a success between
        for _ in range(login_limit - 1):
            assert log_in(B, "editor", "salah")[0].status_code == 200
        assert logged_in(*log_in(B, "editor", PASSWORD))
    assert not AccessAttempt.objects.filter(username="editor", ip_address=B).exists()
    # Not its failures from elsewhere: its owner's login would restart a guess's count from many addresses.
    assert AccessAttempt.objects.get(username="editor").ip_address == C


def test_logging_into_ones_own_account_does_not_reset_the_address(make_user, settings):
    """Else anyone with an account could guess others' passwords for ever,
    logging into their own between guesses."""
    settings.NALARKU_LOGIN_ADDRESS_LIMIT = 10
    make_user("orang-dalam")
    for i in range(9):
        assert log_in(A, f"korban{i}", "salah")[0].status_code == 200
    assert logged_in(*log_in(A, "orang-dalam", PASSWORD))
    assert AccessAttempt.objects.filter(ip_address=A).count() == 9
    assert_lockout_page(log_in(A, "korban-lagi", "salah")[0], "untuk semua akun")


def test_the_lock_lifts_once_the_cool_off_has_passed(make_user, login_limit):
    make_user("editor")
    for _ in range(login_limit):
        response, _ = log_in(A, "editor", "salah")
    assert_lockout_page(response)
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=15, seconds=1))
    assert logged_in(*log_in(A, "editor", PASSWORD))


def test_an_admin_sees_and_unlocks_an_account(admin_client, make_user, login_limit):
    make_user("editor")
    for _ in range(login_limit):
        log_in(A, "editor", "salah")
    log_in(A, "editor", "salah", HTTP_USER_AGENT="peramban-lain")  # a second row for the same pair
    log_in(B, "editor", "salah")
    log_in(A, "produk", "salah")
    rows = AccessAttempt.objects.filter(username="editor", ip_address=A)
    assert rows.count() == 2
    assert admin_client.get(reverse("admin:index")).status_code == 200
    listing = admin_client.get(reverse("admin:axes_accessattempt_changelist"), {"q": "editor"})
    assert listing.status_code == 200 and "editor" in listing.content.decode()
    assert "Buka kunci akun terpilih" in listing.content.decode()
    assert admin_client.get(reverse("admin:axes_accessattempt_change", args=[rows[0].pk])).status_code == 200
    assert admin_client.get(reverse("admin:axes_accesslog_changelist")).status_code == 200

    done = admin_client.post(
        reverse("admin:axes_accessattempt_changelist"),
        {"action": "unlock_accounts", "_selected_action": [rows[0].pk]},
        follow=True,
    )
    assert done.status_code == 200 and "Kunci akun editor dibuka: 3 catatan" in done.content.decode()
    assert list(AccessAttempt.objects.values_list("username", flat=True)) == ["produk"]  # only editor's, all
    assert logged_in(*log_in(A, "editor", PASSWORD))


def test_an_admin_unlocks_an_address(admin_client, make_user, settings):
    settings.NALARKU_LOGIN_ADDRESS_LIMIT = 10
    make_user("editor")
    for i in range(10):
        log_in(A, f"tebakan{i}", "salah")
    log_in(B, "tebakan0", "salah")
    assert_lockout_page(log_in(A, "editor", PASSWORD)[0], "untuk semua akun")
    one = AccessAttempt.objects.filter(ip_address=A).first()
    done = admin_client.post(
        reverse("admin:axes_accessattempt_changelist"),
        {"action": "unlock_addresses", "_selected_action": [one.pk]},
        follow=True,
    )
    assert done.status_code == 200 and f"Kunci alamat {A} dibuka: 11 catatan" in done.content.decode()
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == [B]
    assert logged_in(*log_in(A, "editor", PASSWORD))


def test_the_generic_delete_still_unlocks_the_row(admin_client, make_user, login_limit):
    make_user("editor")
    for _ in range(login_limit):
        log_in(A, "editor", "salah")
    attempt = AccessAttempt.objects.get(username="editor")
    deleted = admin_client.post(
        reverse("admin:axes_accessattempt_changelist"),
        {"action": "delete_selected", "_selected_action": [attempt.pk], "post": "yes"},
    )
    assert deleted.status_code == 302 and not AccessAttempt.objects.exists()
    assert logged_in(*log_in(A, "editor", PASSWORD))


# --- Bearer tokens ------------------------------------------------------------------


def api_search(address: str, token: str):
    return Client(REMOTE_ADDR=address).get(
        reverse("api-search"), {"q": "baterai", "mode": "lexical"}, HTTP_AUTHORIZATION=f"Bearer {token}"
    )


@pytest.fixture
def token(make_user) -> str:
    return token_issue(user=make_user("skrip"), name="uji")[1]


@pytest.fixture
def bearer_limit(settings) -> int:
    return settings.NALARKU_BEARER_THROTTLE["limit"]


def test_wrong_tokens_lock_the_address_not_the_tokens_owner(token, bearer_limit, settings, django_assert_num_queries):
    for i in range(bearer_limit):
        assert api_search(A, f"nlk_tebakan-{i}").status_code == 401
    locked = api_search(A, "nlk_tebakan-lagi")
    assert locked.status_code == 429 and "terlalu banyak token" in locked.json()["error"]
    assert 0 < int(locked["Retry-After"]) <= settings.NALARKU_BEARER_THROTTLE["window"]

    with django_assert_num_queries(0):  # refused without even looking the token up
        refused = api_search(A, token)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert ApiToken.objects.get().last_used_at is None

    assert api_search(B, token).status_code == 200  # the owner, from elsewhere


def test_a_correct_token_resets_no_count(token, bearer_limit):
    """Neither the address's own (one valid token must not buy endless
    guesses) nor, of course, another address's."""
    for i in range(bearer_limit - 1):
        assert api_search(A, f"nlk_tebakan-{i}").status_code == 401
    assert api_search(A, token).status_code == 200
    assert api_search(B, token).status_code == 200
    assert api_search(A, "nlk_tebakan-terakhir").status_code == 401
    assert api_search(A, token).status_code == 429


def test_malformed_headers_are_refused_but_not_counted(token, bearer_limit):
    client = Client(REMOTE_ADDR=A)
    for header in ["Token nlk_x", "Bearer ", "Basic dXNlcjpwYXNz"] * bearer_limit:
        assert client.get(reverse("api-search"), {"q": "x"}, HTTP_AUTHORIZATION=header).status_code == 401
    assert api_search(A, token).status_code == 200


def test_the_token_lock_ends_with_its_window(token, settings):
    settings.NALARKU_BEARER_THROTTLE = {"limit": 2, "window": 1}
    for i in range(2):
        assert api_search(A, f"nlk_tebakan-{i}").status_code == 401
    assert api_search(A, token).status_code == 429
    time.sleep(1.2)
    assert api_search(A, token).status_code == 200


def test_with_redis_down_tokens_are_still_checked(token, settings):
    """The throttle fails open: an outage of Redis must not take the API down."""
    settings.CACHES = {"default": {**settings.CACHES["default"], "LOCATION": "redis://127.0.0.1:1/0"}}
    started = time.monotonic()
    assert api_search(A, token).status_code == 200
    assert api_search(A, "nlk_tebakan").status_code == 401
    assert time.monotonic() - started < 5


# --- The client's address -----------------------------------------------------------


@pytest.mark.parametrize(
    "proxies, expected",
    [
        (0, "10.0.0.2"),  # the header is ignored: no proxy vouches for it
        (1, "198.51.100.7"),  # what our proxy saw; left of it is the client's own claim
        (2, "203.0.113.9"),
        (5, "203.0.113.9"),  # fewer entries than proxies: the leftmost
    ],
)
def test_client_address_trusts_only_the_configured_proxies(settings, proxies, expected):
    settings.NALARKU_TRUSTED_PROXIES = proxies
    request = RequestFactory(REMOTE_ADDR="10.0.0.2").get("/", HTTP_X_FORWARDED_FOR="203.0.113.9, 198.51.100.7")
    assert client_address(request) == expected


def test_client_address_of_garbage_is_none(settings):
    settings.NALARKU_TRUSTED_PROXIES = 1
    assert client_address(RequestFactory().get("/", HTTP_X_FORWARDED_FOR="bukan-alamat")) is None
    settings.NALARKU_TRUSTED_PROXIES = 0
    assert client_address(RequestFactory(REMOTE_ADDR="").get("/")) is None
