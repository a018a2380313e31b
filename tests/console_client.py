"""A person using the console, for functional tests without a browser: keeps the session
cookie, reads each page's form token, posts forms as a browser does, and signs in with the
code from the service's outbox. The browser tests (tests/browser) drive the same pages in
Chromium; these tests cover what a browser test would be slow for (roles, isolation, errors)."""

from __future__ import annotations

import html
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from tests.client import Answer, Api, Tenant

CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')
SECRET = re.compile(r'id="secret-value"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*id="secret-value"')


@dataclass
class Page:
    status: int
    headers: dict[str, str]
    html: str

    @property
    def location(self) -> str:
        return self.headers.get("location", "")

    def text(self) -> str:
        """The page's text without tags (for `in` checks on what a person reads)."""
        return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", self.html)))

    @property
    def secret(self) -> str | None:
        found = SECRET.search(self.html)
        return (found.group(1) or found.group(2)) if found else None


@dataclass
class Person:
    api: Api
    email: str
    cookies: dict[str, str] = field(default_factory=dict)
    lang: str = "en"
    csrf: str = ""

    def request(self, method: str, path: str, form: dict[str, Any] | list[tuple[str, Any]] | None = None) -> Page:
        headers = {"Accept-Language": self.lang}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if method == "POST":
            pairs = list(form.items()) if isinstance(form, dict) else list(form or [])
            if self.csrf and not any(name == "csrf" for name, _ in pairs):
                pairs.append(("csrf", self.csrf))
            body = urllib.parse.urlencode(pairs, doseq=True).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        answer: Answer = self.api.request(method, "/console" + path, body=body, headers=headers)
        self._keep_cookies(answer)
        text = answer.raw.decode("utf-8", "replace")
        found = CSRF.search(text)
        if found:
            self.csrf = found.group(1)
        return Page(answer.status, answer.headers, text)

    def get(self, path: str) -> Page:
        return self.request("GET", path)

    def post(self, path: str, form: dict[str, Any] | list[tuple[str, Any]] | None = None) -> Page:
        return self.request("POST", path, form)

    def _keep_cookies(self, answer: Answer) -> None:
        raw = answer.headers.get("set-cookie")
        if not raw:
            return
        for cookie in raw.split("\n"):  # tests/client.py: each cookie a line
            name, _, rest = cookie.partition("=")
            value = rest.split(";", 1)[0]
            if "Max-Age=0" in cookie:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value

    def sign_in(self, *, accept: bool = False) -> Page:
        """Asks for a code, reads it from the outbox, signs in; answers the overview. Where the
        service asks which company (several, or a pending invitation): with `accept`, accepts the
        one pending invitation, else opens the first company offered."""
        self.post("/signin", {"email": self.email})
        done = self.post("/signin/code", {"email": self.email, "code": self.api.mailed_code(self.email)})
        assert done.status == 303, done.text()
        if done.location == "/console/signin/choose":
            choice = self.get("/signin/choose")
            pending = re.findall(r'action="/console/signin/accept/([^"]+)"', choice.html)
            active = re.findall(r'action="/console/signin/choose/([^"]+)"', choice.html)
            if accept:
                assert len(pending) == 1, choice.text()
            path = f"/signin/accept/{pending[0]}" if accept else f"/signin/choose/{active[0]}"
            assert self.post(path).status == 303
        page = self.get("/")
        assert page.status == 200, page.text()
        return page


def owner_of(tenant: Tenant) -> Person:
    """The person who signed `tenant` up, signed in to the console."""
    person = Person(tenant.api, tenant.email)
    person.sign_in()
    return person


def invite(owner: Person, email: str, role: str, *, name: str | None = None) -> Person:
    """A colleague invited by `owner` with `role`, who accepted the invitation and is signed in there."""
    page = owner.post("/members", {"email": email, "name": email.split("@")[0] if name is None else name, "role": role})
    assert page.status in (200, 303), page.text()
    person = Person(owner.api, email)
    person.sign_in(accept=True)
    return person
