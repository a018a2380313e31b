"""The OAuth authorization server's provider (issue 35, work in progress): the `mcp` SDK's handlers
(`create_auth_routes`: metadata, authorize, token, register, revoke; PKCE S256, RFC 8707 `resource`,
RFC 7591 validation and the RFCs' error answers) ask this class for what the service keeps
(store/oauth.py) and decides.

Tokens are keys: an access token is an API key of the approving tenant (short-lived, the granted
scopes, the agent name the person confirmed), so REST and MCP, limits, audit and the console treat it
as any key; a grant holds one live access key at a time and its refresh token (hashed, rotated)."""

from __future__ import annotations

import datetime as dt
import time
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlencode, urlsplit

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from chalicelib import clock, config, paths, resource_metadata
from chalicelib.context import CallContext
from chalicelib.errors import Conflict, NotFound
from chalicelib.keyformat import secret_hash, well_formed
from chalicelib.mcp import client_documents
from chalicelib.scopes import KEY_SCOPES
from chalicelib.store import grant_reach, keys
from chalicelib.store import oauth as store
from chalicelib.store.key_lookups import KeyFacts, key_facts

# The token request's RFC 8707 `resource` (set by mcp/oauth_routes.py: the SDK does not pass it on)
ASKED_RESOURCE: ContextVar[str | None] = ContextVar("asked_resource", default=None)
ACCESS_SECONDS = 3600
FORGET_DAYS = 7  # an access key's record (request log, key page) is kept this long after its expiry
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")


def redirect_problem(uri: str) -> str | None:
    """Why a redirect URI is refused (None: fine): https, or http to the loopback interface for a
    native client (RFC 8252, 7.3); never a fragment (RFC 6749, 3.1.2)."""
    parts = urlsplit(uri)
    if parts.fragment:
        return "must not carry a fragment"
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and (parts.hostname or "") in LOOPBACK_HOSTS:
        return None
    return "must be https, or http to 127.0.0.1, [::1] or localhost (a native client)"


def our_resources() -> tuple[str, ...]:
    return (resource_metadata.resource("mcp"), resource_metadata.resource("rest"))


class Provider:
    """store/oauth.py behind the SDK's provider protocol."""

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_documents.is_document_id(client_id):
            described = client_documents.document(client_id)
            if described is None or any(redirect_problem(str(uri)) for uri in described["redirect_uris"]):
                return None
            # a document's client is public (PKCE, never a secret); without `scope` it may ask for any,
            # the person narrows them at consent
            known = {"scope": " ".join(KEY_SCOPES), **described, "token_endpoint_auth_method": "none"}
            return OAuthClientInformationFull.model_validate(known)
        found = store.client(client_id)
        return OAuthClientInformationFull.model_validate(found) if found is not None else None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        if client_info.token_endpoint_auth_method != "none":
            raise RegistrationError(
                "invalid_client_metadata",
                "this server registers public clients only: send token_endpoint_auth_method none (and use PKCE)",
            )
        for uri in client_info.redirect_uris or []:
            problem = redirect_problem(str(uri))
            if problem is not None:
                raise RegistrationError("invalid_redirect_uri", f"{uri} {problem}")
        metadata = client_info.model_dump(mode="json", exclude_none=True)
        metadata.pop("client_secret", None)  # none is minted for a public client; never kept
        store.register_client(str(client_info.client_id), metadata)

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        """Keeps the request and sends the person to the console's consent page (sign-in first)."""
        if params.resource is None or params.resource.rstrip("/") not in our_resources():
            raise AuthorizeError("invalid_target", f"resource must be one of {', '.join(our_resources())}")
        request_id = store.save_request(
            str(client.client_id),
            {
                "state": params.state,
                "scopes": params.scopes or [],
                "code_challenge": params.code_challenge,
                "redirect_uri": str(params.redirect_uri),
                "redirect_uri_provided_explicitly": params.redirect_uri_provided_explicitly,
                "resource": params.resource.rstrip("/"),
                "client_name": client.client_name or str(client.client_id),
                "client_uri": str(client.client_uri) if client.client_uri else None,
            },
        )
        return f"{config.public_url()}{paths.CONSOLE}/oauth/consent?{urlencode({'request': request_id})}"

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        granted = store.peek_code(authorization_code)
        if granted is None or granted.get("client_id") != client.client_id:
            return None
        if granted.get("spent"):  # a replay: what the code's first use got ends (RFC 6749, 4.1.2)
            _revoke(str(granted["tenantId"]), str(granted["grantId"]), "an authorization code was presented again")
            return None
        return AuthorizationCode(
            code=authorization_code,
            scopes=list(granted["scopes"]),
            expires_at=time.time() + 60,  # peek_code answers live codes only
            client_id=str(client.client_id),
            code_challenge=str(granted["code_challenge"]),
            redirect_uri=granted["redirect_uri"],
            redirect_uri_provided_explicitly=bool(granted["redirect_uri_provided_explicitly"]),
            resource=granted.get("resource"),
            subject=str(granted["tenantId"]),
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        granted = store.peek_code(authorization_code.code)
        if granted is not None:
            _same_resource(granted.get("resource"))  # before the code is spent: a wrong resource spends nothing
        if granted is None or granted.get("spent") or not store.redeem_code(authorization_code.code):
            if granted is not None:  # redeemed by a request racing this one: a replay all the same
                _revoke(str(granted["tenantId"]), str(granted["grantId"]), "an authorization code was presented again")
            raise TokenError("invalid_grant", "the authorization code was used already or has expired")
        tenant_id, grant_id = str(granted["tenantId"]), str(granted["grantId"])
        grant = _live_grant(tenant_id, grant_id)
        scopes = grant["scopes"]
        secret = _new_access_key(tenant_id, grant_id, grant, scopes)
        facts = {"client_id": str(client.client_id), "scopes": scopes, "resource": grant.get("resource")}
        refresh = store.new_refresh(tenant_id, grant_id, facts)
        return _token(secret, scopes, refresh)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = store.refresh(refresh_token)
        if found is None or found.data.get("client_id") != client.client_id:
            return None
        # a spent token is answered too: exchange_refresh_token tells the replay and revokes the grant
        return RefreshToken(
            token=refresh_token,
            client_id=str(client.client_id),
            scopes=list(found.data.get("scopes", [])),
            resource=found.data.get("resource"),
            subject=found.tenant_id,
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        """Rotates the refresh token and the access key; a spent refresh token presented again
        revokes the grant (its access key disabled): a stolen token's replay ends it for both. The
        new key holds what the grant's approver may give now (_live_grant), narrowed to the
        request's `scope` when it names fewer (RFC 6749, 6)."""
        found = store.refresh(refresh_token.token)
        if found is None:
            raise TokenError("invalid_grant", "unknown refresh token")
        _same_resource(found.data.get("resource"))
        if scopes and not set(scopes) <= set(found.data.get("scopes", [])):
            raise TokenError("invalid_scope", "a refresh may narrow the scopes, never widen them")
        outcome, successor = store.rotate(refresh_token.token, found)
        if outcome == "reused" or successor is None:
            _revoke(found.tenant_id, found.grant_id, "a spent refresh token was presented again")
            raise TokenError("invalid_grant", "the refresh token was used already; the grant is revoked")
        grant = _live_grant(found.tenant_id, found.grant_id)
        minted = [scope for scope in grant["scopes"] if not scopes or scope in scopes]
        if not minted:
            raise TokenError("invalid_scope", "the grant holds none of the scopes asked for")
        previous = grant.get("accessKeyId")
        secret = _new_access_key(found.tenant_id, found.grant_id, grant, minted)
        if previous:
            _disable(found.tenant_id, str(previous))
        return _token(secret, minted, successor)

    async def exchange_identity_assertion(self, client: OAuthClientInformationFull, params: Any) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "identity assertion grants are not supported")

    async def load_access_token(self, token: str) -> AccessToken | None:
        """An access token of a live grant, for its revocation (RFC 7009); the service's own key
        check (auth.py) authenticates bearer tokens, never this."""
        found = _access_key(token)
        if found is None:
            return None
        facts, grant = found
        return AccessToken(
            token=token,
            client_id=str(grant["client_id"]),
            scopes=list(facts["scopes"]),
            resource=grant.get("resource"),
        )

    async def revoke_token(self, token: Any) -> None:
        """RFC 7009: a refresh token revokes its grant (and what was made through it); an access
        token ends itself (its grant may refresh it)."""
        if isinstance(token, RefreshToken):
            found = store.refresh(token.token)
            if found is not None:
                _revoke(found.tenant_id, found.grant_id, "revoked by the client")
        elif isinstance(token, AccessToken):
            access = _access_key(token.token)
            if access is not None:
                _disable(access[0]["tenantId"], access[0]["keyId"])


def _access_key(token: str) -> tuple[KeyFacts, dict[str, Any]] | None:
    """The facts of a live OAuth access key and its live grant; None for any other string."""
    if not well_formed(token):
        return None
    facts = key_facts(secret_hash(token))
    if facts is None or facts.get("disabled") or not facts.get("oauthGrantId"):
        return None
    grant = store.grant(facts["tenantId"], facts["oauthGrantId"])
    return (facts, grant) if grant is not None and not grant.get("revokedAt") else None


def _same_resource(granted: str | None) -> None:
    """RFC 8707, 2.2: a token request may name only the resource the grant was for (the token's
    audience); absent, the grant's resource stands."""
    asked = ASKED_RESOURCE.get()
    if asked is not None and granted is not None and asked.rstrip("/") != granted:
        raise TokenError("invalid_target", f"this grant is for the resource {granted}, not {asked}")


def _token(secret: str, scopes: list[str], refresh: str) -> OAuthToken:
    return OAuthToken(access_token=secret, expires_in=ACCESS_SECONDS, scope=" ".join(scopes), refresh_token=refresh)


def _approver(tenant_id: str, grant: dict[str, Any], scopes: list[str]) -> CallContext:
    """The person who approved, as the author of the grant's keys (the audit trail's actor)."""
    by = grant.get("approvedBy") or {}
    return CallContext(
        tenant_id=tenant_id,
        key_id=str(by.get("keyId") or ""),
        agent_name=str(by.get("agentName") or "console"),
        scopes=frozenset(scopes),
        channel="console",
        operation="oauth.token",
    )


def _live_grant(tenant_id: str, grant_id: str) -> dict[str, Any]:
    """The grant, live, holding what its approver may give now: narrowed (and audited so) when
    their role allows less, revoked with what was made through it when they are no longer an
    active member (store/grant_reach.py); else invalid_grant."""
    grant = store.grant(tenant_id, grant_id)
    if grant is None or grant.get("revokedAt"):
        raise TokenError("invalid_grant", "the grant was revoked")
    allowed = grant_reach.approver_scopes(tenant_id, grant)
    if not allowed:
        grant_reach.end(_server(tenant_id), grant_id, grant_reach.APPROVER_GONE)
        raise TokenError("invalid_grant", "the person who approved this grant is no longer a member; approve again")
    if allowed != list(grant["scopes"]):
        grant_reach.narrow(_server(tenant_id), grant, allowed)
        grant = {**grant, "scopes": allowed, "accessKeyId": None}  # the wider key was disabled with it
    return grant


def _audience(resource: str | None) -> str | None:
    """The face (resource_metadata.Face) a grant's resource names; None for a grant of before."""
    return next((face for face in ("mcp", "rest") if resource_metadata.resource(face) == resource), None)


def _new_access_key(tenant_id: str, grant_id: str, grant: dict[str, Any], scopes: list[str]) -> str:
    spec = keys.KeySpec(
        agent_name=str(grant["agentName"]),
        scopes=list(scopes),
        audience=_audience(grant.get("resource")),
        expires_at=clock.iso_in(ACCESS_SECONDS),
        oauth_grant_id=grant_id,
        # an hourly refresh would pile up a key an hour in the list: each goes a week after its expiry
        forget_at=clock.now() + dt.timedelta(seconds=ACCESS_SECONDS, days=FORGET_DAYS),
    )
    try:
        record, secret = keys.create_key(_approver(tenant_id, grant, scopes), spec)
    except Conflict as refused:  # the agent's name got a key of its own since the consent, or the key limit
        # (the detail names the company's keys: not the client's business)
        raise TokenError(
            "invalid_grant",
            "no access key for this grant: the agent's name holds other keys of the company, or the company "
            "holds as many keys as it may; approve again under another agent name",
        ) from refused
    if not store.set_access_key(tenant_id, grant_id, str(record["id"])):
        _disable(tenant_id, str(record["id"]))
        raise TokenError("invalid_grant", "the grant was revoked")
    return secret


def _server(tenant_id: str) -> CallContext:
    """The authorization server acting on its own (a client's revocation, a replayed refresh token,
    a key minted for a grant revoked meanwhile): the audit trail's channel `oauth`."""
    return CallContext(
        tenant_id=tenant_id,
        key_id="",
        agent_name="oauth",
        scopes=frozenset(),
        channel="oauth",
        operation="oauth.revoke",
    )


def _disable(tenant_id: str, key_id: str) -> None:
    try:
        keys.disable_key(_server(tenant_id), key_id)
    except NotFound:
        pass  # expired and gone, or disabled already


def _revoke(tenant_id: str, grant_id: str, reason: str) -> None:
    grant_reach.end(_server(tenant_id), grant_id, reason)
