"""The format of a one-time code mailed to a person (sign-up confirmation, console sign-in):
8 symbols of an alphabet without 0/O and 1/I/L (a code is read from a mail and typed), shown
as two groups of four (`ABCD-EFGH`). store/mailed_codes.py makes and checks codes; log.py
redacts anything of this shape from every log line."""

from __future__ import annotations

import re

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # 31 symbols, 8 of them: about 2^40
CODE_LENGTH = 8

_SYMBOL = f"[{ALPHABET}]"
_GROUP = CODE_LENGTH // 2
CODE = rf"{_SYMBOL}{{{_GROUP}}}-{_SYMBOL}{{{_GROUP}}}"  # the pattern of one code, as shown
# A code as a mail, a link or a log line shows it; not a piece of a longer dashed chain (an
# upper-case UUID), so only what could be a code is matched.
CODE_IN_TEXT = re.compile(rf"(?<![\w-])({CODE})(?![\w-])")
