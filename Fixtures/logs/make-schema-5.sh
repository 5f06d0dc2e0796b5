#!/usr/bin/env bash
# How schema-5/ was made, with the first FlowLog of log schema 5 (a record written with a W3C trace
# context keeps it, in layout 4). schema-5.commands.ndjson names trace contexts in `meta` (one with
# a tracestate, one of a later traceparent version, one unsampled); a typed command adds one with
# --traceparent; the stream `forgotten` is then forgotten, so the log holds the forgotten form of a
# traced record. Do not run it again with a later FlowLog: schema-5/ keeps the bytes that version
# wrote, so that every later version is tested against them (Tests/FlowLogCLITests/TraceContextCLITests.swift).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flowlog="${FLOWLOG:-$here/../../.build/debug/flowlog}"
rm -rf "$here/schema-5"
"$flowlog" send --db "$here/schema-5" < "$here/schema-5.commands.ndjson" > /dev/null
"$flowlog" cart add --stream traced --product p2 --name Tee --price 9.00 --quantity 1 \
  --traceparent 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 --db "$here/schema-5" > /dev/null
"$flowlog" forget --stream forgotten --reason "erasure request" --db "$here/schema-5" > /dev/null
rm -f "$here/schema-5/lock.mdb" "$here/schema-5/"*.lock
"$flowlog" export --db "$here/schema-5" > "$here/schema-5.ndjson"
"$flowlog" export --format csv --db "$here/schema-5" > "$here/schema-5.csv"
rm -f "$here/schema-5/lock.mdb" "$here/schema-5/"*.lock
