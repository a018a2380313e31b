"""Where webhook deliveries may go: the rules for a receiver URL (checked when a webhook is
created or changed) and for the address it resolves to (checked at every attempt, and the
connection then goes to exactly that address: events/sender.py).

Outside the local stage a receiver is an https URL on port 443 or 8443 whose name resolves to
public addresses only. The local stage (PM_ALLOW_LOOPBACK_WEBHOOKS=1) also accepts http and
loopback receivers on any port, for receivers running beside `make serve`."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from chalicelib import config

ALLOWED_PORTS = (443, 8443)


def url_problem(url: str) -> str | None:
    """Why a receiver URL is refused, in words for the caller; None when it is fine."""
    if any(ch.isspace() or ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in url):
        return "must not contain whitespace or control characters"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "is not a valid URL"
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "must be an absolute https URL"
    if parts.username is not None or parts.password is not None:
        return "credentials in the URL are not allowed; use authorizationHeader"
    host = parts.hostname.rstrip(".")
    address = literal_address(host)
    loopback = host == "localhost" or host.endswith(".localhost") or (address is not None and address.is_loopback)
    if loopback and not config.allow_loopback_webhooks():
        return "loopback receivers are only allowed in the local stage"
    if address is not None and not loopback and not public(address):
        return "private, link-local, metadata and reserved addresses are not allowed"
    if config.allow_loopback_webhooks():
        return None if parts.scheme == "https" or loopback else "must use https"
    if parts.scheme != "https":
        return "must use https"
    if port is not None and port not in ALLOWED_PORTS:
        return f"port {port} is not allowed; use {' or '.join(map(str, ALLOWED_PORTS))}"
    return None


def literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address a host names literally, in any notation a resolver accepts
    (`2130706433`, `0x7f.1`, `0177.0.0.1` are 127.0.0.1); None for a name."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


# IPv6 blocks refused whatever Python's address tables say (they change between patch
# releases): tunnels that carry an IPv4 address to relays (6to4, Teredo), the local network's
# own NAT64 translator, deprecated site-local addresses, documentation (RFC 9637) and SRv6
# segment identifiers. The well-known NAT64 prefix is not here: it is judged by the IPv4
# address it carries (RFC 6052), as IPv4-mapped addresses are.
_REFUSED_V6 = tuple(
    ipaddress.IPv6Network(block)
    for block in ("2002::/16", "2001::/32", "64:ff9b:1::/48", "fec0::/10", "3fff::/20", "5f00::/16")
)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether an address is a place to send events to: not private, shared, link-local (the
    cloud metadata service among them), multicast, reserved, unspecified or loopback, nor an
    IPv6 address that wraps one of them."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return public(ip.ipv4_mapped)
        if ip in _NAT64:
            return public(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        if ip.is_site_local or any(ip in block for block in _REFUSED_V6):
            return False
    return bool(
        ip.is_global
        and not (
            ip.is_private
            or ip.is_link_local
            or ip.is_multicast
            or ip.is_reserved
            or ip.is_unspecified
            or ip.is_loopback
        )
    )


def address_allowed(address: str) -> bool:
    """An address a delivery may connect to (loopback too, in the local stage)."""
    ip = ipaddress.ip_address(address.split("%")[0])
    return public(ip) or (ip.is_loopback and config.allow_loopback_webhooks())
