"""Console texts: sign-up, confirmation, sign-in, sign-out, overview, local outbox (key -> (German, English))."""

TEXTS: dict[str, tuple[str, str]] = {
    "signup.title": ("Registrieren", "Sign up"),
    "signup.intro": (
        "Ihr Unternehmen erhält einen Monat lang den vollen Enterprise-Umfang (REST und MCP), kostenlos.",
        "Your company gets the full enterprise tier (REST and MCP) free for one month.",
    ),
    "signup.company": ("Firma", "Company"),
    "signup.name": ("Ihr Name", "Your name"),
    "signup.email": ("E-Mail-Adresse", "E-mail address"),
    "signup.agent": ("Name des Agenten für den ersten API-Schlüssel", "Agent name of the first API key"),
    "signup.agent_hint": (
        "Wer den ersten Schlüssel nutzt, z. B. setup oder buchhaltung-bot.",
        "Who will use the first key, e.g. setup or invoice-bot.",
    ),
    "signup.submit": ("Registrieren", "Sign up"),
    "signup.have_account": ("Schon registriert? Anmelden", "Already signed up? Sign in"),
    "signup.check_mail": ("Bitte prüfen Sie Ihr Postfach", "Check your mailbox"),
    "signup.check_mail_text": (
        "Wir haben eine E-Mail an {email} geschickt. Geben Sie den Code daraus hier ein (gültig {minutes} Minuten).",
        "We sent a mail to {email}. Enter the code from it here (valid for {minutes} minutes).",
    ),
    "confirm.title": ("Adresse bestätigen", "Confirm your address"),
    "confirm.code": ("Bestätigungscode", "Confirmation code"),
    "confirm.submit": ("Bestätigen", "Confirm"),
    "confirm.failed": (
        "Der Code ist falsch oder nicht mehr gültig. Prüfen Sie die E-Mail oder registrieren Sie sich erneut.",
        "The code is wrong or no longer valid. Check the mail or sign up again.",
    ),
    "welcome.title": ("Willkommen, Ihr Konto ist eingerichtet", "Welcome, your account is ready"),
    "welcome.key_intro": (
        "Das ist Ihr erster API-Schlüssel (Agent {agent}, alle Berechtigungen). Er wird nur jetzt angezeigt: "
        "kopieren Sie ihn an einen sicheren Ort.",
        "This is your first API key (agent {agent}, every scope). It is shown only now: copy it somewhere safe.",
    ),
    "welcome.key_label": ("API-Schlüssel", "API key"),
    "welcome.shown_once": (
        "Ihr erster API-Schlüssel wurde nur einmal angezeigt und kann nicht noch einmal angezeigt werden: "
        "er wird nirgends im Klartext aufbewahrt. Haben Sie ihn nicht kopiert, legen Sie einen neuen an "
        "und deaktivieren Sie den alten.",
        "Your first API key was shown once and cannot be shown again: it is not kept anywhere in plain text. "
        "If you did not copy it, create a new key and disable the old one.",
    ),
    "welcome.new_key": ("Neuen API-Schlüssel anlegen", "Create a new API key"),
    "welcome.continue": ("Weiter zur Übersicht", "Continue to the overview"),
    "signin.title": ("Anmelden", "Sign in"),
    "signin.intro": (
        "Wir schicken Ihnen einen Anmeldecode per E-Mail; ein Passwort gibt es nicht.",
        "We mail you a sign-in code; there is no password.",
    ),
    "signin.email": ("E-Mail-Adresse", "E-mail address"),
    "signin.submit": ("Code anfordern", "Send me a code"),
    "signin.no_account": ("Noch kein Konto? Registrieren", "No account yet? Sign up"),
    "signin.check_mail": (
        "Wenn {email} zu einem Konto gehört, ist ein Anmeldecode unterwegs (gültig {minutes} Minuten).",
        "If {email} belongs to an account, a sign-in code is on its way (valid for {minutes} minutes).",
    ),
    "signin.code": ("Anmeldecode", "Sign-in code"),
    "signin.code_kept": (
        "Ein Code, der schon unterwegs und noch gültig ist, wird nicht ersetzt: Nutzen Sie den aus dieser E-Mail.",
        "A code already mailed and still valid is not replaced: use the one from that mail.",
    ),
    "choice.title": ("Firma wählen", "Choose a company"),
    "choice.intro": (
        "Der Code für {email} stimmt. Welche Firma möchten Sie öffnen?",
        "The code for {email} is confirmed. Which company would you like to open?",
    ),
    "choice.companies": ("Ihre Firmen", "Your companies"),
    "choice.open": ("{company} öffnen", "Open {company}"),
    "choice.role": ("Ihre Rolle: {role}", "Your role: {role}"),
    "choice.last": ("zuletzt geöffnet", "opened last"),
    "choice.invitations": ("Einladungen", "Invitations"),
    "choice.invitations_hint": (
        "Eine Einladung gilt erst, wenn Sie sie annehmen. Firmennamen trägt die einladende Firma selbst ein.",
        "An invitation counts only once you accept it. Company names are entered by the inviting company.",
    ),
    "choice.invitation": ("{company} lädt Sie ein (Rolle: {role}).", "{company} invites you (role: {role})."),
    "choice.accept": ("Annehmen und öffnen", "Accept and open"),
    "choice.decline": ("Ablehnen", "Decline"),
    "choice.decline_confirm": ("Die Einladung von {company} ablehnen?", "Decline the invitation of {company}?"),
    "choice.declined": ("Die Einladung ist abgelehnt.", "The invitation is declined."),
    "choice.changed": (
        "Die Einladung wurde inzwischen geändert oder zurückgezogen.",
        "The invitation was changed or withdrawn meanwhile.",
    ),
    "choice.expired": (
        "Die Auswahl ist abgelaufen. Bitte melden Sie sich erneut an.",
        "The choice has expired. Please sign in again.",
    ),
    "signin.code_submit": ("Anmelden", "Sign in"),
    "signin.failed": (
        "Der Code ist falsch oder nicht mehr gültig. Fordern Sie einen neuen an.",
        "The code is wrong or no longer valid. Ask for a new one.",
    ),
    "signin.expired": (
        "Ihre Sitzung ist abgelaufen. Bitte melden Sie sich an.",
        "Your session has ended. Please sign in.",
    ),
    "signout.done": ("Sie sind abgemeldet.", "You are signed out."),
    "signout.everywhere": ("Überall abmelden", "Sign out everywhere"),
    "signout.everywhere_hint": (
        "Beendet alle Ihre Sitzungen, auf allen Geräten.",
        "Ends every session of yours, on every device.",
    ),
    "overview.title": ("Übersicht", "Overview"),
    "overview.company": ("Firma", "Company"),
    "overview.plan": ("Tarif", "Plan"),
    "overview.trial": ("Testphase", "Trial"),
    "overview.trial_left": ("endet am {date} (noch {days} Tage)", "ends on {date} ({days} days left)"),
    "overview.trial_over": ("beendet am {date}", "ended on {date}"),
    "overview.paid": ("kein Testzeitraum", "no trial"),
    "overview.requests": ("Anfragen je Schlüssel, letzte 30 Tage", "Requests per key, last 30 days"),
    "overview.agent": ("Agent", "Agent"),
    "overview.count": ("Anfragen", "Requests"),
    "overview.last_used": ("Zuletzt genutzt", "Last used"),
    "outbox.title": ("Lokaler Postausgang", "Local outbox"),
    "outbox.intro": (
        "Nur lokal (make serve): die E-Mails, die der Dienst verschickt hätte.",
        "Local only (make serve): the mail the service would have sent.",
    ),
    "outbox.to": ("An", "To"),
    "outbox.empty": ("Noch keine E-Mails.", "No mail yet."),
}
