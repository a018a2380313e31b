"""The words of the sandbox pages (pages/sandboxes.py) and the banner every page of a sandbox shows."""

TEXTS: dict[str, tuple[str, str]] = {
    "nav.sandboxes": ("Sandbox", "Sandbox"),
    "sandbox.banner": (
        "Sandbox: erfundene Daten zum Ausprobieren. Nichts hier berührt echte Daten; Schlüssel beginnen mit "
        "pm_sandbox_.",
        "Sandbox: made-up data to try things on. Nothing here touches live data; keys start with pm_sandbox_.",
    ),
    "sandbox.title": ("Sandboxes", "Sandboxes"),
    "sandbox.intro": (
        "Eine Sandbox ist eine eigene Firma mit erfundenen, aber echt wirkenden Daten einer Hausverwaltung: "
        "5 Objekte, 200 Einheiten, Eigentümer, Mieter, Verträge, Bankverbindungen, Vorgänge und Dokumente. "
        "Probieren Sie dort Agenten, Webhooks und Integrationen aus, ohne Ihre echten Daten zu berühren. "
        "Eine Sandbox gilt, solange Ihre Firma Zugang hat, und kann auf ihren Ausgangsstand zurückgesetzt "
        "werden. Eine Firma hat bis zu {cap} Sandboxes; sie zählen gegen die Limits der Firma.",
        "A sandbox is a company of its own with made-up but real-looking data of a property manager: 5 "
        "objects, 200 units, owners, tenants, contracts, bank accounts, processes and documents. Try agents, "
        "webhooks and integrations there without touching your live data. A sandbox lasts as long as your "
        "company's access and can be reset to its starting point. A company has up to {cap} sandboxes; they "
        "count against the company's limits.",
    ),
    "sandbox.none": ("Noch keine Sandbox.", "No sandbox yet."),
    "sandbox.name": ("Name", "Name"),
    "sandbox.state": ("Stand", "State"),
    "sandbox.created": ("Angelegt", "Created"),
    "sandbox.actions": ("Aktionen", "Actions"),
    "sandbox.state.planting": ("wird mit Beispieldaten gefüllt …", "being filled with demo data …"),
    "sandbox.state.resetting": ("wird zurückgesetzt …", "being reset …"),
    "sandbox.state.ready": ("bereit", "ready"),
    "sandbox.state.failed": ("fehlgeschlagen", "failed"),
    "sandbox.open": ("Öffnen", "Open"),
    "sandbox.reset": ("Zurücksetzen", "Reset"),
    "sandbox.reset.confirm": (
        "Sandbox zurücksetzen? Alle Änderungen an ihren Daten gehen verloren; Schlüssel, Team und Webhooks bleiben.",
        "Reset the sandbox? Every change of its data is lost; keys, team and webhooks stay.",
    ),
    "sandbox.delete": ("Löschen", "Delete"),
    "sandbox.delete.confirm": (
        "Sandbox endgültig löschen? Ihre Schlüssel hören sofort auf zu funktionieren.",
        "Delete the sandbox for good? Its keys stop working at once.",
    ),
    "sandbox.new.title": ("Neue Sandbox", "New sandbox"),
    "sandbox.new.name": ("Name der Sandbox-Firma", "Name of the sandbox company"),
    "sandbox.new.seed": ("Daten", "Data"),
    "sandbox.new.seed.demo": ("Beispiel-Hausverwaltung", "Demo property manager"),
    "sandbox.new.seed.empty": ("leer", "empty"),
    "sandbox.new.submit": ("Sandbox anlegen", "Create sandbox"),
    "sandbox.new.default_name": ("{company} (Sandbox)", "{company} (sandbox)"),
    "sandbox.error.name": ("Bitte einen Namen mit 1 bis 200 Zeichen angeben.", "Give a name of 1 to 200 characters."),
    "sandbox.error.limit": (
        "Ihre Firma hat bereits {held} Sandboxes, so viele wie erlaubt ({cap}). Löschen Sie eine, die Sie nicht "
        "mehr brauchen, und legen Sie dann die neue an.",
        "Your company has {held} sandboxes already, as many as it may ({cap}). Delete one it no longer needs, "
        "then create the new one.",
    ),
    "sandbox.error.changes": (
        "Ihre Firma hat heute so viele Sandboxes angelegt und zurückgesetzt wie erlaubt. Versuchen Sie es in "
        "{hours} Stunde(n) wieder.",
        "Your company has created and reset as many sandboxes today as it may. Try again in {hours} hour(s).",
    ),
    "sandbox.done.created": (
        "Die Sandbox ist angelegt und wird mit Beispieldaten gefüllt; das dauert etwa eine Minute.",
        "The sandbox is created and being filled with demo data; this takes about a minute.",
    ),
    "sandbox.done.reset": (
        "Die Sandbox wird zurückgesetzt; das dauert weniger als eine Minute.",
        "The sandbox is being reset; this takes less than a minute.",
    ),
    "sandbox.done.deleted": ("Die Sandbox ist gelöscht.", "The sandbox is deleted."),
    "sandbox.inside": (
        "Sie sind in der Sandbox „{company}“. Zurücksetzen und Löschen finden Sie auf der Sandbox-Seite Ihrer "
        "echten Firma.",
        "You are in the sandbox “{company}”. Reset and delete it from the sandbox page of your live company.",
    ),
    "sandbox.back": ("Zurück zur echten Firma", "Back to the live company"),
}
