"""Console texts: the team (members, invitations, roles) (key -> (German, English))."""

TEXTS: dict[str, tuple[str, str]] = {
    "members.title": ("Team", "Team"),
    "members.intro": (
        "Wer die Konsole nutzt. Inhaber laden Kolleginnen und Kollegen per E-Mail ein; "
        "angemeldet wird mit einem Code per E-Mail.",
        "Who uses the console. Owners invite colleagues by e-mail; they sign in with a mailed code.",
    ),
    "members.email": ("E-Mail-Adresse", "E-mail address"),
    "members.name": ("Name", "Name"),
    "members.role": ("Rolle", "Role"),
    "members.status": ("Status", "Status"),
    "members.status.active": ("aktiv", "active"),
    "members.status.invited": ("eingeladen", "invited"),
    "members.you": ("(Sie)", "(you)"),
    "members.invite": ("Einladen", "Invite"),
    "members.invite_title": ("Jemanden einladen", "Invite someone"),
    "members.roles_explained": (
        "Inhaber: alles, auch das Team verwalten. Administrator: alles außer dem Team. Nur lesen: sieht alles, "
        "ändert nichts.",
        "Owner: everything, including the team. Admin: everything but the team. Viewer: sees everything, "
        "changes nothing.",
    ),
    "members.invited": (
        "{email} ist eingeladen und wird Mitglied, sobald die Einladung nach der Anmeldung angenommen ist.",
        "{email} is invited, and becomes a member once they accept after signing in.",
    ),
    "members.change_role": ("Rolle ändern", "Change role"),
    "members.role_changed": ("Die Rolle von {email} ist jetzt {role}.", "{email} is now {role}."),
    "members.remove": ("Entfernen", "Remove"),
    "members.remove_confirm": ("{email} aus dem Team entfernen?", "Remove {email} from the team?"),
    "members.removed": ("{email} ist entfernt.", "{email} is removed."),
    "members.last_owner": (
        "Das Team braucht mindestens einen Inhaber.",
        "The team needs at least one owner.",
    ),
    "members.exists": ("Diese Adresse gehört schon zum Team.", "This address is in the team already."),
    "members.limit": (
        "Das Team hat die höchste Zahl an Mitgliedern und Einladungen erreicht; entfernen Sie zuerst jemanden.",
        "The team has reached its most members and invitations; remove someone first.",
    ),
    "members.bad_email": ("Bitte geben Sie eine gültige E-Mail-Adresse ein.", "Please enter a valid e-mail address."),
    "members.your_sessions": ("Ihre Sitzungen", "Your sessions"),
    "members.companies": ("Ihre anderen Unternehmen", "Your other companies"),
    "members.switch": ("Zu {company} wechseln", "Switch to {company}"),
    "member_keys.title": ("API-Schlüssel dieser Person", "This person's API keys"),
    "member_keys.intro": (
        "Die aktiven API-Schlüssel, die {email} angelegt hat, und die Schlüssel, die diese wiederum angelegt "
        "haben. Sie behalten ihre Berechtigungen, bis sie deaktiviert sind.",
        "The active API keys {email} created, and the keys those keys created in turn. They keep their "
        "permissions until they are disabled.",
    ),
    "member_keys.intro_unnamed": (
        "Die aktiven API-Schlüssel, die diese Person angelegt hat, und die Schlüssel, die diese wiederum "
        "angelegt haben. Sie behalten ihre Berechtigungen, bis sie deaktiviert sind.",
        "The active API keys this person created, and the keys those keys created in turn. They keep their "
        "permissions until they are disabled.",
    ),
    "member_keys.removed": ("{email} ist entfernt.", "{email} is removed."),
    "member_keys.disabled": (
        "Die Schlüssel, die {email} angelegt hat, sind deaktiviert.",
        "The keys {email} created are disabled.",
    ),
    "member_keys.hint": (
        "Agenten, die diese Schlüssel nutzen, erhalten danach 401; das Deaktivieren lässt sich nicht rückgängig "
        "machen (legen Sie bei Bedarf neue Schlüssel an).",
        "Agents using these keys get 401 from then on; disabling cannot be undone (create new keys if needed).",
    ),
    "member_keys.disable": ("Diese {count} Schlüssel deaktivieren", "Disable these {count} keys"),
    "member_keys.confirm": ("{count} Schlüssel deaktivieren?", "Disable {count} keys?"),
    "member_keys.none": (
        "Diese Person hat keine aktiven Schlüssel angelegt.",
        "This person created no active keys.",
    ),
    "member_keys.back": ("Zurück zum Team", "Back to the team"),
}
