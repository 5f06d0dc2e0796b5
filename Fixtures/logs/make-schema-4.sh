#!/usr/bin/env bash
# How schema-4/ was made, with the first FlowLog of log schema 4 (an LMDB log whose latest commits'
# stream-index entries and kept rows wait in batch records until a fold). The first half of the
# EUR and USD sessions (eur-orders.commands.ndjson) is sent with a fold after every commit, so the
# indexes hold it; the rest, one command per commit, with folds held off (FLOWLOG_LMDB_FOLD), so
# 33 batch records hold it, kept orders included. Do not run it again with a later FlowLog:
# schema-4/ keeps the bytes that version wrote, so that every later version is tested against them
# (Tests/FlowLogCLITests/BatchRecordCLITests.swift).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flowlog="${FLOWLOG:-$here/../../.build/debug/flowlog}"
rm -rf "$here/schema-4"
head -n 33 "$here/eur-orders.commands.ndjson" | FLOWLOG_LMDB_FOLD=1,1 "$flowlog" send --db "$here/schema-4" > /dev/null
tail -n +34 "$here/eur-orders.commands.ndjson" | while IFS= read -r line; do
  printf '%s\n' "$line" | FLOWLOG_LMDB_FOLD=1000000000,1000000000 "$flowlog" send --db "$here/schema-4" > /dev/null
done
rm -f "$here/schema-4/lock.mdb" "$here/schema-4/flowlog.lock"
"$flowlog" export --db "$here/schema-4" > "$here/schema-4.ndjson"
rm -f "$here/schema-4/lock.mdb" "$here/schema-4/flowlog.lock"
