"""Where a fetch may connect: public addresses on ports 80 and 443, and the
intranet hosts, networks and ports an operator lists (issue 55).

A fetched document's URL is typed by whoever may add documents, but the
request leaves from a worker, which reaches what they cannot: the cloud
metadata service (169.254.169.254), admin pages on loopback, intranet
hosts. So a name is resolved, every address it has is checked, and the
socket is connected to a checked address — never to the name, which a
second lookup could answer differently (DNS rebinding). The check sits
where httpcore opens a connection (``VettedBackend``), so every request of
a fetch passes it: robots.txt, each redirect hop, each scheduled re-fetch.
Only the TCP connection changes: httpcore takes the Host header, the TLS
server name and the certificate check from the URL, so they stay on the name.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpcore
import httpx
from django.core.exceptions import ImproperlyConfigured

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_PORTS = frozenset({80, 443})
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_HOSTNAME = re.compile(r"^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?\.?$")  # a mistyped network must not pass as a name


class AddressRefused(Exception):
    """A fetch may not go there; the message says why, for the admin."""


@dataclass(frozen=True)
class Allowance:
    """What a fetch may reach beyond public addresses on the default ports.

    ``hosts`` are names trusted whatever they resolve to (an intranet wiki);
    ``networks`` are address ranges a name or a literal address may fall in;
    ``ports`` are every port a fetch may use, the defaults included."""

    hosts: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()
    ports: frozenset[int] = DEFAULT_PORTS

    @classmethod
    def parse(cls, entries: Iterable[str], ports: Iterable[int | str] = ()) -> Allowance:
        """From ``NALARKU_FETCH["allow"]`` (names, addresses, CIDR networks)
        and ``["ports"]`` (ports added to 80 and 443)."""
        hosts, networks = set(), []
        for entry in (e.strip().lower() for e in entries):
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                if not _HOSTNAME.match(entry) or entry.replace(".", "").isdigit():
                    raise ImproperlyConfigured(
                        f"NALARKU_FETCH_ALLOW: bukan nama host, alamat IP atau jaringan CIDR: {entry!r}"
                    ) from None
                hosts.add(entry.rstrip("."))
        try:
            extra = {int(port) for port in ports}
        except ValueError:
            raise ImproperlyConfigured(f"NALARKU_FETCH_PORTS: bukan nomor port: {list(ports)!r}") from None
        if not all(0 < port < 65536 for port in extra):
            raise ImproperlyConfigured(f"NALARKU_FETCH_PORTS: port di luar 1-65535: {sorted(extra)!r}")
        return cls(hosts=frozenset(hosts), networks=tuple(networks), ports=DEFAULT_PORTS | extra)

    def covers(self, address: IPAddress) -> bool:
        return any(address.version == network.version and address in network for network in self.networks)


def is_internal(address: IPAddress) -> bool:
    """Whether ``address`` is anything but a public unicast address:
    loopback, private, link-local, site-local, multicast, reserved,
    unspecified, shared (100.64/10). An IPv6 address that carries an IPv4
    one (IPv4-mapped, 6to4, Teredo, NAT64) is judged by both, since it leads
    to that IPv4 host; Python calls 6to4 of 127.0.0.1 "global"."""
    return any(_not_public(inner) for inner in _with_embedded(address))


def _not_public(address: IPAddress) -> bool:
    return (
        not address.is_global
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or getattr(address, "is_site_local", False)
    )


def _with_embedded(address: IPAddress) -> list[IPAddress]:
    if not isinstance(address, ipaddress.IPv6Address):
        return [address]
    embedded = [address.ipv4_mapped, address.sixtofour, address.teredo[1] if address.teredo else None]
    if address in _NAT64:
        embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return [address, *(inner for inner in embedded if inner is not None)]


def url_target(url: str, allowance: Allowance) -> tuple[str, int]:
    """The host and port an http(s) URL leads to, if the port is allowed;
    AddressRefused otherwise. The name is not resolved here: that is done
    once, by ``addresses_vetted`` when the connection is opened."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AddressRefused(f"URL harus http atau https dengan nama host: {url!r}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise AddressRefused(f"port tidak valid: {url!r}") from None
    _check_port(port, allowance)
    return parts.hostname, port


def _check_port(port: int, allowance: Allowance) -> None:
    if port not in allowance.ports:
        allowed = ", ".join(str(p) for p in sorted(allowance.ports))
        raise AddressRefused(f"port {port} tidak diizinkan (hanya {allowed})")


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to, in the resolver's order
    (socket.gaierror when it resolves to none)."""
    answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(ipaddress.ip_address(answer[4][0]) for answer in answers))


def addresses_vetted(host: str, port: int, allowance: Allowance) -> list[IPAddress]:
    """The addresses of ``host`` a fetch may connect to, resolved once.

    AddressRefused when the port is not allowed, or when any address is
    internal and neither the name nor a listed network allows it: a name
    with one public and one internal address is refused whole, since a
    client falls back from one to the other."""
    host = host.strip("[]").lower().rstrip(".")
    _check_port(port, allowance)
    literal = _literal(host)
    addresses = [literal] if literal is not None else resolve(host, port)
    if host in allowance.hosts:
        return addresses
    refused = [address for address in addresses if is_internal(address) and not allowance.covers(address)]
    if refused:
        where = _shown(refused[0]) if literal is not None else f"{host} → {_shown(refused[0])}"
        raise AddressRefused(f"alamat internal tidak diizinkan: {where}")
    return addresses


def _shown(address: IPAddress) -> str:
    """As an admin would type it: Python 3.11 writes ::ffff:127.0.0.1 as ::ffff:7f00:1."""
    mapped = getattr(address, "ipv4_mapped", None)
    return f"::ffff:{mapped}" if mapped else str(address)


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


class VettedBackend(httpcore.NetworkBackend):
    """httpcore's own blocking backend, connecting only to the vetted
    addresses of a host, tried in the resolver's order as
    ``socket.create_connection`` would."""

    def __init__(self, allowance: Allowance) -> None:
        self._allowance = allowance
        self._backend = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        try:
            addresses = addresses_vetted(host, port, self._allowance)
        except (socket.gaierror, UnicodeError) as exc:
            raise httpcore.ConnectError(f"nama host tidak ditemukan: {host}") from exc
        failure: Exception | None = None
        for address in addresses:
            try:
                return self._backend.connect_tcp(
                    str(address), port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        raise failure or httpcore.ConnectError(f"tidak ada alamat untuk {host}")

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: object = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("soket Unix tidak diizinkan untuk pengambilan")

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class VettedTransport(httpx.HTTPTransport):
    """httpx's default transport over ``VettedBackend``.

    httpx 0.28 takes no network backend (encode/httpx#3749, open), so the
    connection pool HTTPTransport builds is replaced by one built the same
    way with the backend. Being an explicit transport also keeps httpx from
    routing through a proxy named in the environment, which would resolve
    and connect where this check cannot see."""

    def __init__(self, allowance: Allowance) -> None:
        super().__init__()
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)  # httpx's defaults
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=VettedBackend(allowance),
        )
