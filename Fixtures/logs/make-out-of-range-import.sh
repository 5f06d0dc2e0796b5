#!/usr/bin/env bash
# How out-of-range-import/ was made, with the last FlowLog whose import clamped integers beyond 64
# bits instead of refusing them: two sessions sent (out-of-range-import.commands.ndjson), exported,
# and the export's `p-cap` line given a unitPrice of 99999999999999999999 and a quantity of
# -99999999999999999999 (out-of-range-import.ndjson), which that build imported as
# 9223372036854775807 and -9223372036854775808 and `verify` called intact, while `state` trapped.
# Do not run it again with a later FlowLog, which refuses that line: out-of-range-import/ keeps
# the bytes that version wrote, so that every later version is tested against them
# (Tests/FlowLogCLITests/OutOfRangeLogCLITests.swift).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flowlog="${FLOWLOG:-$here/../../.build/debug/flowlog}"
rm -rf "$here/out-of-range-import"
"$flowlog" import --db "$here/out-of-range-import" "$here/out-of-range-import.ndjson"
rm -f "$here/out-of-range-import/lock.mdb" "$here/out-of-range-import/flowlog.lock"
