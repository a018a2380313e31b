"""Console texts: the OAuth consent page (key -> (German, English))."""

TEXTS: dict[str, tuple[str, str]] = {
    "oauth.title": ("Zugriff für einen Agenten erlauben", "Allow an agent access"),
    "oauth.intro": (
        "{client} bittet um Zugriff auf die Daten Ihrer Hausverwaltung. Prüfen Sie, was erlaubt werden soll.",
        "{client} asks for access to your company's data. Check what it may do.",
    ),
    "oauth.client": ("Anwendung", "Application"),
    "oauth.unverified": ("Angabe der Anwendung, nicht geprüft", "as the application names itself, not verified"),
    "oauth.returns_to": ("Zurück an", "Returns to"),
    "oauth.lifetime": ("Gültigkeit", "Lifetime"),
    "oauth.lifetime.text": (
        "bis Sie den Zugriff widerrufen; ungenutzt endet er nach 30 Tagen",
        "until you revoke it; unused, it ends after 30 days",
    ),
    "oauth.agent": ("Name des Agenten", "Agent name"),
    "oauth.scopes": ("Berechtigungen", "Permissions"),
    "oauth.scopes.hint": (
        "Angekreuzt ist, worum die Anwendung bittet; nehmen Sie weg, was der Agent nicht braucht.",
        "Ticked is what the application asks for; untick what the agent does not need.",
    ),
    "oauth.wide": ("Alle Bereiche", "Every area"),
    "oauth.area.read": ("Lesen", "Read"),
    "oauth.area.write": ("Anlegen und ändern", "Create and change"),
    "oauth.risky": ("Nur mit Bedacht", "Only with care"),
    "oauth.risky.hint": (
        "Die Anwendung bittet auch darum. Es ist nie vorab angekreuzt: kreuzen Sie es nur an, wenn der Agent es "
        "wirklich braucht.",
        "The application asks for this too. It is never ticked for you: tick it only if the agent really needs it.",
    ),
    "oauth.warn.destructive": (
        "Achtung: {client} könnte dann Daten löschen, Kontakte zusammenführen und Änderungen zurücknehmen.",
        "Warning: {client} could then delete data, merge contacts and revert changes.",
    ),
    "oauth.warn.admin": (
        "Achtung: {client} könnte dann API-Schlüssel Ihrer Hausverwaltung anlegen und deaktivieren und deren "
        "Protokolle lesen – also sich oder anderen weiteren Zugriff geben.",
        "Warning: {client} could then create and disable your company's API keys and read their request logs – "
        "and so give itself or others further access.",
    ),
    "oauth.not_yours": (
        "Nicht möglich mit Ihrer Rolle: {scopes}",
        "Not possible with your role: {scopes}",
    ),
    # the one sentence of what the client will be able to do (console/pages/oauth_consent.summary)
    "oauth.can": ("{client} darf dann {what}.", "{client} will be able to {what}."),
    "oauth.can.read_all": ("alle Daten Ihrer Hausverwaltung lesen", "read all your company's data"),
    "oauth.can.read": ("{areas} lesen", "read {areas}"),
    "oauth.can.write_all": (
        "alle Daten Ihrer Hausverwaltung anlegen und ändern",
        "create and change all your company's data",
    ),
    "oauth.can.write": ("{areas} anlegen und ändern", "create and change {areas}"),
    "oauth.can.destructive": (
        "Daten löschen, zusammenführen und Änderungen zurücknehmen",
        "delete data, merge contacts and revert changes",
    ),
    "oauth.can.admin": ("die API-Schlüssel Ihrer Hausverwaltung verwalten", "manage your company's API keys"),
    "oauth.can.nothing": (
        "Nichts ist angekreuzt: wählen Sie mindestens eine Berechtigung.",
        "Nothing is ticked: choose at least one permission.",
    ),
    "oauth.and": ("und", "and"),
    "oauth.short.contacts": ("Kontakte", "contacts"),
    "oauth.short.contracts": ("Verträge", "contracts"),
    "oauth.short.units": ("Einheiten", "units"),
    "oauth.short.objects": ("Objekte", "objects"),
    "oauth.short.documents": ("Dokumente", "documents"),
    "oauth.short.processes": ("Vorgänge", "processes"),
    "oauth.short.responsibilities": ("Zuständigkeiten", "responsibilities"),
    "oauth.short.advisors": ("Beiräte und Berater", "advisors"),
    "oauth.short.signatories": ("Zeichnungsberechtigte", "signatories"),
    "oauth.short.callrecords": ("Telefonnotizen", "call records"),
    "oauth.short.accounting": ("Buchhaltung", "accounting"),
    "oauth.short.aliases": ("Aliase", "aliases"),
    "oauth.short.webhooks": ("Webhooks", "webhooks"),
    "oauth.short.uvi": ("UVI", "UVI"),
    "oauth.short.exports": ("Exporte", "exports"),
    "oauth.approve": ("Erlauben", "Allow"),
    "oauth.continue": ("Weiter", "Continue"),
    "oauth.deny": ("Ablehnen", "Deny"),
    "oauth.agent_taken": (
        "Ein Agent namens „{agent}“ hat schon einen Schlüssel. Geben Sie diesem Agenten einen eigenen Namen, "
        "z. B. mit dem Gerät oder Ihrem Namen.",
        "An agent named “{agent}” has a key already. Give this agent a name of its own, e.g. with the device or "
        "your name.",
    ),
    "oauth.grants.title": ("Per OAuth verbundene Agenten", "Agents connected by OAuth"),
    "oauth.grants.intro": (
        "Diese Anwendungen haben mit Ihrer Zustimmung einen Schlüssel erhalten, den sie stündlich erneuern. "
        "Widerrufen beendet den Zugriff sofort und deaktiviert alles, was die Anwendung damit angelegt hat: "
        "die API-Schlüssel, die ihr Schlüssel erstellt hat (und deren Schlüssel), und deren Webhooks. Der "
        "Zugriff endet auch, wenn die Person, die ihn erlaubt hat, das Team verlässt; eine neue Rolle schränkt "
        "ihn auf das ein, was diese Rolle erlaubt.",
        "These applications received a key with your approval, which they renew hourly. "
        "Revoking ends their access at once and disables everything the application made with it: the API "
        "keys its key created (and theirs) and their webhooks. Access also ends when the person who approved "
        "it leaves the team; a new role narrows it to what that role allows.",
    ),
    "oauth.grants.none": ("Noch kein Agent ist per OAuth verbunden.", "No agent is connected by OAuth yet."),
    "oauth.grants.approved_by": ("Erlaubt von", "Approved by"),
    "oauth.grants.approved_at": ("Erlaubt am", "Approved on"),
    "oauth.grants.last_renewed": ("Zuletzt erneuert", "Last renewed"),
    "oauth.grants.revoke": ("Widerrufen", "Revoke"),
    "oauth.grant_limit": (
        "Sie haben schon {count} Agenten per OAuth verbunden, so viele wie eine Person darf. Widerrufen Sie "
        "einen unter API-Schlüssel, dann verbinden Sie diesen.",
        "You have connected {count} agents by OAuth already, as many as one person may. Revoke one under "
        "API keys, then connect this one.",
    ),
    "oauth.grants.revoked": ("Der Zugriff ist widerrufen.", "Access revoked."),
    "oauth.expired": (
        "Diese Anfrage ist abgelaufen oder schon beantwortet. Starten Sie die Verbindung im Agenten neu.",
        "This request has expired or was answered already. Start connecting again in the agent.",
    ),
    "oauth.incomplete": (
        "Wählen Sie mindestens eine Berechtigung und geben Sie dem Agenten einen Namen.",
        "Choose at least one permission and give the agent a name.",
    ),
}
