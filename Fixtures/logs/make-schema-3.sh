#!/usr/bin/env bash
# How schema-3/ was made, with the first FlowLog of log schema 3 (salted records, which `forget`
# can erase). Do not run it again with a later FlowLog: schema-3/ keeps the bytes that version
# wrote, a forgotten stream among them, so that every later version is tested against them
# (Tests/FlowLogCLITests/ForgetCLITests.swift).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flowlog="${FLOWLOG:-$here/../../.build/debug/flowlog}"
rm -rf "$here/schema-3"
"$flowlog" demo --db "$here/schema-3" --stream demo > /dev/null
"$flowlog" demo --db "$here/schema-3" --stream gone > /dev/null
"$flowlog" send "$here/../commands/cart-rules.ndjson" --db "$here/schema-3" > /dev/null || true
"$flowlog" forget --db "$here/schema-3" --stream gone > /dev/null
rm -f "$here/schema-3/lock.mdb" "$here/schema-3/flowlog.lock" "$here/schema-3/"projector-*.lock
"$flowlog" export --db "$here/schema-3" > "$here/schema-3.ndjson"
"$flowlog" verify --db "$here/schema-3" --format json > "$here/schema-3.verify.json"
rm -f "$here/schema-3/lock.mdb" "$here/schema-3/flowlog.lock" "$here/schema-3/"projector-*.lock
# The demo's tracker files land beside the log; they are not part of the fixture.
rm -rf "$here/schema-3-tracker"
