# schemathesis hooks for test/contract/fuzz.ts (loaded through SCHEMATHESIS_HOOKS).
#
# Node's HTTP server refuses a request whose request line and headers pass 16 KiB with a 431
# before any route runs (documented in both OpenAPI descriptions). The spec's length limits count
# characters, and a 4-byte character is 12 bytes once percent-encoded, so the generator can build
# query strings the server never reads. Those cases are dropped here.
#
# The collection imports take JSON Lines (application/x-ndjson) or CSV (text/csv) as the body
# itself, which schemathesis has no serializer for: JSON Lines bodies are lines of small JSON
# objects, or a line that is not JSON; CSV bodies are rows of cells. Any text is a string on the
# wire, so a CSV body is never schema-violating: without this, "negative" CSV bodies were objects
# sent as their JSON text, which is a CSV of one header row (0 rows imported, a 200).
#
# logOutDeveloper ends the session it is called with: each call that carries the run's session
# gets a spare session of the operator instead (made by fuzz.ts, one per call), so the run keeps
# its own. Nothing else is changed.
import json
import os
from urllib.parse import urlencode

import schemathesis
from hypothesis import strategies as st

MAX_QUERY_BYTES = 8 * 1024
SESSION_COOKIE = "baas_session"

_json_line = st.one_of(
    st.dictionaries(
        st.text(max_size=8),
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=12)),
        max_size=4,
    ).map(json.dumps),
    st.text(max_size=12).filter(lambda line: "\n" not in line),
)
schemathesis.openapi.media_type(
    "application/x-ndjson",
    st.lists(_json_line, max_size=5).map(lambda lines: "\n".join(lines).encode()),
)

_csv_cell = st.text(alphabet=st.characters(blacklist_characters='\r\n",', blacklist_categories=("Cs",)), max_size=8)
schemathesis.openapi.media_type(
    "text/csv",
    st.lists(st.lists(_csv_cell, min_size=1, max_size=4).map(",".join), max_size=5).map(
        lambda rows: "\r\n".join(rows).encode()
    ),
)

_spare_file = os.environ.get("FUZZ_SPARE_SESSIONS")
SPARE_SESSIONS = json.load(open(_spare_file)) if _spare_file else []


@schemathesis.hook
def filter_query(ctx, query):
    return query is None or len(urlencode(query, doseq=True)) <= MAX_QUERY_BYTES


@schemathesis.hook
def before_call(ctx, case, kwargs):
    if case.operation.definition.raw.get("operationId") != "logOutDeveloper":
        return
    if case.cookies and SESSION_COOKIE in case.cookies and SPARE_SESSIONS:
        # The last spare is kept for any call past the supply (then a 401, documented).
        case.cookies[SESSION_COOKIE] = SPARE_SESSIONS.pop() if len(SPARE_SESSIONS) > 1 else SPARE_SESSIONS[0]
