"""Schemathesis hooks for the fuzzing run (test/fuzz/fuzz-stack.ts sets SCHEMATHESIS_HOOKS to this module).

The document upload's `file` part declares its media types (PDF, PNG, JPEG) in the multipart encoding, and the
placement upload's its file formats (CSV, JSON Lines). Schemathesis has no serializer of its own for them, so each
gets a strategy here: arbitrary bytes behind the format's signature, which is what the API checks
(core/documents/content-type.ts), and for a placement a header of real and made-up columns over rows of any text or
JSON. Without them the run stops with "Serialization not possible" and the uploads are never reached with a file.
"""

import json

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

# A few of the placement file's columns (core/placements/placement-columns.ts) and names that are none of them, so a
# generated header is sometimes right and sometimes refused column by column.
PLACEMENT_COLUMNS = ["externalAccountId", "originalPrincipal", "currency", "debtorReferenceId", "metadata.crmId", "x"]
CELL = st.text(max_size=12)


def csv_file(columns, rows):
    lines = [",".join(columns)] + [",".join(row) for row in rows]
    return ("\r\n".join(lines) + "\r\n").encode("utf-8")


CSV_FILES = st.lists(st.sampled_from(PLACEMENT_COLUMNS), min_size=1, max_size=4).flatmap(
    lambda columns: st.lists(st.lists(CELL, min_size=len(columns), max_size=len(columns)), max_size=4).map(
        lambda rows: csv_file(columns, rows)
    )
)
JSON_LINES_FILES = st.lists(
    st.dictionaries(st.sampled_from(PLACEMENT_COLUMNS), st.one_of(CELL, st.integers(), st.none()), max_size=4),
    max_size=4,
).map(lambda objects: "".join(json.dumps(o) + "\n" for o in objects).encode("utf-8"))

schemathesis.openapi.media_type("text/csv", CSV_FILES)
schemathesis.openapi.media_type("application/x-ndjson", JSON_LINES_FILES)

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
