"""An e-invoice checked by the official rules: the EN 16931 Schematron of CEN/TC 434 (UBL or CII), and
for an invoice that claims XRechnung (its BT-24 names it) then the XRechnung CIUS Schematron of KoSIT.
No rule is written here: the answer is what the rules' SVRL report says.

The rules use XPath 2 (queryBinding xslt2), so they run on Saxon-HE (saxonche, XSLT 3.0): SchXslt 1.10
(MIT) compiles each Schematron into an XSLT stylesheet, which Saxon compiles once per process, at first
use, and keeps (measured on this 2-core machine: EN 16931 UBL 1.3 s with Saxon's start, CII 0.6 s,
XRechnung 0.14 s and 0.05 s; `ENGINE.warm` does all four ahead, 2.1 s); one validation then costs
7 to 15 ms (EN 16931 and XRechnung, the test suite's files).

The vendored files (rules/, each folder with its license and source commit):
  rules/en16931/    EN16931-UBL/CII-validation-preprocessed.sch (EUPL 1.2), one file each
  rules/xrechnung/  XRechnung-UBL/CII-validation.sch and common.sch (Apache 2.0)
  rules/schxslt/    SchXslt's XSLT 2.0 compiler (MIT)

The document reaching Saxon has been parsed by recognise.parse_xml first (no DTD, bounded size,
depth and elements), so Saxon never sees a DOCTYPE or an entity; the rules read no file and fetch nothing.
saxonche loads at the first validation: the MCP function's bundle leaves it out (infra/package.py)."""

from __future__ import annotations

import re
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from chalicelib.einvoice import namespaces
from chalicelib.einvoice.model import Wire
from chalicelib.einvoice.recognise import Detected

RULES = Path(__file__).resolve().parent / "rules"
SCHXSLT = RULES / "schxslt" / "xslt" / "pipeline-for-svrl.xsl"

Ruleset = Literal["en16931-ubl", "en16931-cii", "xrechnung-ubl", "xrechnung-cii"]
SCHEMATRON: dict[Ruleset, Path] = {
    "en16931-ubl": RULES / "en16931" / "EN16931-UBL-validation-preprocessed.sch",
    "en16931-cii": RULES / "en16931" / "EN16931-CII-validation-preprocessed.sch",
    "xrechnung-ubl": RULES / "xrechnung" / "ubl" / "XRechnung-UBL-validation.sch",
    "xrechnung-cii": RULES / "xrechnung" / "cii" / "XRechnung-CII-validation.sch",
}
ERROR_FLAGS = frozenset({"fatal", "error"})  # "warning" and "information" are warnings; no flag is an error

SVRL = "{http://purl.oclc.org/dsdl/svrl}"
_PREFIXES = {uri: prefix for prefix, uri in namespaces.PREFIXES.items()}
_EQNAME = re.compile(r"Q\{([^}]*)\}")


@dataclass
class Message(Wire):
    """One failed assertion or successful report of the SVRL: the rule's id (BR-16, BR-DE-15, ...),
    its flag, its text, and where in the document (an XPath with the usual prefixes)."""

    rule: str
    flag: str
    text: str
    location: str


@dataclass
class Validation(Wire):
    """valid: no error (warnings allowed). profile: which rules applied, "en16931" or "xrechnung"
    (EN 16931 and then the XRechnung CIUS). rulesets: the Schematron files run, in order."""

    valid: bool
    profile: Literal["en16931", "xrechnung"]
    rulesets: list[str] = field(default_factory=list)
    errors: list[Message] = field(default_factory=list)
    warnings: list[Message] = field(default_factory=list)
    milliseconds: float | None = None


class _Engine:
    """One Saxon processor per process, each Schematron compiled once at first use. saxonche's
    objects are not documented as thread-safe: one lock serialises their use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._processor: Any = None
        self._compiler: Any = None
        self._schxslt: Any = None
        self._compiled: dict[Ruleset, Any] = {}
        self.compile_seconds: dict[str, float] = {}

    def _start(self) -> None:
        if self._processor is None:
            from saxonche import PySaxonProcessor  # cold start: 114 MB, loaded at the first validation only

            self._processor = PySaxonProcessor(license=False)
            self._compiler = self._processor.new_xslt30_processor()
            self._schxslt = self._compiler.compile_stylesheet(stylesheet_file=str(SCHXSLT))

    def _executable(self, ruleset: Ruleset) -> Any:
        compiled = self._compiled.get(ruleset)
        if compiled is None:
            started = time.perf_counter()
            self._start()
            stylesheet = self._schxslt.transform_to_string(source_file=str(SCHEMATRON[ruleset]))
            compiled = self._compiler.compile_stylesheet(stylesheet_text=stylesheet)
            self._compiled[ruleset] = compiled
            self.compile_seconds[ruleset] = time.perf_counter() - started
        return compiled

    def processor(self) -> Any:
        """Saxon's processor of this process (one per process: tests evaluate XPath with it)."""
        with self._lock:
            self._start()
            return self._processor

    def warm(self, rulesets: tuple[Ruleset, ...]) -> None:
        with self._lock:
            for ruleset in rulesets:
                self._executable(ruleset)

    def svrl(self, rulesets: list[Ruleset], text: str) -> list[str]:
        with self._lock:
            executables = [self._executable(ruleset) for ruleset in rulesets]
            document = self._processor.parse_xml(xml_text=text)
            return [str(executable.transform_to_string(xdm_node=document)) for executable in executables]


ENGINE = _Engine()


def rulesets_for(detected: Detected) -> tuple[Literal["en16931", "xrechnung"], list[Ruleset]]:
    """The rules an invoice is checked by: EN 16931 for its syntax, then the XRechnung CIUS when its
    specification identifier (BT-24) claims XRechnung (any version: an outdated one fails BR-DE-21)."""
    syntax = detected.syntax
    en16931: Ruleset = "en16931-ubl" if syntax == "ubl" else "en16931-cii"
    if "xrechnung" in (detected.customization_id or "").casefold():
        xrechnung: Ruleset = "xrechnung-ubl" if syntax == "ubl" else "xrechnung-cii"
        return "xrechnung", [en16931, xrechnung]
    return "en16931", [en16931]


def validate(detected: Detected) -> Validation:
    """The invoice checked by its rules (rulesets_for)."""
    started = time.perf_counter()
    profile, chosen = rulesets_for(detected)
    errors, warnings = check(detected.xml_text, chosen)
    return Validation(
        valid=not errors,
        profile=profile,
        rulesets=list(chosen),
        errors=errors,
        warnings=warnings,
        milliseconds=round((time.perf_counter() - started) * 1000, 2),
    )


def check(xml_text: str, rulesets: list[Ruleset]) -> tuple[list[Message], list[Message]]:
    """The errors and the warnings the `rulesets` report on a document already parsed safely."""
    errors: list[Message] = []
    warnings: list[Message] = []
    try:
        reports = ENGINE.svrl(rulesets, xml_text)
    except Exception as error:  # noqa: BLE001 - Saxon's errors are one class; the invoice is still shown, marked invalid
        message = f"the rules could not be evaluated: {error}"
        errors.append(Message(rule="SCHEMATRON", flag="fatal", text=message, location="/"))
        reports = []
    for report in reports:
        for found in messages(report):
            (errors if found.flag in ERROR_FLAGS else warnings).append(found)
    return errors, warnings


def messages(svrl: str) -> list[Message]:
    """The failed assertions and successful reports of an SVRL report, in document order."""
    root = ET.fromstring(svrl)  # Saxon's own output of our stylesheets: no DTD, nothing to defuse
    found: list[Message] = []
    for element in root.iter():
        if element.tag not in (f"{SVRL}failed-assert", f"{SVRL}successful-report"):
            continue
        text = " ".join("".join(element.findtext(f"{SVRL}text") or "").split())
        found.append(
            Message(
                rule=element.get("id") or "",
                flag=element.get("flag") or "error",
                text=text,
                location=_readable(element.get("location") or ""),
            )
        )
    return found


def _readable(location: str) -> str:
    """SchXslt's locations name elements as Q{namespace}local: the usual prefixes read better."""
    return _EQNAME.sub(
        lambda match: f"{_PREFIXES[match.group(1)]}:" if match.group(1) in _PREFIXES else match.group(0), location
    )
