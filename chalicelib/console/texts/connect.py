"""Console texts: the page that connects an agent (key -> (German, English))."""

TEXTS: dict[str, tuple[str, str]] = {
    "connect.title": ("Einen Agenten verbinden", "Connect an agent"),
    "connect.intro": (
        "Ein Agent (Claude, Cursor, ein eigenes Programm) arbeitet über REST oder MCP mit Ihren Daten. "
        "Er braucht die Adresse und einen API-Schlüssel – oder er verbindet sich per OAuth und Sie erlauben es hier.",
        "An agent (Claude, Cursor, a program of your own) works with your data over REST or MCP. "
        "It needs the address and an API key – or it connects by OAuth and you allow it here.",
    ),
    "connect.addresses": ("Adressen", "Addresses"),
    "connect.rest": ("REST-Basisadresse", "REST base URL"),
    "connect.rest.hint": (
        "Abfragen: GET …/query/<Name>, Befehle: POST …/command/<Name>, jeweils mit "
        "„Authorization: Bearer <Schlüssel>“.",
        "Queries: GET …/query/<name>, commands: POST …/command/<name>, each with “Authorization: Bearer <key>”.",
    ),
    "connect.mcp": ("MCP-Adresse (Streamable HTTP)", "MCP URL (Streamable HTTP)"),
    "connect.mcp.no_dots": (
        "Für Agenten, die in Werkzeugnamen keine Punkte annehmen (nur Buchstaben, Ziffern, _ und -): dieselben "
        "Werkzeuge als meta_tools_search usw. unter",
        "For agents that accept no dots in tool names (letters, digits, _ and - only): the same tools as "
        "meta_tools_search and so on at",
    ),
    "connect.docs": ("Dokumentation", "Documentation"),
    "connect.docs.openapi": (
        "die OpenAPI-Beschreibung genau der Vorgänge, die der Schlüssel darf, jeder mit seiner "
        "vollständigen Dokumentation (mit dem Schlüssel abrufen).",
        "the OpenAPI description of exactly the operations the key may use, each with its full "
        "documentation (fetch it with the key).",
    ),
    "connect.docs.mcp": (
        "Über MCP findet der Agent die Vorgänge selbst: meta.tools.search und meta.tool.describe; "
        "meta.docs.search durchsucht dieselbe Dokumentation.",
        "Over MCP the agent finds the operations itself: meta.tools.search and meta.tool.describe; "
        "meta.docs.search searches the same documentation.",
    ),
    "connect.oauth": ("Per OAuth verbinden (ohne Schlüssel)", "Connect by OAuth (no key)"),
    "connect.oauth.text": (
        "Agenten-Programme mit Konnektoren (z. B. Claude Desktops „Benutzerdefinierten Konnektor hinzufügen“) "
        "brauchen nur die MCP-Adresse. Sie finden den Autorisierungsserver selbst, registrieren sich und "
        "schicken Sie hierher: angemeldet sehen Sie die Anwendung, bestätigen den Namen des Agenten, schränken "
        "die Berechtigungen ein und erlauben oder lehnen ab. Erlaubte Zugänge stehen unter API-Schlüssel, "
        "„Per OAuth verbundene Agenten“, und lassen sich dort entziehen.",
        "Agent hosts with connectors (e.g. Claude Desktop's “Add custom connector”) need only the MCP URL. "
        "They find the authorization server themselves, register and send you here: signed in, you see the "
        "application, confirm the agent's name, narrow the permissions and allow or deny. Allowed access is "
        "listed under API keys, “Agents connected by OAuth”, where you can revoke it.",
    ),
    "connect.oauth.metadata": ("Metadaten der geschützten Ressource", "Protected resource metadata"),
    "connect.oauth.server": ("Metadaten des Autorisierungsservers", "Authorization server metadata"),
    "connect.key": ("Mit einem API-Schlüssel verbinden", "Connect with an API key"),
    "connect.choose": ("Schlüssel", "Key"),
    "connect.choose.none": ("– keiner gewählt –", "– none chosen –"),
    "connect.choose.submit": ("Für diesen Schlüssel zeigen", "Show for this key"),
    "connect.choose.hint": (
        "Das Geheimnis eines Schlüssels wird nur beim Anlegen gezeigt und nicht gespeichert; die Beispiele "
        "nennen deshalb nur seinen Anfang. Setzen Sie den Schlüssel selbst ein.",
        "A key's secret is shown only when it is created and is not kept, so the snippets name only its "
        "beginning. Put the key in yourself.",
    ),
    "connect.no_keys": ("Es gibt noch keinen aktiven API-Schlüssel.", "There is no active API key yet."),
    "connect.new_key": ("Neuen Schlüssel anlegen", "Create a new key"),
    "connect.unknown_key": (
        "Diesen Schlüssel gibt es nicht (mehr); die Beispiele zeigen einen allgemeinen Platzhalter.",
        "There is no such key (any more); the snippets show a general placeholder.",
    ),
    "connect.chosen": (
        "Beispiele für den Schlüssel von {agent} ({prefix}…).",
        "Snippets for {agent}'s key ({prefix}…).",
    ),
    "connect.placeholder.key": ("<Ihr Schlüssel {prefix}…>", "<your key {prefix}…>"),
    "connect.placeholder.any": ("<Ihr API-Schlüssel>", "<your API key>"),
    "connect.snippets": ("Konfiguration", "Configuration"),
    "connect.snippets.secret": (
        "Diese Beispiele enthalten den neuen Schlüssel: Kopieren Sie sie jetzt, er wird nicht wieder gezeigt.",
        "These snippets hold the new key: copy them now, it is not shown again.",
    ),
    "connect.snippet.label": ("Konfiguration für {host}", "Configuration for {host}"),
    "connect.where.claude_code": (
        "Im Terminal ausführen.",
        "Run it in a terminal.",
    ),
    "connect.where.claude_desktop": (
        "In claude_desktop_config.json (Einstellungen → Entwickler → Konfiguration bearbeiten); die Datei startet "
        "lokale Programme, daher über die Brücke mcp-remote (Node.js). Ohne Schlüssel: als benutzerdefinierten "
        "Konnektor nur die MCP-Adresse eintragen (OAuth).",
        "In claude_desktop_config.json (Settings → Developer → Edit Config); the file starts local programs, hence "
        "through the mcp-remote bridge (Node.js). Without a key: add the MCP URL alone as a custom connector (OAuth).",
    ),
    "connect.where.cursor": (
        "In ~/.cursor/mcp.json (alle Projekte) oder .cursor/mcp.json (ein Projekt).",
        "In ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project).",
    ),
    "connect.where.vscode": (
        "In .vscode/mcp.json des Arbeitsbereichs (oder „MCP: Open User Configuration“).",
        "In the workspace's .vscode/mcp.json (or “MCP: Open User Configuration”).",
    ),
    "connect.test": ("Schlüssel testen", "Test a key"),
    "connect.test.intro": (
        "Fügen Sie einen Schlüssel ein: die Konsole ruft damit „info“ auf und zeigt, für wen er arbeitet. "
        "Der Schlüssel wird dabei nicht gespeichert.",
        "Paste a key: the console calls “info” with it and shows whom it works for. The key is not kept.",
    ),
    "connect.test.key": ("API-Schlüssel (pm_…)", "API key (pm_…)"),
    "connect.test.submit": ("„info“ aufrufen", "Call “info”"),
    "connect.test.ok": (
        "Der Schlüssel funktioniert: Agent {agent}, Unternehmen {company}, Berechtigungen {scopes}.",
        "The key works: agent {agent}, company {company}, permissions {scopes}.",
    ),
    "connect.test.elsewhere": (
        "Achtung: Dieser Schlüssel gehört zu einem anderen Unternehmen als dem, in dem Sie angemeldet sind.",
        "Note: this key belongs to another company than the one you are signed in to.",
    ),
    "connect.test.failed": ("Der Test ist fehlgeschlagen.", "The test failed."),
    "connect.test.missing": ("Bitte fügen Sie einen Schlüssel ein.", "Please paste a key."),
    "connect.test.invalid": (
        "Das ist kein gültiger API-Schlüssel (unbekannt, oder Format bzw. Prüfsumme stimmen nicht).",
        "This is not a valid API key (unknown, or its format or checksum is wrong).",
    ),
    "connect.test.disabled": ("Dieser Schlüssel ist deaktiviert.", "This key has been disabled."),
    "connect.test.expired": ("Dieser Schlüssel ist abgelaufen.", "This key has expired."),
    "connect.overview_link": ("Einen Agenten verbinden", "Connect an agent"),
}
