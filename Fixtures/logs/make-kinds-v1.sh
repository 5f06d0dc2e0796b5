#!/usr/bin/env bash
# How kinds-v1/ was made, with the FlowLog before event evolution (log schema 1, every event kind at
# version 1). Never run it again with a later FlowLog: kinds-v1/ keeps the bytes that build wrote, so
# that every later build is tested against them (Tests/FlowLogCLITests/KindsV1FixtureTests.swift).
#
# kinds-v1/log/       an LMDB log: the demo, the command fixtures and kinds-v1.commands.ndjson, so
#                     that every event kind occurs, in seven streams, with snapshots every 5 events
# kinds-v1/export.ndjson, export.csv   its exports
# kinds-v1/states.ndjson               `state --format json` of each stream
# kinds-v1/postgres.sql                the same log copied into PostgreSQL (`flowlog copy`), as
#                                      `pg_dump --schema=kinds_v1` wrote it: psql -f recreates it
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flowlog="${FLOWLOG:-$here/../../.build/debug/flowlog}"
out="$here/kinds-v1"
rm -rf "$out"; mkdir -p "$out"
log="$out/log"
"$flowlog" demo --db "$log" --stream demo > /dev/null
"$flowlog" snapshots --db "$log" --interval 5 > /dev/null
for input in commands/cart-rules.ndjson commands/onboarding.ndjson commands/envelope.ndjson logs/kinds-v1.commands.ndjson; do
    "$flowlog" send "$here/../$input" --db "$log" > /dev/null || true
done
"$flowlog" export --db "$log" > "$out/export.ndjson"
"$flowlog" export --db "$log" --format csv > "$out/export.csv"
for stream in $("$flowlog" streams --db "$log" --format json | python3 -c 'import json,sys; [print(s["stream"]) for s in map(json.loads, sys.stdin)]'); do
    "$flowlog" state --db "$log" --stream "$stream" --format json
done > "$out/states.ndjson"
rm -f "$log/lock.mdb" "$log"/projector-*.lock

# PostgreSQL: a throwaway server, the log copied into schema kinds_v1, dumped.
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
tmp="$(mktemp -d)"; chown postgres "$tmp"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
as_pg "$bin/initdb" -D "$tmp/data" -A trust -U postgres --no-sync > /dev/null
as_pg "$bin/pg_ctl" -D "$tmp/data" -o "-k $tmp -p 54329 -c listen_addresses=''" -l "$tmp/log" -w start > /dev/null
trap 'as_pg "$bin/pg_ctl" -D "$tmp/data" -m immediate stop > /dev/null; rm -rf "$tmp"' EXIT
as_pg "$bin/createdb" -h "$tmp" -p 54329 -U postgres flowlog
"$flowlog" copy --from "$log" --to "postgres://postgres@/flowlog?host=$tmp&port=54329&schema=kinds_v1" > /dev/null
rm -f "$log/lock.mdb" "$log"/projector-*.lock
"$bin/pg_dump" -h "$tmp" -p 54329 -U postgres --schema=kinds_v1 --no-owner --no-privileges flowlog > "$out/postgres.sql"
