#!/usr/bin/env bash
# How schema-1/ was made, with the FlowLog of log schema 1 (record schema 1). Do not run it again with
# a later FlowLog: the point of schema-1/ is to keep the bytes that version wrote, so that every later
# version is tested against them (Tests/FlowLogCLITests/ReliabilityTests.swift).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flowlog="${FLOWLOG:-$here/../../.build/debug/flowlog}"
rm -rf "$here/schema-1"
"$flowlog" demo --db "$here/schema-1" --stream demo > /dev/null
"$flowlog" snapshots --db "$here/schema-1" --interval 5 > /dev/null
"$flowlog" send "$here/../commands/cart-rules.ndjson" --db "$here/schema-1" > /dev/null || true
"$flowlog" send "$here/../commands/onboarding.ndjson" --db "$here/schema-1" > /dev/null || true
"$flowlog" send "$here/../commands/envelope.ndjson" --db "$here/schema-1" > /dev/null || true
rm -f "$here/schema-1/lock.mdb"
"$flowlog" export --db "$here/schema-1" > "$here/schema-1.ndjson"
for stream in demo cart nav env; do "$flowlog" state --db "$here/schema-1" --stream "$stream" --format json; done > "$here/schema-1.states.ndjson"
rm -f "$here/schema-1/lock.mdb"
