#!/usr/bin/env bash
# How eur-orders/ was made, with the last FlowLog whose row index took an order's currency from
# the event alone (USD, whatever the cart's): a session in EUR and one in USD, three orders each,
# then enough browsing that their heads are written and read back. Do not run it again with a
# later FlowLog: eur-orders/ keeps the rows and fingerprints that version wrote, which
# `flowlog upgrade` repairs (Tests/FlowLogCLITests/KeptRowRepairCLITests.swift). Each command is
# sent alone, as a user's taps come, so that every one loads its stream as that version did.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flowlog="${FLOWLOG:-$here/../../.build/debug/flowlog}"
rm -rf "$here/eur-orders"
while IFS= read -r line; do
  printf '%s\n' "$line" | "$flowlog" send --db "$here/eur-orders" > /dev/null
done < "$here/eur-orders.commands.ndjson"
rm -f "$here/eur-orders/lock.mdb" "$here/eur-orders/flowlog.lock"
"$flowlog" export --db "$here/eur-orders" > "$here/eur-orders.ndjson"
rm -f "$here/eur-orders/lock.mdb" "$here/eur-orders/flowlog.lock"
