#!/usr/bin/env bash
# Regenerates the bug-story logs of this folder (see README.md here). Each story is a session played
# through today's pipeline, exported, and then given the one event (or the recorded states) an older
# build of the app produced. Run from anywhere; needs a built flowlog (swift build).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flowlog="${FLOWLOG:-$here/../../.build/debug/flowlog}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

session() { # stream, then the lines of a session
    local stream="$1"; shift
    printf '%s\n' "$@" | sed "s/@S/$stream/g"
}

shop=(
  '{"type":"app.launched","stream":"@S","hasOnboarded":true}'
  '{"type":"cart.addProduct","stream":"@S","productId":"p-mug","name":"Mug","unitPrice":1250,"quantity":2}'
  '{"type":"cart.addProduct","stream":"@S","productId":"p-tee","name":"T-shirt","unitPrice":1999,"quantity":1}'
  '{"type":"home.selectTab","stream":"@S","tab":1}'
  '{"type":"cart.applyDiscount","stream":"@S","discountId":"SPRING15","percent":15}'
  '{"type":"cart.checkout","stream":"@S"}'
  '{"type":"payment.failed","stream":"@S","reason":"card declined"}'
  '{"type":"cart.addProduct","stream":"@S","productId":"p-cap","name":"Cap","unitPrice":1500,"quantity":1}'
  '{"type":"cart.checkout","stream":"@S"}'
  '{"type":"payment.succeeded","stream":"@S","orderId":"order-1"}'
)

# 1. coupon-over-100: build 0.8 did not check a coupon's percent; SPRING15 went out as 150, and the
#    customer of session-4711 saw a negative total and could not pay (the session ends there).
{ session session-4711 "${shop[@]:0:5}" \
    '{"type":"cart.addProduct","stream":"@S","productId":"p-cap","name":"Cap","unitPrice":1500,"quantity":1}' \
    '{"type":"cart.removeProduct","stream":"@S","productId":"p-tee"}' \
    '{"type":"home.presentModal","stream":"@S"}'
  session session-0815 "${shop[@]}"; } > "$work/coupon.cmds"
"$flowlog" send "$work/coupon.cmds" --db "$work/coupon.lmdb" > /dev/null
"$flowlog" export --db "$work/coupon.lmdb" \
  | python3 -c 'import sys, json
for line in sys.stdin:
    event = json.loads(line)
    if event["stream"] == "session-4711" and event["type"] == "cart.discountApplied":
        event["data"]["percent"] = 150
    print(json.dumps(event, separators=(",", ":"), ensure_ascii=False))' > "$here/coupon-over-100.ndjson"

# 2. empty-checkout: build 0.9 started a checkout by itself when the last product was removed; the
#    customer was left checking out an empty cart, with nothing to pay for.
session session-1207 \
  '{"type":"app.launched","stream":"@S","hasOnboarded":false}' \
  '{"type":"welcome.logIn","stream":"@S"}' \
  '{"type":"login.succeeded","stream":"@S"}' \
  '{"type":"cart.addProduct","stream":"@S","productId":"p-mug","name":"Mug","unitPrice":1250,"quantity":1}' \
  '{"type":"cart.removeProduct","stream":"@S","productId":"p-mug"}' \
  '{"type":"home.presentModal","stream":"@S"}' \
  '{"type":"modal.dismiss","stream":"@S"}' \
  '{"type":"cart.addProduct","stream":"@S","productId":"p-tee","name":"T-shirt","unitPrice":1999,"quantity":1}' \
  '{"type":"cart.removeProduct","stream":"@S","productId":"p-tee"}' \
  > "$work/empty.cmds"
"$flowlog" send "$work/empty.cmds" --db "$work/empty.lmdb" > /dev/null
"$flowlog" export --db "$work/empty.lmdb" \
  | python3 -c 'import sys, json
events = [json.loads(line) for line in sys.stdin]
# The old build followed the last removal with a checkout of the now empty cart.
last = dict(events[-1])
last.update(position=last["position"] + 1, version=last["version"] + 1, type="cart.checkoutStarted",
            data={"total": 0, "itemCount": 0}, eventId="01a1fe6e-0000-7000-8000-00000000e0c0", actor="system")
events.append(last)
for event in events:
    print(json.dumps(event, separators=(",", ":"), ensure_ascii=False))' > "$here/empty-checkout.ndjson"

# 3. stale-discount: build 0.7 kept a product discount after its line was removed, so the product
#    came back discounted when it was added again. Its recorded states are the expected file.
{ session session-2020 \
  '{"type":"app.launched","stream":"@S","hasOnboarded":true}' \
  '{"type":"cart.addProduct","stream":"@S","productId":"p-mug","name":"Mug","unitPrice":1250,"quantity":2}' \
  '{"type":"cart.applyDiscount","stream":"@S","discountId":"MUG20","percent":20,"productId":"p-mug"}' \
  '{"type":"cart.addProduct","stream":"@S","productId":"p-tee","name":"T-shirt","unitPrice":1999,"quantity":1}' \
  '{"type":"cart.removeProduct","stream":"@S","productId":"p-mug"}' \
  '{"type":"home.selectTab","stream":"@S","tab":1}' \
  '{"type":"cart.addProduct","stream":"@S","productId":"p-mug","name":"Mug","unitPrice":1250,"quantity":1}' \
  '{"type":"cart.checkout","stream":"@S"}' \
  '{"type":"payment.succeeded","stream":"@S","orderId":"order-1"}'
  session session-2021 "${shop[@]}"; } > "$work/stale.cmds"
"$flowlog" send "$work/stale.cmds" --db "$work/stale.lmdb" > /dev/null
"$flowlog" export --db "$work/stale.lmdb" > "$here/stale-discount.ndjson"
"$flowlog" replay --file "$here/stale-discount.ndjson" --trace \
  | python3 -c 'import sys, json
stale = None
for line in sys.stdin:
    state = json.loads(line)
    cart = state["cart"]
    if state["stream"] == "session-2020":
        mug = next((item for item in cart["items"] if item["productId"] == "p-mug"), None)
        if mug and mug["discount"]:
            stale = mug["discount"]
        elif mug and stale and cart["status"] == "open":
            # The old reducer re-attached the remembered discount and priced the line with it.
            mug["discount"] = stale
            mug["discountedAmount"] = mug["regularAmount"] - (mug["regularAmount"] * stale["percent"] + 50) // 100
            cart["subtotal"] = sum(item["discountedAmount"] for item in cart["items"])
            percent = cart["cartDiscount"]["percent"] if cart["cartDiscount"] else 0
            cart["total"] = cart["subtotal"] - (cart["subtotal"] * percent + 50) // 100
    print(json.dumps(state, separators=(",", ":"), ensure_ascii=False))' > "$here/stale-discount.expected.ndjson"
echo "fixtures written to $here"
