"""multipart/form-data bodies of the upload commands, read into the same arguments a JSON
body carries: one part per argument, object arguments as JSON text, and the file (the part
with a file name) as `{"fileName", "contentType", "content": <base64>}`.

Which parts are JSON the operation's arguments say (schemas.form_json_parts), as the document's form does
(openapi._form_schema: an object argument's part has the encoding application/json), never
the text itself: a text argument may begin with "[" or "{"."""

from __future__ import annotations

import base64
import json
from email.parser import BytesParser
from typing import Any

from chalicelib import error_codes as codes
from chalicelib.errors import Invalid, invalid_at


def parse(content_type: str, raw: bytes, json_names: frozenset[str]) -> dict[str, Any]:
    from email import policy  # cold start: email.policy (~3 ms) loads on the first multipart body

    if "boundary=" not in content_type.lower():
        raise Invalid(
            "The multipart/form-data body has no boundary parameter in its Content-Type.", code=codes.MALFORMED_FORM
        )
    message = BytesParser(policy=policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + raw
    )
    if not message.is_multipart() or message.defects:
        raise Invalid(
            "The multipart/form-data body could not be read; send one part per argument.", code=codes.MALFORMED_FORM
        )
    args: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str) or not name:
            raise Invalid(
                "Every form part needs a name (Content-Disposition: form-data; name=...).", code=codes.MALFORMED_FORM
            )
        if name in args:
            raise Invalid(f"The form has the part {name!r} twice.", code=codes.MALFORMED_FORM)
        payload = part.get_payload(decode=True)
        content = payload if isinstance(payload, bytes) else b""
        file_name = part.get_filename()
        if file_name is not None:
            if not content:  # as an empty base64 file is (uploads/direct.py); the form's binary part states no length
                raise invalid_at(f"{name}.content", "the file is empty", code=codes.EMPTY_FILE)
            args[name] = {"fileName": file_name, "content": base64.b64encode(content).decode("ascii")}
            if part.get("content-type") is not None:  # without the header email assumes text/plain
                args[name]["contentType"] = part.get_content_type()
        else:
            args[name] = _value(name, content, name in json_names)
    return args


def _value(name: str, content: bytes, is_json: bool) -> Any:
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        raise Invalid(f"The form part {name!r} is not UTF-8 text.", code=codes.MALFORMED_FORM) from None
    if is_json:
        try:
            return json.loads(text)
        except ValueError as err:
            raise Invalid(f"The form part {name!r} is not valid JSON ({err}).", code=codes.MALFORMED_FORM) from None
        except RecursionError:
            raise Invalid(
                f"The form part {name!r} nests arrays and objects too deeply.", code=codes.MALFORMED_FORM
            ) from None
    return text
