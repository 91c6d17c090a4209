"""Schemathesis hooks for the fuzzing run (test/fuzz/fuzz-stack.ts sets SCHEMATHESIS_HOOKS to this module).

The document upload's `file` part declares its media types (PDF, PNG, JPEG) in the multipart encoding. Schemathesis
has no serializer of its own for them, so each gets a strategy here: arbitrary bytes behind the format's signature,
which is what the API checks (core/documents/content-type.ts). Without them the stateful phase stops with
"Serialization not possible" and the upload is never reached with a file.
"""

from hypothesis import strategies as st

import schemathesis

SIGNATURES = {
    "application/pdf": b"%PDF-",
    "image/png": b"\x89PNG\r\n\x1a\n",
    "image/jpeg": b"\xff\xd8\xff",
}

for media_type, signature in SIGNATURES.items():
    schemathesis.openapi.media_type(
        media_type, st.binary(max_size=4096).map(lambda body, signature=signature: signature + body)
    )

UPLOAD_PATH = "/v1/debts/{id}/documents"


@schemathesis.hook
def filter_body(ctx, body):
    """Drop upload bodies whose text fields are not strings.

    A multipart text part is a string on the wire whatever was generated: a negative case that makes `description`
    null or a number arrives as the text "null" or "12", a valid description, and would be reported as a
    schema-violating request the API accepted. Such a violation cannot be sent, so it is not a case.
    """
    if ctx.operation is None or ctx.operation.path != UPLOAD_PATH:
        return True
    # A form with encoded parts arrives wrapped (FormBodyWithContentTypes), its fields in `.body`.
    fields = getattr(body, "body", body)
    if not isinstance(fields, dict):
        return True
    return all(isinstance(value, str) for name, value in fields.items() if name != "file")


@schemathesis.hook
def filter_query(ctx, query):
    """Drop queries whose object parameters (`metadata[key]=value`, OpenAPI's deepObject) hold anything but strings.

    The same as for the multipart fields above: a query string carries text only, so a negative case that makes a
    value null or a number arrives as "null" or "12", a valid filter value, and the API's 200 would be reported as a
    schema-violating request accepted. Such a violation cannot be sent, so it is not a case.
    """
    if not isinstance(query, dict):
        return True
    return all(
        all(isinstance(item, str) for item in value.values()) for value in query.values() if isinstance(value, dict)
    )
