"""Console texts: keys pages (key -> (German, English))."""

from chalicelib.config import DEFAULT_KEY_DAYS, MAX_KEY_DAYS, REQUEST_LOG_DAYS

TEXTS: dict[str, tuple[str, str]] = {
    # the list
    "keys.title": ("API-Schlüssel", "API keys"),
    "keys.intro": (
        "Mit einem API-Schlüssel greift ein Programm (ein „Agent“, z. B. Ihr Buchhaltungs-Bot) auf Ihre Daten zu. "
        "Jeder Agent hat genau einen Schlüssel; nur während eines Schlüsseltauschs sind es kurz zwei.",
        "An API key lets a program (an “agent”, e.g. your accounting bot) work with your data. "
        "Each agent has exactly one key; only while a key is being rotated does it briefly have two.",
    ),
    "keys.new": ("Neuen Schlüssel anlegen", "Create a new key"),
    "keys.none": ("Es gibt noch keine API-Schlüssel.", "There are no API keys yet."),
    "keys.agent": ("Agent", "Agent"),
    "keys.binding": ("Gebunden an", "Bound to"),
    "keys.scopes": ("Berechtigungen", "Permissions"),
    "keys.created": ("Angelegt", "Created"),
    "keys.objects": ("Objekte", "Objects"),
    "keys.objects.all": ("Jedes Objekt", "Every object"),
    "keys.last_used": ("Zuletzt benutzt", "Last used"),
    "keys.expires": ("Läuft ab", "Expires"),
    "keys.status": ("Status", "Status"),
    "keys.prefix": ("Schlüsselanfang", "Key begins with"),
    "keys.never": ("noch nie", "never"),
    "keys.no_expiry": ("kein Ablaufdatum", "no expiry"),
    "keys.state.active": ("aktiv", "active"),
    "keys.state.disabled": ("deaktiviert", "disabled"),
    "keys.state.expired": ("abgelaufen", "expired"),
    "keys.binding.company": ("Unternehmen", "Company"),
    "keys.binding.person": ("Person: {contact}", "Person: {contact}"),
    # scopes in plain words: a short name (lists) and what it allows (the form, the detail page)
    "keys.scope.read": ("Lesen (alle Bereiche)", "Read (every area)"),
    "keys.scope.read.help": (
        "Alle Daten ansehen (Objekte, Einheiten, Kontakte, Verträge, Dokumente, Bankdaten …), aber nichts ändern.",
        "See all data (objects, units, contacts, contracts, documents, bank data …) but change nothing.",
    ),
    "keys.scope.write": ("Schreiben (alle Bereiche)", "Write (every area)"),
    "keys.scope.write.help": (
        "Daten in allen Bereichen anlegen und ändern. Löschen erfordert zusätzlich „Löschen“.",
        "Create and change data in every area. Deleting also needs “Delete”.",
    ),
    "keys.scope.destructive": ("Löschen", "Delete"),
    "keys.scope.destructive.help": (
        "Daten löschen und wiederherstellen, Kontakte zusammenführen, Änderungen zurücknehmen und "
        "Schlüssel deaktivieren – nur zusammen mit der passenden Schreib- oder Verwaltungsberechtigung.",
        "Delete and restore data, merge contacts, revert changes and disable keys – only together with the "
        "matching write or administration permission.",
    ),
    "keys.scope.admin": ("Verwaltung", "Administration"),
    "keys.scope.admin.help": (
        "API-Schlüssel anlegen, auflisten und deaktivieren und deren Protokolle einsehen. "
        "Nur für Agenten, die selbst Schlüssel verwalten sollen.",
        "Create, list and disable API keys and see their request logs. "
        "Only for agents that are meant to manage keys themselves.",
    ),
    "keys.scope.area.write": ("Schreiben: {area}", "Write: {area}"),
    "keys.scope.area.write.help": (
        "Nur in diesem Bereich anlegen und ändern: {area}.",
        "Create and change in this area only: {area}.",
    ),
    "keys.scope.area.read": ("Lesen: {area}", "Read: {area}"),
    "keys.scope.area.read.help": (
        "Nur die Daten dieses Bereichs ansehen: {area}.",
        "See the data of this area only: {area}.",
    ),
    "keys.areas.legend.write": (
        "Oder nur in einzelnen Bereichen schreiben",
        "Or write in single areas only",
    ),
    "keys.areas.legend.read": (
        "Oder nur einzelne Bereiche lesen (Bankdaten und Lastschriftmandate sind der Bereich Buchhaltung)",
        "Or read single areas only (bank data and direct debit mandates are the accounting area)",
    ),
    "keys.area.contacts": ("Kontakte", "Contacts"),
    "keys.area.contracts": ("Verträge", "Contracts"),
    "keys.area.units": ("Einheiten (Wohnungen, Gewerbe, Stellplätze)", "Units (flats, shops, parking spaces)"),
    "keys.area.objects": (
        "Objekte mit Adressen, Gebäudeteilen und Objektgruppen",
        "Objects with addresses, unit groups and object groups",
    ),
    "keys.area.documents": ("Dokumente und Aushänge", "Documents and notices"),
    "keys.area.processes": ("Vorgänge und ihre Einträge", "Processes and their updates"),
    "keys.area.responsibilities": ("Zuständigkeiten", "Responsibilities"),
    "keys.area.advisors": ("Beiräte und Berater", "Advisors"),
    "keys.area.signatories": ("Zeichnungsberechtigte", "Signatories"),
    "keys.area.callrecords": ("Telefonnotizen", "Call records"),
    "keys.area.exports": ("Exporte", "Exports"),
    "keys.area.accounting": (
        "Buchhaltung (Bankverbindungen, Eingangsrechnungen, Lastschriftmandate)",
        "Accounting (bank accounts, inbound invoices, direct debit mandates)",
    ),
    "keys.area.aliases": ("Aliase (eigene Kennungen für Datensätze)", "Aliases (your own names for records)"),
    "keys.area.webhooks": ("Webhooks", "Webhooks"),
    "keys.area.uvi": ("UVI (unterjährige Verbrauchsinformation)", "UVI (monthly consumption information)"),
    # the form
    "keys.form.title": ("Neuer API-Schlüssel", "New API key"),
    "keys.form.agent": ("Name des Agenten", "Agent name"),
    "keys.form.agent.hint": (
        "Zum Beispiel „rechnungs-bot“. Buchstaben, Ziffern, Leerzeichen und . _ @ -, am Anfang ein "
        "Buchstabe oder eine Ziffer. Jede Anfrage des Agenten wird unter diesem Namen protokolliert.",
        "For example “invoice-bot”. Letters, digits, spaces and . _ @ -, starting with a letter or digit. "
        "Every request of the agent is logged under this name.",
    ),
    "keys.form.binding": ("Wem gehört der Schlüssel?", "Who does the key belong to?"),
    "keys.form.binding.company": (
        "Dem Unternehmen (z. B. eine Software, die für alle arbeitet)",
        "The company (e.g. software that works for everyone)",
    ),
    "keys.form.binding.person": (
        "Einer Person aus Ihrem Team (ein Kontakt)",
        "A person on your team (a contact)",
    ),
    "keys.form.contact": ("Kontakt-ID oder Alias der Person", "Contact id or alias of the person"),
    "keys.form.contact.hint": (
        "Nur bei einem Schlüssel für eine Person. Sie finden die ID auf der Seite des Kontakts.",
        "Only for a key bound to a person. You find the id on the contact's page.",
    ),
    "keys.form.scopes": ("Was darf der Agent?", "What may the agent do?"),
    "keys.form.untrusted": (
        "Fremde Texte für den Agenten auslassen (MCP)",
        "Leave out other parties' text for the agent (MCP)",
    ),
    "keys.form.untrusted.hint": (
        "Texte in Ihren Daten (Namen, Notizen, Beschreibungen) können von anderen stammen, etwa einem Dienstleister "
        "mit eigener Integration, und Anweisungen enthalten, die einen KI-Agenten steuern sollen. Ist dies "
        "gewählt, erhält der Agent über MCP Texte, die zuletzt eine andere Integration, der Betreiber oder jemand "
        "ohne Schlüssel geschrieben hat, nur als Platzhalter, der den Verfasser nennt. Über REST bleiben Texte "
        "unverändert.",
        "Text in your data (names, notes, descriptions) may come from others, such as a service provider with an "
        "integration of its own, and may hold instructions meant to steer an AI agent. When this is chosen, the "
        "agent receives over MCP text last written by another integration, the operator or without a key only "
        "as a placeholder naming who wrote it. REST answers keep the text as written.",
    ),
    "keys.untrusted": ("Fremde Texte", "Other parties' text"),
    "keys.untrusted.omit": ("ausgelassen (MCP)", "left out (MCP)"),
    "keys.untrusted.show": ("angezeigt, mit Verfasser gekennzeichnet", "shown, marked with its author"),
    "keys.form.expiry": ("Läuft ab am (optional)", "Expires on (optional)"),
    "keys.form.expiry.hint": (
        f"Ohne Angabe gilt der Schlüssel {DEFAULT_KEY_DAYS} Tage, höchstens sind {MAX_KEY_DAYS} Tage möglich. "
        "Er gilt bis zum Beginn dieses Tages (00:00 Uhr UTC).",
        f"Without a date the key is valid for {DEFAULT_KEY_DAYS} days; at most {MAX_KEY_DAYS} days are possible. "
        "It stops working at the start of that day (00:00 UTC).",
    ),
    "keys.form.objects": ("Nur diese Objekte (optional)", "Only these objects (optional)"),
    "keys.form.objects.hint": (
        "IDs oder Aliase von Objekten, eines pro Zeile oder durch Kommas getrennt (höchstens 1.000). Der Agent "
        "sieht und ändert dann nur deren Einheiten, Verträge, Dokumente, Vorgänge und die mit ihnen verbundenen "
        "Kontakte. Leer lassen: jedes Objekt.",
        "Ids or aliases of objects, one per line or separated by commas (at most 1,000). The agent then sees and "
        "changes only their units, contracts, documents, processes and the contacts linked to them. Leave it "
        "empty: every object.",
    ),
    "keys.form.submit": ("Schlüssel anlegen", "Create key"),
    # readable refusals (the operation's field errors, in plain words)
    "keys.error.agent": (
        "Name des Agenten: Bitte verwenden Sie nur Buchstaben, Ziffern, Leerzeichen und . _ @ - "
        "und beginnen Sie mit einem Buchstaben oder einer Ziffer (höchstens 100 Zeichen).",
        "Agent name: please use only letters, digits, spaces and . _ @ - and start with a letter or digit "
        "(at most 100 characters).",
    ),
    "keys.error.scopes": (
        "Berechtigungen: Bitte wählen Sie mindestens eine Berechtigung aus.",
        "Permissions: please choose at least one permission.",
    ),
    "keys.error.expiry": (
        f"Ablaufdatum: Bitte wählen Sie einen Tag nach heute, höchstens {MAX_KEY_DAYS} Tage im Voraus.",
        f"Expiry: please choose a day after today, at most {MAX_KEY_DAYS} days ahead.",
    ),
    "keys.error.person": (
        "Person: Es gibt keinen Kontakt mit dieser ID oder diesem Alias.",
        "Person: there is no contact with this id or alias.",
    ),
    "keys.error.object": (
        "Objekte: Es gibt kein Objekt mit der ID oder dem Alias „{entry}“.",
        "Objects: there is no object with the id or alias “{entry}”.",
    ),
    "keys.error.objects": (
        "Objekte: Bitte geben Sie höchstens 1.000 IDs oder Aliase von Objekten an.",
        "Objects: please enter at most 1,000 ids or aliases of objects.",
    ),
    "keys.error.person_missing": (
        "Person: Bitte geben Sie die Kontakt-ID oder den Alias der Person an – oder binden Sie den "
        "Schlüssel an das Unternehmen.",
        "Person: please enter the contact id or alias of the person – or bind the key to the company.",
    ),
    "keys.error.agent_has_keys": (
        "Dieser Agent hat schon einen aktiven Schlüssel (oder zwei während eines Schlüsseltauschs). "
        "Tauschen Sie den vorhandenen Schlüssel auf seiner Seite aus, oder deaktivieren Sie einen alten Schlüssel.",
        "This agent has an active key already (or two while rotating). Rotate the existing key on its page, "
        "or disable an old key.",
    ),
    "keys.error.key_limit_reached": (
        "Ein Unternehmen darf höchstens {cap} aktive API-Schlüssel haben, und Ihres hat so viele. "
        "Deaktivieren Sie einen Schlüssel, den Sie nicht mehr brauchen; dann legen Sie den neuen an.",
        "A company may hold at most {cap} active API keys, and yours holds that many. "
        "Disable a key you no longer need, then create the new one.",
    ),
    "keys.error.not_found": ("Diesen API-Schlüssel gibt es nicht.", "There is no such API key."),
    # the secret, shown once
    "keys.created.title": ("Schlüssel für {agent} angelegt", "Key for {agent} created"),
    "keys.created.once": (
        "Kopieren Sie den Schlüssel jetzt und hinterlegen Sie ihn beim Agenten. Er wird nur dieses eine Mal "
        "angezeigt; wir speichern ihn nicht. Geht er verloren, legen Sie einen neuen an.",
        "Copy the key now and give it to the agent. It is shown this one time only; we do not keep it. "
        "If it gets lost, create a new one.",
    ),
    "keys.created.label": ("Der neue API-Schlüssel", "The new API key"),
    "keys.created.to_key": ("Zur Seite des Schlüssels", "Go to the key's page"),
    "keys.created.to_list": ("Zur Liste der Schlüssel", "Go to the list of keys"),
    # a viewer reads the keys, changes none
    "keys.viewer.note": (
        "Ihre Rolle „Nur lesen“ zeigt Ihnen die Schlüssel, ändert aber keine: Anlegen, Austauschen, Deaktivieren "
        "und das Entziehen von OAuth-Zugängen sind Inhabern und Administratoren vorbehalten. Die geheimen "
        "Schlüssel selbst zeigt die Konsole niemandem (sie werden nicht gespeichert), die Absenderadressen der "
        "Anfragen nur Inhabern und Administratoren.",
        "As a viewer you see the keys but change none: creating, rotating and disabling keys and revoking OAuth "
        "access are for owners and admins. The secret keys themselves are shown to no one (they are not kept), "
        "the source addresses of requests only to owners and admins.",
    ),
    "keys.viewer.detail_note": (
        "Austauschen und Deaktivieren sind Inhabern und Administratoren vorbehalten; Ihre Rolle „Nur lesen“ "
        "zeigt den Schlüssel ohne sein Geheimnis.",
        "Rotating and disabling are for owners and admins; as a viewer you see the key without its secret.",
    ),
    "keys.viewer.no_addresses": (
        "Die Absenderadressen sehen nur Inhaber und Administratoren.",
        "Source addresses are shown to owners and admins only.",
    ),
    "keys.connect": ("Einen Agenten mit diesem Schlüssel verbinden", "Connect an agent with this key"),
    # the detail page
    "keys.detail.title": ("API-Schlüssel von {agent}", "API key of {agent}"),
    "keys.detail.facts": ("Angaben", "Facts"),
    "keys.detail.id": ("Schlüssel-ID", "Key id"),
    "keys.detail.integration": ("Integration", "Integration"),
    "keys.detail.last_ip": ("Zuletzt benutzt von Adresse", "Last used from address"),
    "keys.detail.actions": ("Aktionen", "Actions"),
    "keys.detail.rotate": ("Schlüssel austauschen", "Rotate key"),
    "keys.detail.rotate.hint": (
        "Legt einen neuen Schlüssel für denselben Agenten an; den alten deaktivieren Sie danach.",
        "Creates a new key for the same agent; you disable the old one afterwards.",
    ),
    "keys.detail.disable": ("Schlüssel deaktivieren", "Disable key"),
    "keys.detail.disable.confirm": (
        "Den Schlüssel wirklich deaktivieren? Der Agent kann ihn danach nicht mehr benutzen. "
        "Das lässt sich nicht rückgängig machen.",
        "Really disable the key? The agent can no longer use it. This cannot be undone.",
    ),
    "keys.detail.disabled_note": (
        "Dieser Schlüssel ist deaktiviert; Anfragen damit werden abgelehnt.",
        "This key is disabled; requests with it are refused.",
    ),
    "keys.detail.log": ("Anfrageprotokoll", "Request log"),
    "keys.detail.log.intro": (
        f"Jede Anfrage mit diesem Schlüssel, die neueste zuerst (aufbewahrt für {REQUEST_LOG_DAYS} Tage).",
        f"Every request made with this key, newest first (kept for {REQUEST_LOG_DAYS} days).",
    ),
    "keys.detail.log.empty": ("Mit diesem Schlüssel wurden noch keine Anfragen gestellt.", "No requests yet."),
    "keys.log.at": ("Zeitpunkt", "Time"),
    "keys.log.operation": ("Vorgang", "Operation"),
    "keys.log.method": ("Methode", "Method"),
    "keys.log.status": ("Antwort", "Status"),
    "keys.log.duration": ("Dauer (ms)", "Duration (ms)"),
    "keys.log.channel": ("Kanal", "Channel"),
    "keys.log.source": ("Adresse", "Address"),
    "keys.done.disabled": (
        "Der Schlüssel ist deaktiviert. Anfragen damit werden ab jetzt abgelehnt.",
        "The key is disabled. Requests with it are refused from now on.",
    ),
    "keys.done.rotated": (
        "Der alte Schlüssel ist deaktiviert. Der Agent arbeitet ab jetzt mit diesem Schlüssel.",
        "The old key is disabled. The agent works with this key from now on.",
    ),
    # rotation
    "keys.rotate.title": ("Schlüssel von {agent} austauschen", "Rotate the key of {agent}"),
    "keys.rotate.intro": (
        "So tauschen Sie den Schlüssel aus, ohne dass der Agent eine Unterbrechung bemerkt:",
        "This is how you replace the key without the agent noticing an interruption:",
    ),
    "keys.rotate.step1": (
        "Sie legen einen neuen Schlüssel für denselben Agenten an, mit denselben Berechtigungen und derselben "
        f"Bindung. Er gilt {DEFAULT_KEY_DAYS} Tage.",
        f"You create a new key for the same agent, with the same permissions and binding. It is valid for "
        f"{DEFAULT_KEY_DAYS} days.",
    ),
    "keys.rotate.step2": (
        "Sie hinterlegen den neuen Schlüssel beim Agenten. Bis dahin funktionieren beide Schlüssel.",
        "You give the new key to the agent. Until then both keys work.",
    ),
    "keys.rotate.step3": (
        "Sie deaktivieren den alten Schlüssel. Danach funktioniert nur noch der neue.",
        "You disable the old key. After that only the new one works.",
    ),
    "keys.rotate.submit": ("Neuen Schlüssel anlegen (Schritt 1)", "Create the new key (step 1)"),
    "keys.rotate.done_title": ("Neuer Schlüssel für {agent}", "New key for {agent}"),
    "keys.rotate.step2_now": (
        "Schritt 2: Hinterlegen Sie diesen Schlüssel jetzt beim Agenten und prüfen Sie, ob er damit arbeitet.",
        "Step 2: give this key to the agent now and check that it works with it.",
    ),
    "keys.rotate.step3_now": (
        "Schritt 3: Sobald der Agent den neuen Schlüssel benutzt, deaktivieren Sie den alten ({prefix}…).",
        "Step 3: as soon as the agent uses the new key, disable the old one ({prefix}…).",
    ),
    "keys.rotate.disable_old": ("Alten Schlüssel jetzt deaktivieren", "Disable the old key now"),
    "keys.rotate.later": (
        "Sie können den alten Schlüssel auch später auf seiner Seite deaktivieren.",
        "You can also disable the old key later on its page.",
    ),
    "keys.rotate.old_page": ("Seite des alten Schlüssels", "The old key's page"),
    "keys.rotate.old_disabled": (
        "Der alte Schlüssel ist bereits deaktiviert; es bleibt nichts weiter zu tun.",
        "The old key is disabled already; nothing else is left to do.",
    ),
}
