"""SEPA validation helpers: IBAN and BIC (with schwifty), the creditor identifier
(Gläubiger-Identifikationsnummer) and the mandate reference (Mandatsreferenz).

schwifty is imported inside the functions: it costs about 40 ms at import, and only the
accounting commands need it, so the app's cold start stays small.

Each check returns the normalised value or raises `ValueError` with a message meant for
the client; the resource modules turn that into a 400 at the argument path.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

# The SEPA character set of the mandate reference (EPC: "Latin character set"): letters,
# digits, / - ? : ( ) . , ' + and the space; at most 35 characters.
MANDATE_REFERENCE_MAX = 35
MANDATE_REFERENCE_CHARS = r"A-Za-z0-9/\-?:().,'+ "
MANDATE_REFERENCE_PATTERN = rf"^[{MANDATE_REFERENCE_CHARS}]{{1,{MANDATE_REFERENCE_MAX}}}$"
_MANDATE_REFERENCE = re.compile(MANDATE_REFERENCE_PATTERN)

# Creditor identifier: country code, 2 check digits, 3-character creditor business code
# (Geschäftsbereichskennung, "ZZZ" when unused), national identifier; at most 35 characters.
_CREDITOR_ID = re.compile(r"^([A-Z]{2})([0-9]{2})([A-Z0-9]{3})([A-Z0-9]{1,28})$")
_NATIONAL_CREDITOR_ID = {"DE": re.compile(r"^[0-9]{11}$")}  # the Bundesbank's format: 11 digits

GENERATED_REFERENCE_PREFIX = "PM-"
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def compact(value: str) -> str:
    """Upper case, no spaces: the stored and compared form of IBANs, BICs and creditor ids."""
    return "".join(value.split()).upper()


def normalise_iban(value: str) -> str:
    """The IBAN in its compact form (DE89370400440532013000), or ValueError naming the defect."""
    from schwifty import IBAN  # cold start: schwifty (~16 ms) loads on the first IBAN
    from schwifty.exceptions import SchwiftyException  # cold start: schwifty loads on first use

    try:
        return str(IBAN(compact(value)).compact)
    except SchwiftyException as err:
        raise ValueError(f"not a valid IBAN: {_reason(err)}") from None


def normalise_bic(value: str) -> str:
    """The BIC in its compact form (8 or 11 characters), or ValueError."""
    from schwifty import BIC  # cold start: schwifty loads on first use
    from schwifty.exceptions import SchwiftyException  # cold start: schwifty loads on first use

    try:
        return str(BIC(compact(value)).compact)
    except SchwiftyException as err:
        raise ValueError(f"not a valid BIC: {_reason(err)}") from None


@dataclass(frozen=True)
class Bank:
    bic: str | None
    name: str | None


def bank_of(iban: str) -> Bank:
    """What schwifty's bank registry knows about the bank of a valid IBAN (either may be None)."""
    from schwifty import IBAN  # cold start: schwifty loads on first use

    parsed = IBAN(iban)
    bic = parsed.bic
    return Bank(bic=str(bic.compact) if bic is not None else None, name=parsed.bank_name or None)


def _reason(err: Exception) -> str:
    text = str(err).strip()
    return text[0].lower() + text[1:] if text else type(err).__name__


def _digits(text: str) -> str:
    """ISO 7064 letters-to-digits: A=10 ... Z=35, digits stay."""
    return "".join(str(int(ch, 36)) for ch in text)


def normalise_creditor_id(value: str) -> str:
    """The creditor identifier (Gläubiger-ID) in compact form, checked as the EPC defines it:
    ISO 7064 mod 97-10 over the national identifier followed by the country code and the
    check digits, leaving out the 3-character creditor business code. E.g. DE98ZZZ09999999999."""
    text = compact(value)
    match = _CREDITOR_ID.match(text)
    if not match or len(text) > 35:
        raise ValueError(
            "not a creditor identifier: country code, 2 check digits, 3-character business code, "
            "national identifier (at most 35 characters)"
        )
    country, check, _business_code, national = match.groups()
    national_format = _NATIONAL_CREDITOR_ID.get(country)
    if national_format is not None and not national_format.match(national):
        raise ValueError(
            f"a {country} creditor identifier has 18 characters: {country}, 2 check digits, business code, 11 digits"
        )
    if int(_digits(national + country + check)) % 97 != 1:
        raise ValueError("the check digits of the creditor identifier do not match (ISO 7064 mod 97-10)")
    return text


def mandate_reference_problem(value: str) -> str | None:
    """Why a mandate reference is not acceptable, or None when it is."""
    if not value or len(value) > MANDATE_REFERENCE_MAX:
        return f"a mandate reference has 1 to {MANDATE_REFERENCE_MAX} characters"
    if not _MANDATE_REFERENCE.match(value):
        return "a mandate reference may only hold A-Z, a-z, 0-9, the space and / - ? : ( ) . , ' +"
    if not value.strip():
        return "a mandate reference cannot be blank"
    return None


def mandate_reference_key(value: str) -> str:
    """The form under which references are unique: banks do not tell upper from lower case
    ("123AAa" and "123aaA" are the same mandate), but spaces count."""
    return value.upper()


def generate_mandate_reference() -> str:
    """A readable new reference: "PM-" and 16 random Crockford base32 characters (80 bits),
    e.g. PM-7K2Q9WXT4M8HD3RB. No I, L, O or U, so it survives being read aloud or typed."""
    return GENERATED_REFERENCE_PREFIX + "".join(secrets.choice(_CROCKFORD) for _ in range(16))
