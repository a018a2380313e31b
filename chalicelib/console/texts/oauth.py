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
    "oauth.not_yours": (
        "{scope}: nicht möglich, Ihre Rolle hat diese Berechtigung nicht",
        "{scope}: not possible, your role does not hold it",
    ),
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
        "Widerrufen beendet den Zugriff sofort.",
        "These applications received a key with your approval, which they renew hourly. "
        "Revoking ends their access at once.",
    ),
    "oauth.grants.none": ("Noch kein Agent ist per OAuth verbunden.", "No agent is connected by OAuth yet."),
    "oauth.grants.approved_by": ("Erlaubt von", "Approved by"),
    "oauth.grants.approved_at": ("Erlaubt am", "Approved on"),
    "oauth.grants.last_renewed": ("Zuletzt erneuert", "Last renewed"),
    "oauth.grants.revoke": ("Widerrufen", "Revoke"),
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
