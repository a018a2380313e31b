"""The local outbox (make serve only): the mail the service would have sent. Served only where
no SES sender is configured, and then without a session (it is the developer's mailbox)."""

from __future__ import annotations

from chalicelib import config, mail
from chalicelib.console import times
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page


@page("GET", "/outbox", public=True)
def outbox(request: Request) -> Answer:
    if config.mail_sender() or config.stage() != "local":
        return render(request, "error.html", 404, errors=[translate(request.lang, "error.not_found")])
    shown = [{"message": message, "sent": times.when(request, message.sent_at)} for message in mail.outbox(limit=50)]
    return render(request, "outbox.html", messages=shown)
