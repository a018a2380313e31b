"""Console texts: webhooks pages (key -> (German, English)).

Entity types, actions, delivery states and failure reasons have a key each
(`webhooks.entity.<type>`, `webhooks.action.<action>`, `webhooks.state.<status>`,
`webhooks.reason.<reason>`); the page falls back to the technical word for one that is not
listed here (the event catalogue grows with the service)."""

TEXTS: dict[str, tuple[str, str]] = {
    # list
    "webhooks.title": ("Webhooks", "Webhooks"),
    "webhooks.intro": (
        "Ein Webhook meldet Änderungen an Ihren Daten sofort an ein anderes System, zum Beispiel an Ihre "
        "Buchhaltung oder Ihr Ticketsystem. Jede Meldung ist signiert und wird bei Fehlern wiederholt.",
        "A webhook reports changes to your data to another system right away, for example to your accounting "
        "or ticket system. Every event is signed and retried when delivery fails.",
    ),
    "webhooks.new": ("Neuer Webhook", "New webhook"),
    "webhooks.empty": ("Es sind noch keine Webhooks eingerichtet.", "No webhooks have been set up yet."),
    "webhooks.col.name": ("Name", "Name"),
    "webhooks.col.url": ("Empfänger-Adresse", "Receiver URL"),
    "webhooks.col.events": ("Ereignisse", "Events"),
    "webhooks.col.auth": ("Authorization-Header", "Authorization header"),
    "webhooks.events_one": ("1 Ereignistyp", "1 event type"),
    "webhooks.events_count": ("{count} Ereignistypen", "{count} event types"),
    "webhooks.auth_set": ("hinterlegt", "set"),
    "webhooks.auth_unset": ("keiner", "none"),
    "webhooks.enabled": ("Aktiv", "Active"),
    "webhooks.disabled": ("Deaktiviert", "Disabled"),
    "webhooks.deleted_notice": (
        "Der Webhook {id} wurde gelöscht. Er erhält keine Ereignisse mehr.",
        "Webhook {id} was deleted. It no longer receives events.",
    ),
    "webhooks.restore": ("Wiederherstellen", "Restore"),
    "webhooks.not_found": (
        "Diesen Webhook oder diese Zustellung gibt es nicht (mehr).",
        "There is no such webhook or delivery (any more).",
    ),
    # form
    "webhooks.form.title": ("Neuen Webhook anlegen", "Create a webhook"),
    "webhooks.form.name": ("Name", "Name"),
    "webhooks.form.name_hint": (
        "Wofür ist der Empfänger da? Zum Beispiel „Buchhaltung“.",
        "What receives the events? For example “Accounting”.",
    ),
    "webhooks.form.url": ("Empfänger-Adresse (URL)", "Receiver URL"),
    "webhooks.form.url_hint": (
        "Eine https-Adresse im Internet (Port 443 oder 8443), z. B. https://example.org/webhooks.",
        "A public https address (port 443 or 8443), e.g. https://example.org/webhooks.",
    ),
    "webhooks.form.events": ("Ereignisse", "Events"),
    "webhooks.form.events_hint": (
        "Wählen Sie je Datenart aus, welche Änderungen gemeldet werden.",
        "Choose, for each kind of data, which changes are reported.",
    ),
    "webhooks.form.all": ("Alle Ereignisse", "All events"),
    "webhooks.form.all_label": (
        "Alle Ereignisse melden, auch künftig neu hinzukommende",
        "Report every event, including event types added later",
    ),
    "webhooks.form.auth": ("Authorization-Header (optional)", "Authorization header (optional)"),
    "webhooks.form.auth_hint": (
        "Wird mit jeder Zustellung als Authorization-Header gesendet, z. B. „Bearer abc123“. Der Wert wird "
        "nach dem Speichern nie wieder angezeigt.",
        "Sent as the Authorization header with every delivery, e.g. “Bearer abc123”. The value is never "
        "shown again after saving.",
    ),
    "webhooks.form.auth_again": (
        "Aus Sicherheitsgründen wurde der Authorization-Header nicht wieder eingesetzt. Bitte geben Sie ihn "
        "erneut ein.",
        "For security the authorization header was not filled in again. Please enter it once more.",
    ),
    "webhooks.form.description": ("Notizen (optional)", "Notes (optional)"),
    "webhooks.form.submit": ("Webhook anlegen", "Create webhook"),
    # created
    "webhooks.created.title": ("Webhook angelegt", "Webhook created"),
    "webhooks.created.intro": (
        "Mit diesem Signaturschlüssel prüft der Empfänger, dass die Meldungen von uns stammen. Er wird nur "
        "jetzt angezeigt: Bitte kopieren Sie ihn und hinterlegen Sie ihn beim Empfänger.",
        "The receiver checks with this signing secret that the events come from us. It is shown only now: "
        "please copy it and store it at the receiver.",
    ),
    "webhooks.created.secret": ("Signaturschlüssel", "Signing secret"),
    "webhooks.created.continue": ("Weiter zum Webhook", "Go to the webhook"),
    # detail
    "webhooks.detail.url": ("Empfänger-Adresse", "Receiver URL"),
    "webhooks.detail.status": ("Status", "Status"),
    "webhooks.detail.disabled_since": ("Deaktiviert seit {at}", "Disabled since {at}"),
    "webhooks.detail.disabled_reason": ("Grund: {reason}", "Reason: {reason}"),
    "webhooks.detail.events": ("Ereignisse", "Events"),
    "webhooks.detail.all_events": ("Alle Ereignisse", "All events"),
    "webhooks.detail.auth": ("Authorization-Header", "Authorization header"),
    "webhooks.detail.auth_set": (
        "hinterlegt (der Wert wird nicht angezeigt)",
        "set (the value is not shown)",
    ),
    "webhooks.detail.description": ("Notizen", "Notes"),
    "webhooks.detail.id": ("Kennung", "Id"),
    "webhooks.detail.updated": ("Zuletzt geändert", "Last changed"),
    "webhooks.detail.actions": ("Aktionen", "Actions"),
    "webhooks.detail.back": ("Alle Webhooks", "All webhooks"),
    "webhooks.test": ("Testereignis senden", "Send a test event"),
    "webhooks.enable": ("Aktivieren", "Enable"),
    "webhooks.disable": ("Deaktivieren", "Disable"),
    "webhooks.delete": ("Löschen", "Delete"),
    "webhooks.delete_confirm": (
        "Webhook „{name}“ löschen? Er erhält danach keine Ereignisse mehr.",
        "Delete webhook “{name}”? It will no longer receive events.",
    ),
    "webhooks.disable_confirm": (
        "Webhook „{name}“ deaktivieren? Bis zur erneuten Aktivierung werden keine Ereignisse zugestellt.",
        "Disable webhook “{name}”? No events are delivered until it is enabled again.",
    ),
    # delivery log
    "webhooks.log.title": ("Zustellprotokoll", "Delivery log"),
    "webhooks.log.empty": ("Noch keine Zustellungen.", "No deliveries yet."),
    "webhooks.log.refresh": ("Aktualisieren", "Refresh"),
    "webhooks.log.event": ("Ereignis", "Event"),
    "webhooks.log.attempts": ("Versuche", "Attempts"),
    "webhooks.log.next": ("Nächster Versuch", "Next retry"),
    "webhooks.log.last": ("Letzter Versuch", "Last attempt"),
    "webhooks.log.code": ("Antwortcode", "Response code"),
    "webhooks.log.reason": ("Fehlergrund", "Reason"),
    "webhooks.log.retry": ("Erneut senden", "Retry"),
    "webhooks.log.retry_label": ("Erneut senden: {id}", "Retry: {id}"),
    "webhooks.state.pending": ("ausstehend", "pending"),
    "webhooks.state.delivered": ("zugestellt", "delivered"),
    "webhooks.state.failed": ("aufgegeben", "failed"),
    # notices after a change
    "webhooks.done.enabled": ("Der Webhook ist aktiv.", "The webhook is enabled."),
    "webhooks.done.disabled": (
        "Der Webhook ist deaktiviert. Bis zur erneuten Aktivierung werden keine Ereignisse zugestellt.",
        "The webhook is disabled. No events are delivered until it is enabled again.",
    ),
    "webhooks.done.restored": ("Der Webhook wurde wiederhergestellt.", "The webhook was restored."),
    "webhooks.done.retried": (
        "Die Zustellung wird gleich erneut versucht.",
        "The delivery will be tried again right away.",
    ),
    "webhooks.tested.ok": (
        "Test erfolgreich: Der Empfänger hat mit {code} geantwortet ({ms} ms).",
        "Test succeeded: the receiver answered {code} ({ms} ms).",
    ),
    "webhooks.tested.failed": ("Test fehlgeschlagen: {reason}.", "Test failed: {reason}."),
    "webhooks.tested.failed_code": (
        "Test fehlgeschlagen: {reason} (Antwortcode {code}).",
        "Test failed: {reason} (response code {code}).",
    ),
    # actions of an event
    "webhooks.action.created": ("angelegt", "created"),
    "webhooks.action.updated": ("geändert", "updated"),
    "webhooks.action.deleted": ("gelöscht", "deleted"),
    "webhooks.action.restored": ("wiederhergestellt", "restored"),
    # entity types (the event catalogue's groups)
    "webhooks.entity.advisor": ("Beiräte", "Advisory board members"),
    "webhooks.entity.bankAccountInfo": ("Bankverbindungen", "Bank accounts"),
    "webhooks.entity.bankAccountUse": ("Kontoverwendungen", "Bank account uses"),
    "webhooks.entity.callRecord": ("Telefonnotizen", "Call records"),
    "webhooks.entity.contact": ("Kontakte", "Contacts"),
    "webhooks.entity.contract": ("Verträge", "Contracts"),
    "webhooks.entity.directDebitMandate": ("Lastschriftmandate", "Direct debit mandates"),
    "webhooks.entity.document": ("Dokumente", "Documents"),
    "webhooks.entity.inboundInvoice": ("Eingangsrechnungen", "Inbound invoices"),
    "webhooks.entity.object": ("Objekte", "Properties"),
    "webhooks.entity.objectAddress": ("Objektadressen", "Property addresses"),
    "webhooks.entity.objectGroup": ("Objektgruppen", "Property groups"),
    "webhooks.entity.post": ("Aushänge und Mitteilungen", "Posts"),
    "webhooks.entity.process": ("Vorgänge", "Processes"),
    "webhooks.entity.processUpdate": ("Vorgangseinträge", "Process updates"),
    "webhooks.entity.responsibility": ("Zuständigkeiten", "Responsibilities"),
    "webhooks.entity.signatory": ("Unterzeichner", "Signatories"),
    "webhooks.entity.unit": ("Einheiten", "Units"),
    "webhooks.entity.unitGroup": ("Einheitengruppen", "Unit groups"),
    "webhooks.entity.uviDocument": ("UVI-Dokumente", "UVI documents"),
    "webhooks.entity.webhook": ("Webhooks", "Webhooks"),
    # why a delivery or a test failed (the coarse reasons of webhooks.test and the delivery log)
    "webhooks.reason.invalid_url": ("ungültige Adresse", "invalid URL"),
    "webhooks.reason.dns_error": ("der Servername ist unbekannt", "the server name is unknown"),
    "webhooks.reason.dns_timeout": (
        "der Servername konnte nicht rechtzeitig aufgelöst werden",
        "the server name could not be resolved in time",
    ),
    "webhooks.reason.blocked_address": (
        "die Adresse liegt in einem privaten oder reservierten Netz",
        "the address is in a private or reserved network",
    ),
    "webhooks.reason.connection_refused": ("die Verbindung wurde abgelehnt", "the connection was refused"),
    "webhooks.reason.connection_failed": ("keine Verbindung zum Empfänger", "could not connect to the receiver"),
    "webhooks.reason.connection_closed": (
        "der Empfänger hat die Verbindung ohne Antwort geschlossen",
        "the receiver closed the connection without answering",
    ),
    "webhooks.reason.timeout": (
        "der Empfänger hat nicht rechtzeitig geantwortet",
        "the receiver did not answer in time",
    ),
    "webhooks.reason.tls_error": (
        "die verschlüsselte Verbindung (TLS-Zertifikat) ist fehlgeschlagen",
        "the secure connection (TLS certificate) failed",
    ),
    "webhooks.reason.invalid_response": ("die Antwort war ungültig", "the answer was invalid"),
    "webhooks.reason.redirect": (
        "der Empfänger hat umgeleitet (Umleitungen werden nicht verfolgt)",
        "the receiver redirected (redirects are not followed)",
    ),
    "webhooks.reason.http_4xx": ("der Empfänger hat abgelehnt", "the receiver refused"),
    "webhooks.reason.http_410": (
        "der Empfänger meldet die Adresse als aufgegeben (410)",
        "the receiver reports the address as gone (410)",
    ),
    "webhooks.reason.http_429": ("der Empfänger ist überlastet", "the receiver is overloaded"),
    "webhooks.reason.http_5xx": ("Fehler beim Empfänger", "an error at the receiver"),
    "webhooks.reason.webhook_disabled": ("der Webhook ist deaktiviert", "the webhook is disabled"),
    "webhooks.reason.internal_error": ("ein interner Fehler", "an internal error"),
    # why a receiver URL is refused (webhooks.create's field error, in the words of events/targets.py)
    "webhooks.url.whitespace": (
        "darf keine Leerzeichen oder Steuerzeichen enthalten",
        "must not contain whitespace or control characters",
    ),
    "webhooks.url.invalid": ("ist keine gültige Adresse", "is not a valid URL"),
    "webhooks.url.absolute": (
        "muss eine vollständige https-Adresse sein, z. B. https://example.org/webhooks",
        "must be a complete https URL, e.g. https://example.org/webhooks",
    ),
    "webhooks.url.credentials": (
        "darf keine Zugangsdaten enthalten; nutzen Sie dafür den Authorization-Header",
        "must not contain credentials; use the authorization header for them",
    ),
    "webhooks.url.private": (
        "private, interne und reservierte Adressen sind nicht erlaubt",
        "private, internal and reserved addresses are not allowed",
    ),
    "webhooks.url.https": ("muss mit https:// beginnen", "must start with https://"),
    "webhooks.url.loopback": (
        "Adressen auf dem eigenen Rechner (localhost) sind nicht erlaubt",
        "addresses on this machine (localhost) are not allowed",
    ),
    # health badge (the recent success rate)
    "webhooks.col.health": ("Zustellquote", "Health"),
    "webhooks.health.good": ("{rate} % zugestellt", "{rate}% delivered"),
    "webhooks.health.warning": ("{rate} % zugestellt", "{rate}% delivered"),
    "webhooks.health.bad": ("{rate} % zugestellt", "{rate}% delivered"),
    "webhooks.health.none": ("noch keine Zustellung", "no deliveries yet"),
    "webhooks.health.title": (
        "{delivered} von {window} der letzten Zustellungen angekommen",
        "{delivered} of the last {window} deliveries arrived",
    ),
    # edit
    "webhooks.edit": ("Bearbeiten", "Edit"),
    "webhooks.edit.title": ("Webhook „{name}“ bearbeiten", "Edit webhook “{name}”"),
    "webhooks.edit.back": ("Zurück zu „{name}“", "Back to “{name}”"),
    "webhooks.edit.submit": ("Änderungen speichern", "Save changes"),
    "webhooks.edit.auth_hint": (
        "Ein Header ist hinterlegt; er wird nicht angezeigt. Leer lassen, um ihn zu behalten, oder einen "
        "neuen Wert eingeben, um ihn zu ersetzen.",
        "A header is set; it is not shown. Leave this empty to keep it, or enter a new value to replace it.",
    ),
    "webhooks.edit.auth_remove": ("Authorization-Header entfernen", "Remove the authorization header"),
    "webhooks.done.edited": ("Die Änderungen wurden gespeichert.", "The changes were saved."),
    # rotate the signing secret
    "webhooks.rotate": ("Signaturschlüssel erneuern", "Rotate signing secret"),
    "webhooks.rotate_confirm": (
        "Neuen Signaturschlüssel für „{name}“ erzeugen? Der bisherige signiert noch {hours} Stunden mit, "
        "danach nur noch der neue.",
        "Create a new signing secret for “{name}”? The current one keeps signing for {hours} hours, then "
        "only the new one does.",
    ),
    "webhooks.rotated.title": ("Neuer Signaturschlüssel", "New signing secret"),
    "webhooks.rotated.intro": (
        "Bis {until} trägt jede Zustellung zwei Signaturen: mit dem neuen und mit dem bisherigen Schlüssel. "
        "Hinterlegen Sie den neuen Schlüssel bis dahin beim Empfänger. Er wird nur jetzt angezeigt.",
        "Until {until} every delivery carries two signatures: one by the new secret and one by the old. "
        "Store the new secret at the receiver before then. It is shown only now.",
    ),
    "webhooks.rotated.secret": ("Neuer Signaturschlüssel", "New signing secret"),
    "webhooks.detail.rotated": ("Schlüssel erneuert", "Secret rotated"),
    "webhooks.detail.overlap": (
        "Der bisherige Schlüssel signiert noch bis {until} mit.",
        "The previous secret also signs until {until}.",
    ),
    # the log's filter and details
    "webhooks.log.filter": ("Protokoll filtern", "Filter the log"),
    "webhooks.log.any_status": ("alle", "all"),
    "webhooks.log.any_event": ("alle Ereignisse", "all events"),
    "webhooks.log.apply": ("Filtern", "Filter"),
    "webhooks.log.clear": ("Filter zurücksetzen", "Clear filters"),
    "webhooks.log.empty_filtered": (
        "Keine Zustellungen zu diesem Filter.",
        "No deliveries match this filter.",
    ),
    "webhooks.log.test": ("Test", "Test"),
    "webhooks.log.details": ("Details", "Details"),
    "webhooks.log.attempt": ("Versuch {number}", "Attempt {number}"),
    "webhooks.log.response": (
        "Antwort des Empfängers (erste 2 KB)",
        "The receiver's answer (first 2 KB)",
    ),
    "webhooks.log.no_response": ("Keine Antwort erhalten.", "No answer body received."),
    "webhooks.log.request": ("Gesendeter Inhalt", "Body sent"),
    "webhooks.log.resend": ("Erneut senden", "Resend"),
    "webhooks.log.resend_label": ("Test erneut senden: {id}", "Resend test: {id}"),
    "webhooks.state.superseded": ("ersetzt", "superseded"),
    "webhooks.events.none": ("Bitte wählen Sie mindestens ein Ereignis.", "Please choose at least one event."),
}
