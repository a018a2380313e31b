"""Console texts: activity pages (key -> (German, English))."""

TEXTS: dict[str, tuple[str, str]] = {
    "activity.title": ("Agenten-Aktivität", "Agent activity"),
    "activity.intro": (
        "Jede Änderung an Ihren Daten – durch Agenten, Integrationen und Ihr Team – mit dem Stand davor und danach.",
        "Every change to your data – by agents, integrations and your team – with the state before and after.",
    ),
    "activity.filters": ("Filter", "Filters"),
    "activity.filter.agentName": ("Agent", "Agent"),
    "activity.filter.keyId": ("Schlüssel oder Teammitglied (ID)", "Key or team member (ID)"),
    "activity.filter.entityId": ("Datensatz (ID)", "Record (ID)"),
    "activity.filter.entityType": ("Art des Datensatzes", "Record type"),
    "activity.filter.operation": ("Operation", "Operation"),
    "activity.filter.from": ("Von", "From"),
    "activity.filter.to": ("Bis", "To"),
    "activity.filter.any_type": ("Alle Arten", "All types"),
    "activity.filter.apply": ("Anzeigen", "Show"),
    "activity.filter.reset": ("Filter zurücksetzen", "Clear filters"),
    "activity.filter.operation_hint": ("z. B. contacts.update", "e.g. contacts.update"),
    "activity.bad_time": (
        "„{value}“ ist keine gültige Zeitangabe. Bitte im Format JJJJ-MM-TT SS:MM eingeben.",
        "“{value}” is not a time we can read. Please enter it as YYYY-MM-DD HH:MM.",
    ),
    "activity.capped": (
        "Es gibt mehr Änderungen, als gezählt werden können. Grenzen Sie die Suche ein (Zeitraum, Agent).",
        "There are more changes than can be counted. Narrow the search (time range, agent).",
    ),
    "activity.empty": ("Keine Änderungen gefunden.", "No changes found."),
    "activity.changes": ("Änderungen", "Changes"),
    "activity.col.at": ("Zeitpunkt", "Time"),
    "activity.col.actor": ("Wer", "Who"),
    "activity.col.operation": ("Operation", "Operation"),
    "activity.col.entity": ("Datensatz", "Record"),
    "activity.col.change": ("Änderung", "Change"),
    "activity.col.field": ("Feld", "Field"),
    "activity.col.before": ("Vorher", "Before"),
    "activity.col.after": ("Nachher", "After"),
    "activity.col.changes": ("Änderungen", "Changes"),
    "activity.col.result": ("Ergebnis", "Result"),
    "activity.col.reason": ("Grund", "Reason"),
    "activity.removed": ("entfernt:", "removed:"),
    "activity.added": ("neu:", "added:"),
    "activity.more_fields": ("Weitere geänderte Felder: {count}", "More changed fields: {count}"),
    "activity.no_field_changes": ("Keine Feldänderung.", "No field changed."),
    "activity.key": ("Schlüssel {id}", "key {id}"),
    "activity.member": ("Teammitglied {id}", "team member {id}"),
    "activity.action.created": ("angelegt", "created"),
    "activity.action.updated": ("geändert", "updated"),
    "activity.action.deleted": ("gelöscht", "deleted"),
    "activity.action.restored": ("wiederhergestellt", "restored"),
    "activity.type.object": ("Objekt", "Object"),
    "activity.type.unit": ("Einheit", "Unit"),
    "activity.type.contract": ("Vertrag", "Contract"),
    "activity.type.contact": ("Kontakt", "Contact"),
    "activity.type.process": ("Vorgang", "Process"),
    "activity.type.document": ("Dokument", "Document"),
    "activity.type.tenant": ("Konto", "Account"),
    "activity.type.apiKey": ("API-Schlüssel", "API key"),
    "activity.type.integration": ("Integration", "Integration"),
    "activity.type.member": ("Teammitglied", "Team member"),
    "activity.type.oauthGrant": ("Per OAuth verbundener Agent", "Agent connected by OAuth"),
    "activity.type.webhook": ("Webhook", "Webhook"),
    # one change
    "activity.detail.title": ("Änderung {id}", "Change {id}"),
    "activity.detail.what": ("Was wurde geändert", "What changed"),
    "activity.detail.agent": ("Agent oder Person", "Agent or person"),
    "activity.detail.channel": ("Zugang", "Channel"),
    "activity.detail.request": ("Anfrage", "Request"),
    "activity.detail.action": ("Art der Änderung", "Kind of change"),
    "activity.detail.history": ("Alle Änderungen an diesem Datensatz", "All changes of this record"),
    "activity.detail.back": ("Zurück zur Aktivität", "Back to the activity"),
    "activity.revert_one.title": ("Änderung rückgängig machen", "Undo this change"),
    "activity.revert_one.text": (
        "Der Datensatz wird auf den Stand vor dieser Änderung zurückgesetzt. Hat ihn danach noch jemand geändert, "
        "wird nichts überschrieben.",
        "The record goes back to its state before this change. If anyone changed it afterwards, nothing is "
        "overwritten.",
    ),
    "activity.revert_one.submit": ("Änderung rückgängig machen", "Undo this change"),
    "activity.revert_one.confirm": (
        "Diese Änderung wirklich rückgängig machen?",
        "Really undo this change?",
    ),
    "activity.revert_one.account": (
        "Änderungen am Konto (API-Schlüssel, Tarif, Integrationen) lassen sich nicht rückgängig machen.",
        "Changes of the account (API keys, plan, integrations) cannot be undone.",
    ),
    "activity.reverted_one": ("Die Änderung wurde rückgängig gemacht: {what}.", "The change was undone: {what}."),
    # reverting a range
    "activity.revert.link": ("Diese Änderungen rückgängig machen …", "Undo these changes …"),
    "activity.revert.link_hint": (
        "Sie sehen zuerst eine Vorschau; es wird erst nach Ihrer Bestätigung etwas geändert.",
        "You see a preview first; nothing changes until you confirm.",
    ),
    "activity.revert.type_hint": (
        "Das Rückgängigmachen umfasst alle Arten von Datensätzen, nicht nur die gewählte Art.",
        "Undoing covers every record type, not only the chosen one.",
    ),
    "activity.revert.title": ("Änderungen rückgängig machen: Vorschau", "Undo changes: preview"),
    "activity.revert.filter": ("Betroffene Änderungen", "Changes concerned"),
    "activity.revert.will_revert": ("Wird zurückgesetzt ({count})", "Will be set back ({count})"),
    "activity.revert.will_skip": ("Wird übersprungen ({count})", "Will be skipped ({count})"),
    "activity.revert.nothing": (
        "Es gibt nichts zurückzusetzen.",
        "There is nothing to set back.",
    ),
    "activity.revert.summary": (
        "Datensätze, die auf ihren früheren Stand zurückgesetzt werden: {entities}; "
        "rückgängig zu machende Änderungen: {changes}.",
        "Records to be set back to their earlier state: {entities}; changes to be undone: {changes}.",
    ),
    "activity.revert.dry_run": (
        "Dies ist nur eine Vorschau: Bisher wurde nichts geändert.",
        "This is only a preview: nothing has been changed yet.",
    ),
    "activity.revert.confirm": ("Jetzt rückgängig machen", "Undo now"),
    "activity.revert.cancel": ("Abbrechen", "Cancel"),
    "activity.revert_needs_filter": (
        "Bitte wählen Sie mindestens einen Filter (z. B. Agent und Zeitraum).",
        "Please choose at least one filter (e.g. agent and time range).",
    ),
    "activity.reverted.title": ("Änderungen rückgängig gemacht", "Changes undone"),
    "activity.reverted.done": (
        "Zurückgesetzte Datensätze: {reverted}; übersprungen: {skipped}.",
        "Records set back: {reverted}; skipped: {skipped}.",
    ),
    "activity.reverted.reverted": ("Zurückgesetzt ({count})", "Set back ({count})"),
    "activity.reverted.skipped": ("Übersprungen ({count})", "Skipped ({count})"),
    "activity.reverted.trail": (
        "Das Rückgängigmachen in der Aktivität ansehen",
        "See the undo in the activity",
    ),
    "activity.outcome.updated": ("auf den früheren Stand zurückgesetzt", "set back to its earlier state"),
    "activity.outcome.deleted": ("gelöscht (gab es vorher nicht)", "deleted (did not exist before)"),
    "activity.outcome.restored": ("wiederhergestellt", "restored"),
    "activity.outcome.none": ("nichts zu tun", "nothing to do"),
    "activity.skip.changed_later": (
        "Danach von jemand anderem geändert – wird nicht überschrieben.",
        "Changed later by someone else – not overwritten.",
    ),
    "activity.skip.not_revertible": (
        "Kontoänderungen werden nicht rückgängig gemacht.",
        "Changes of the account are not undone.",
    ),
    "activity.refused.changed_later": (
        "Nicht rückgängig gemacht: Der Datensatz wurde danach noch einmal geändert, und diese spätere Änderung "
        "würde überschrieben. Im Verlauf des Datensatzes sehen Sie, was danach geschah.",
        "Not undone: the record was changed again afterwards, and that later change would be overwritten. "
        "The record's history shows what happened since.",
    ),
    "activity.refused.not_revertible": (
        "Kontoänderungen (API-Schlüssel, Team, Firma) werden nicht rückgängig gemacht.",
        "Changes of the account (API keys, team, company) are not undone.",
    ),
    "activity.refused.not_found": (
        "Diese Änderung oder ihren Datensatz gibt es nicht (mehr).",
        "This change or its record does not exist (any more).",
    ),
    "activity.refused.filter_too_broad": (
        "Der Filter umfasst zu viele Änderungen für ein Rückgängigmachen. Grenzen Sie den Zeitraum oder "
        "den Agenten ein und machen Sie es in Teilen rückgängig.",
        "The filter matches too many changes for one undo. Narrow the time range or the agent and undo it in parts.",
    ),
    "activity.refused.webhook_limit_reached": (
        "Nicht rückgängig gemacht: Das Wiederherstellen des Webhooks würde die Höchstzahl an Webhooks überschreiten.",
        "Not undone: restoring the webhook would exceed the company's number of webhooks.",
    ),
    "activity.skip.webhook_limit_reached": (
        "Das Wiederherstellen würde die Höchstzahl an Webhooks überschreiten.",
        "Restoring it would exceed the company's number of webhooks.",
    ),
    "activity.skip.not_found": ("Den Datensatz gibt es nicht mehr.", "The record no longer exists."),
    "activity.stop.text": (
        "{agent} hat {count} aktive(n) API-Schlüssel. Stoppen Sie den Agenten, sperren Sie sie: Jede weitere Anfrage "
        "mit ihnen wird abgelehnt. Das lässt sich nicht rückgängig machen; für einen Neustart legen Sie einen neuen "
        "Schlüssel an.",
        "{agent} has {count} live API key(s). Stopping the agent disables them: every further request with them is "
        "refused. This cannot be undone; to start again, create a new key.",
    ),
    "activity.stop.submit": ("Agent {agent} stoppen", "Stop agent {agent}"),
    "activity.stop.confirm": (
        "{agent} wirklich stoppen? {count} API-Schlüssel werden endgültig gesperrt.",
        "Really stop {agent}? {count} API key(s) will be disabled for good.",
    ),
    "activity.stop.done": (
        "{agent} ist gestoppt: Seine API-Schlüssel sind gesperrt.",
        "{agent} is stopped: its API keys are disabled.",
    ),
    "restore.button": ("Wiederherstellen", "Restore"),
    "restore.confirm": ("{name} wiederherstellen?", "Restore {name}?"),
    "restore.done": ("{name} ist wiederhergestellt.", "{name} is restored."),
    "restore.reference_deleted": (
        "Nicht wiederhergestellt: Der Datensatz verweist auf etwas Gelöschtes. Stellen Sie das zuerst wieder her "
        "(seine Datenseite nennt es unter „Verweist auf“).",
        "Not restored: the record references something deleted. Restore that first (its data page lists it under "
        "“It references”).",
    ),
    "restore.merged": (
        "Nicht wiederhergestellt: Der Kontakt wurde mit einem anderen zusammengeführt.",
        "Not restored: the contact was merged into another one.",
    ),
}
