"""Tests of vendor_collector.py: each rule it enforces, each fault it injects, and its command line.

Every test talks to a real collector process over loopback HTTP, as FlowLog's trackers will.
Run: python3 -m pytest Tests/collectors -q
"""
from __future__ import annotations

import base64
import gzip
import http.client
import json
import signal
import subprocess
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("vendor_collector.py")
WRITE_KEY = "test-write-key"
MEASUREMENT_ID = "G-TEST12345"
API_SECRET = "test-api-secret"


class Collector:
    """A collector process, its port and its record file."""

    def __init__(self, tmp_path: Path, *flags: str, keys: bool = True):
        self.record_path = tmp_path / f"record-{uuid.uuid4().hex[:8]}.ndjson"
        arguments = [sys.executable, str(SCRIPT), "--record", str(self.record_path), *flags]
        if keys:
            arguments += ["--segment-write-key", WRITE_KEY, "--ga4-measurement-id", MEASUREMENT_ID,
                          "--ga4-api-secret", API_SECRET]
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        assert line.strip().isdigit(), f"first line {line!r}, stderr {self.process.stderr.read()}"
        self.port = int(line)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=5)
        finally:
            self.process.stdout.close()
            self.process.stderr.close()

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None, timeout=10):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            data = response.read()
            return response.status, dict(response.getheaders()), (json.loads(data) if data else None)
        finally:
            connection.close()

    def post(self, path: str, payload, headers: dict | None = None, raw: bytes | None = None):
        body = raw if raw is not None else json.dumps(payload).encode()
        return self.request("POST", path, body, {"Content-Type": "application/json", **(headers or {})})

    def segment(self, path: str, payload, key: str | None = WRITE_KEY, headers: dict | None = None, raw=None):
        extra = dict(headers or {})
        if key is not None:
            extra["Authorization"] = "Basic " + base64.b64encode(f"{key}:".encode()).decode()
        return self.post(path, payload, extra, raw)

    def ga4(self, payload, debug: bool = True, measurement_id=MEASUREMENT_ID, api_secret=API_SECRET, raw=None):
        path = ("/debug/mp/collect" if debug else "/mp/collect") + f"?measurement_id={measurement_id}&api_secret={api_secret}"
        return self.post(path, payload, raw=raw)

    def control(self, **settings):
        return self.post("/_control", settings)

    def stats(self) -> dict:
        return self.request("GET", "/_stats")[2]

    def records(self) -> list[dict]:
        return [json.loads(line) for line in self.record_path.read_text().splitlines()]

    def last_record(self) -> dict:
        return self.records()[-1]


@pytest.fixture(scope="module")
def collector(tmp_path_factory):
    server = Collector(tmp_path_factory.mktemp("collector"))
    yield server
    assert server.stop() == 0


@pytest.fixture
def fresh(tmp_path):
    """A collector of its own, for flags set at start."""
    servers = []

    def start(*flags, keys=True):
        servers.append(Collector(tmp_path, *flags, keys=keys))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def now_iso(delta: timedelta = timedelta(0)) -> str:
    return (datetime.now(timezone.utc) + delta).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def now_micros(delta: timedelta = timedelta(0)) -> int:
    moment = datetime.now(timezone.utc) + delta
    return int(moment.timestamp()) * 1_000_000 + moment.microsecond


LIBRARY = {"library": {"name": "flowlog", "version": "0.1.0"}}


def track(event: str, properties: dict | None = None, **fields) -> dict:
    """A complete track message: every field the collector checks, set correctly."""
    message = {"type": "track", "event": event, "anonymousId": "stream-1", "messageId": str(uuid.uuid4()),
               "timestamp": now_iso(), "sentAt": now_iso(), "context": LIBRARY, "properties": properties or {}}
    message.update(fields)
    return message


def codes(problems: list[dict]) -> list[str]:
    return [item["code"] for item in problems]


def validation_codes(body: dict) -> list[tuple[str, str]]:
    return [(message["fieldPath"], message["validationCode"]) for message in body["validationMessages"]]


PRODUCT_ADDED = {"cart_id": "cart-1", "product_id": "sku-1", "name": "Mug", "price": 12.5, "quantity": 2,
                 "coupon": "MAYDEALS"}
ORDER_COMPLETED = {"order_id": "order-1", "checkout_id": "checkout-1", "total": 27.5, "subtotal": 22.5,
                   "revenue": 22.5, "discount": 2.5, "coupon": "hasbros", "currency": "USD",
                   "products": [{"product_id": "sku-1", "name": "Mug", "price": 12.5, "quantity": 1},
                                {"product_id": "sku-2", "sku": "S-2", "price": 5, "quantity": 2}]}


# ------------------------------------------------------------------------------------------------
# Segment: accepted calls
# ------------------------------------------------------------------------------------------------
def test_valid_segment_batch_is_answered_200_success(collector):
    batch = {"batch": [track("Product Added", PRODUCT_ADDED), track("Order Completed", ORDER_COMPLETED),
                       {**track("x"), "type": "screen", "name": "Onboarding First", "properties": {"step": 1}},
                       {**track("x"), "type": "identify", "userId": "user-1", "traits": {"plan": "free"}}],
             "sentAt": now_iso()}
    for message in batch["batch"][2:]:
        del message["event"]
    status, _, body = collector.segment("/v1/batch", batch)
    assert (status, body) == (200, {"success": True})
    record = collector.last_record()
    assert record["vendor"] == "segment" and record["status"] == 200
    assert record["dropped"] == [] and record["warnings"] == [] and record["duplicate"] == []
    assert record["accepted"] == [f"batch[{index}]" for index in range(4)]
    assert record["headers"]["Authorization"] == {"scheme": "Basic", "user": WRITE_KEY, "colon": True,
                                                  "password_empty": True}
    assert record["body"] == batch


@pytest.mark.parametrize("path,message", [
    ("/v1/track", track("Signed In", {"username": "pgibbons"})),
    ("/v1/screen", {k: v for k, v in track("x", type="screen").items() if k not in ("event", "properties")}),
    ("/v1/page", {**{k: v for k, v in track("x").items() if k != "event"}, "type": "page", "name": "Home"}),
    ("/v1/identify", {**{k: v for k, v in track("x").items() if k not in ("event", "properties")},
                      "type": "identify", "userId": "user-1", "traits": {"email": "x@example.com"}}),
])
def test_single_calls_are_accepted(collector, path, message):
    status, _, body = collector.segment(path, message)
    assert (status, body) == (200, {"success": True})
    assert collector.last_record()["warnings"] == [] and collector.last_record()["dropped"] == []


def test_screen_name_is_optional_but_must_be_a_string_when_present(collector):
    screen = {k: v for k, v in track("x").items() if k not in ("event", "properties")}
    assert collector.segment("/v1/screen", {**screen, "type": "screen"})[0] == 200
    assert collector.last_record()["dropped"] == []
    collector.segment("/v1/screen", {**screen, "type": "screen", "name": "", "messageId": str(uuid.uuid4())})
    assert codes(collector.last_record()["dropped"]) == ["name_not_string"]


def test_write_key_in_the_body_is_accepted(collector):
    status, _, _ = collector.segment("/v1/batch", {"batch": [track("Signed In")], "writeKey": WRITE_KEY}, key=None)
    assert status == 200
    assert collector.last_record()["auth"] == {"verdict": "ok", "sources": ["body"]}


def test_basic_auth_without_the_colon_works_with_a_warning(collector):
    header = {"Authorization": "Basic " + base64.b64encode(WRITE_KEY.encode()).decode()}
    status, _, _ = collector.segment("/v1/batch", {"batch": [track("Signed In")]}, key=None, headers=header)
    assert status == 200
    assert codes(collector.last_record()["warnings"]) == ["basic_auth_without_colon"]


def test_gzip_bodies_are_read(collector):
    raw = gzip.compress(json.dumps({"batch": [track("Signed In")]}).encode())
    status, _, _ = collector.segment("/v1/batch", None, headers={"Content-Encoding": "gzip"}, raw=raw)
    assert status == 200 and collector.last_record()["accepted"] == ["batch[0]"]


# ------------------------------------------------------------------------------------------------
# Segment: authentication
# ------------------------------------------------------------------------------------------------
def test_missing_write_key_is_401(collector):
    status, headers, body = collector.segment("/v1/batch", {"batch": [track("Signed In")]}, key=None)
    assert status == 401 and body["code"] == "missing_write_key"
    assert headers["WWW-Authenticate"].startswith("Basic")
    assert collector.last_record()["status"] == 401


def test_wrong_write_key_is_401(collector):
    status, _, body = collector.segment("/v1/track", track("Signed In"), key="someone-else")
    assert (status, body["code"]) == (401, "invalid_write_key")


def test_observed_auth_mode_answers_like_api_segment_io(fresh):
    server = fresh("--segment-auth-mode", "observed")
    assert server.segment("/v1/batch", {"batch": [track("Signed In")]}, key=None)[:1] == (400,)
    status, _, body = server.segment("/v1/batch", {"batch": [track("Signed In")]}, key="unknown-key")
    assert (status, body) == (200, {"success": True})
    record = server.last_record()
    assert codes(record["dropped"]) == ["invalid_write_key"] and record["accepted"] == []
    assert server.stats()["segment"]["messages_dropped"] == 1


def test_auth_mode_none_takes_calls_without_a_key_and_warns(fresh):
    server = fresh("--segment-auth-mode", "none")
    assert server.segment("/v1/batch", {"batch": [track("Signed In")]}, key=None)[0] == 200
    record = server.last_record()
    assert codes(record["warnings"]) == ["missing_write_key"] and record["accepted"] == ["batch[0]"]
    assert server.control(strict=True)[0] == 200
    assert server.segment("/v1/batch", {"batch": [track("Signed In")]}, key=None)[0] == 400


# ------------------------------------------------------------------------------------------------
# Segment: sizes and JSON
# ------------------------------------------------------------------------------------------------
def padded(size: int) -> dict:
    """A track message whose compact JSON is exactly `size` bytes."""
    message = track("Signed In", {"padding": ""})
    base = len(json.dumps(message, separators=(",", ":")).encode())
    message["properties"]["padding"] = "x" * (size - base)
    assert len(json.dumps(message, separators=(",", ":")).encode()) == size
    return message


def test_a_600_kb_batch_is_400(collector):
    batch = {"batch": [padded(30_000) for _ in range(20)]}  # 20 × 30 kB = 600 kB
    status, _, body = collector.segment("/v1/batch", batch)
    assert (status, body["success"], body["code"]) == (400, False, "payload_too_large")
    record = collector.last_record()
    assert record["status"] == 400 and record["body_bytes"] > 500 * 1024 and "body" not in record


def test_a_40_kb_message_is_400_alone_and_in_a_batch(collector):
    status, _, body = collector.segment("/v1/track", padded(40_000))
    assert (status, body["code"]) == (400, "payload_too_large")
    status, _, body = collector.segment("/v1/batch", {"batch": [track("Signed In"), padded(40_000)]})
    assert (status, body["code"]) == (400, "message_too_large")
    assert "batch[1]" in body["message"]


def test_the_message_limit_is_32_kib(collector):
    assert collector.segment("/v1/batch", {"batch": [padded(32 * 1024)]})[0] == 200
    assert collector.segment("/v1/batch", {"batch": [padded(32 * 1024 + 1)]})[0] == 400


@pytest.mark.parametrize("raw", [b"{\"batch\": [", b"{\"batch\": [NaN]}", b"\xff\xfe", b"[]"])
def test_invalid_json_is_400(collector, raw):
    status, _, body = collector.segment("/v1/batch", None, raw=raw)
    assert (status, body["code"]) == (400, "invalid_json")


# ------------------------------------------------------------------------------------------------
# Segment: required fields (Segment answers 200 and drops the message; --strict answers 400)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("change,code", [
    ({"anonymousId": None}, "no_user_anon_id"),
    ({"anonymousId": ""}, "id_not_string"),
    ({"anonymousId": 42}, "id_not_string"),
    ({"event": None}, "event_not_defined"),
    ({"event": 7}, "event_not_string"),
    ({"type": "click"}, "invalid_type"),
    ({"properties": []}, "properties_not_object"),
    ({"messageId": "m" * 101}, "message_id_too_long"),
])
def test_messages_segment_would_drop_are_answered_200_and_recorded(collector, change, code):
    message = {key: value for key, value in {**track("Signed In"), **change}.items() if value is not None}
    status, _, body = collector.segment("/v1/batch", {"batch": [message]})
    assert (status, body) == (200, {"success": True})
    record = collector.last_record()
    assert code in codes(record["dropped"]) and record["accepted"] == []


@pytest.mark.parametrize("path,message,code", [
    ("/v1/group", {"type": "group", "userId": "user-1", "traits": {"name": "Initech"}}, "group_id_required"),
    ("/v1/alias", {"type": "alias", "userId": "user-1"}, "id_required"),
    ("/v1/identify", {"type": "identify", "userId": "user-1", "traits": "plan=free"}, "traits_not_object"),
])
def test_group_alias_and_identify_requirements(collector, path, message, code):
    message = {**message, "messageId": str(uuid.uuid4()), "timestamp": now_iso(), "sentAt": now_iso(), "context": LIBRARY}
    assert collector.segment(path, message)[0] == 200
    assert codes(collector.last_record()["dropped"]) == [code]


def test_a_content_type_other_than_json_is_a_warning(collector):
    raw = json.dumps({"batch": [track("Signed In")]}).encode()
    status, _, _ = collector.request("POST", "/v1/batch", raw, {
        "Content-Type": "text/plain", "Authorization": "Basic " + base64.b64encode(f"{WRITE_KEY}:".encode()).decode()})
    assert status == 200
    assert codes(collector.last_record()["warnings"]) == ["content_type"]


def test_an_empty_batch_is_recorded_as_dropped(collector):
    assert collector.segment("/v1/batch", {"batch": []})[0] == 200
    assert codes(collector.last_record()["dropped"]) == ["empty_batch"]


def test_missing_recommended_fields_are_warnings(collector):
    message = {"type": "track", "event": "Signed In", "userId": "user-1"}
    assert collector.segment("/v1/batch", {"batch": [message]})[0] == 200
    record = collector.last_record()
    assert sorted(codes(record["warnings"])) == ["missing_context_library", "missing_message_id",
                                                  "missing_sent_at", "missing_timestamp"]
    assert record["accepted"] == ["batch[0]"]


def test_batch_level_sent_at_and_context_count_for_every_message(collector):
    message = {k: v for k, v in track("Signed In").items() if k not in ("sentAt", "context")}
    batch = {"batch": [message], "sentAt": now_iso(), "context": LIBRARY}
    assert collector.segment("/v1/batch", batch)[0] == 200
    assert collector.last_record()["warnings"] == []


@pytest.mark.parametrize("value,code", [
    ("2024-13-01T00:00:00Z", "timestamp_not_iso8601"),
    ("2024-01-01 00:00:00", "timestamp_not_iso8601"),
    ("2024-01-01T00:00:00", "timestamp_not_iso8601"),
    (1_700_000_000, "timestamp_not_iso8601"),
    ("2024-01-01T02:00:00+02:00", "timestamp_not_utc"),
])
def test_timestamps_must_be_iso_8601_utc(collector, value, code):
    assert collector.segment("/v1/track", track("Signed In", timestamp=value))[0] == 200
    assert codes(collector.last_record()["warnings"]) == [code]


def test_duplicate_message_ids_are_recorded_and_not_accepted_twice(collector):
    message = track("Product Added", PRODUCT_ADDED)
    before = collector.stats()["segment"]
    assert collector.segment("/v1/batch", {"batch": [message]})[0] == 200
    assert collector.segment("/v1/batch", {"batch": [message]})[0] == 200
    record = collector.last_record()
    assert record["duplicate"] == [{"path": "batch[0]", "messageId": message["messageId"]}]
    assert record["accepted"] == []
    after = collector.stats()["segment"]
    assert after["messages_accepted"] - before["messages_accepted"] == 1
    assert after["duplicates"] - before["duplicates"] == 1


# ------------------------------------------------------------------------------------------------
# Segment: the ecommerce v2, mobile and B2B SaaS specs
# ------------------------------------------------------------------------------------------------
def test_a_wrongly_typed_spec_property_is_a_warning(collector):
    message = track("Product Added", {**PRODUCT_ADDED, "price": "12.50"})
    status, _, body = collector.segment("/v1/batch", {"batch": [message]})
    assert (status, body) == (200, {"success": True})
    record = collector.last_record()
    assert [(item["code"], item["path"]) for item in record["warnings"]] == [
        ("spec_property_type", "batch[0].properties.price")]
    assert record["warnings"][0]["source"].startswith("https://segment.com/docs/connections/spec/ecommerce/v2/")
    assert record["accepted"] == ["batch[0]"]


def test_a_wrongly_typed_spec_property_is_400_in_strict_mode(fresh):
    server = fresh("--strict")
    good = track("Product Added", PRODUCT_ADDED)
    assert server.segment("/v1/batch", {"batch": [good]}) [:3:2] == (200, {"success": True})
    bad = track("Product Added", {**PRODUCT_ADDED, "quantity": "2"})
    status, _, body = server.segment("/v1/batch", {"batch": [bad]})
    assert (status, body["code"]) == (400, "strict_mode")
    assert [(item["code"], item["path"]) for item in body["problems"]] == [
        ("spec_property_type", "batch[0].properties.quantity")]
    assert server.last_record()["strict"] is True
    # A message refused in strict mode was not taken: sent again, fixed, it is no duplicate.
    bad["properties"]["quantity"] = 2
    assert server.segment("/v1/batch", {"batch": [bad]})[0] == 200
    assert server.last_record()["duplicate"] == []


def test_strict_mode_refuses_what_segment_would_drop_but_not_duplicates(fresh):
    server = fresh("--strict")
    assert server.segment("/v1/batch", {"batch": [track("Signed In", anonymousId="")]})[0] == 400
    message = track("Signed In")
    assert server.segment("/v1/batch", {"batch": [message]})[0] == 200
    assert server.segment("/v1/batch", {"batch": [message]})[0] == 200  # a retry: Segment dedupes
    assert server.last_record()["duplicate"] != []


def test_strict_mode_can_be_switched_at_runtime(collector):
    bad = track("Coupon Applied", {"coupon_id": "MAY", "discount": "10%"})
    assert collector.control(strict=True)[0] == 200
    try:
        assert collector.segment("/v1/track", bad)[0] == 400
    finally:
        assert collector.control(strict=False)[2]["faults"]["strict"] is False
    assert collector.segment("/v1/track", bad)[0] == 200


@pytest.mark.parametrize("event,properties,expected", [
    ("Order Completed", {**ORDER_COMPLETED, "total": "27.50"}, [("spec_property_type", "properties.total")]),
    ("Order Completed", {**ORDER_COMPLETED, "products": [{"product_id": "a", "price": "1"}]},
     [("spec_property_type", "properties.products[0].price")]),
    ("Order Completed", {**ORDER_COMPLETED, "products": [{"name": "Mug", "quantity": 1}]},
     [("spec_property_missing", "properties.products[0].product_id")]),
    ("Order Completed", {k: v for k, v in ORDER_COMPLETED.items() if k != "order_id"},
     [("spec_property_missing", "properties.order_id")]),
    ("Order Completed", {**ORDER_COMPLETED, "currency": "usd"}, [("spec_property_format", "properties.currency")]),
    ("Checkout Started", {"value": 30, "currency": "USD"}, [("spec_property_missing", "properties.products")]),
    ("Product Added", {"name": "Mug", "price": 1}, [("spec_property_missing", "properties.product_id")]),
    ("Product Removed", {"product_id": "a", "quantity": 1.5}, [("quantity_not_integer", "properties.quantity")]),
    ("Coupon Applied", {"coupon_id": "MAY", "discount": "10%"}, [("spec_property_type", "properties.discount")]),
    ("Coupon Removed", {"cart_id": "c"}, [("spec_property_missing", "properties.coupon_id")]),
    ("Application Opened", {"from_background": "no", "version": "1.0", "build": 12},
     [("spec_property_type", "properties.from_background"), ("spec_property_type", "properties.build")]),
    ("Signed Up", {"type": "organic", "username": 12}, [("spec_property_type", "properties.username")]),
    ("Signed In", {"username": ["x"]}, [("spec_property_type", "properties.username")]),
    ("Payment Failed", {"reason": "declined", "revenue": "0"}, [("spec_property_type", "properties.revenue")]),
    ("Payment Failed", {"reason": "declined", "price": "anything"}, []),  # custom event: only reserved props
])
def test_spec_event_properties(collector, event, properties, expected):
    assert collector.segment("/v1/track", track(event, properties))[0] == 200
    warnings = collector.last_record()["warnings"]
    assert [(item["code"], item["path"].removeprefix("body.")) for item in warnings] == expected


def test_a_complete_ecommerce_flow_has_no_warnings(collector):
    products = ORDER_COMPLETED["products"]
    batch = {"batch": [
        track("Application Opened", {"from_background": False, "version": "1.0", "build": "12"}),
        track("Product Added", PRODUCT_ADDED),
        track("Product Removed", {"cart_id": "cart-1", "product_id": "sku-1", "quantity": 1, "price": 12.5}),
        track("Coupon Applied", {"cart_id": "cart-1", "coupon_id": "MAY", "coupon_name": "May", "discount": 2.5}),
        track("Coupon Removed", {"cart_id": "cart-1", "coupon_id": "MAY"}),
        track("Cart Viewed", {"cart_id": "cart-1", "products": products}),
        track("Checkout Started", {"order_id": "order-1", "value": 30, "revenue": 25, "currency": "USD",
                                   "products": products}),
        track("Order Completed", ORDER_COMPLETED),
        track("Signed Up", {"type": "organic"}),
        track("Signed In", {"username": "pgibbons"}),
    ]}
    assert collector.segment("/v1/batch", batch)[0] == 200
    record = collector.last_record()
    assert record["warnings"] == [] and record["dropped"] == [] and len(record["accepted"]) == 10


# ------------------------------------------------------------------------------------------------
# GA4 Measurement Protocol
# ------------------------------------------------------------------------------------------------
PURCHASE = {"name": "purchase", "params": {
    "transaction_id": "T_12345", "value": 30.03, "currency": "USD", "tax": 1.2, "shipping": 3, "coupon": "SUMMER",
    "session_id": "1700000000", "engagement_time_msec": 100,
    "items": [{"item_id": "sku-1", "item_name": "Mug", "price": 10.01, "quantity": 3, "coupon": "SUMMER_FUN",
               "discount": 2.22, "index": 0, "item_category": "Kitchen"}]}}


def ga4_body(*events, **fields) -> dict:
    return {"client_id": "123456.7654321", "timestamp_micros": now_micros(), "events": list(events), **fields}


def test_a_valid_purchase_has_no_validation_messages(collector):
    status, headers, body = collector.ga4(ga4_body(PURCHASE, user_id="user-1"))
    assert (status, body) == (200, {"validationMessages": []})
    assert headers["Content-Type"] == "application/json"
    record = collector.last_record()
    assert record["vendor"] == "ga4" and record["request_problems"] == [] and record["validationMessages"] == []


def test_the_production_endpoint_answers_204_with_no_body(collector):
    status, _, body = collector.ga4(ga4_body(PURCHASE), debug=False)
    assert (status, body) == (204, None)
    assert collector.last_record()["silently_dropped"] is False


@pytest.mark.parametrize("events", [
    [{"name": "login", "params": {"method": "Google"}}],
    [{"name": "sign_up", "params": {"method": "email"}}],
    [{"name": "tutorial_begin"}, {"name": "tutorial_complete", "params": {}}],
    [{"name": "add_to_cart", "params": {"currency": "USD", "value": 25.0,
                                        "items": [{"item_id": "sku-1", "price": 12.5, "quantity": 2}]}}],
    [{"name": "remove_from_cart", "params": {"currency": "USD", "value": 12.5,
                                             "items": [{"item_name": "Mug", "price": 12.5, "quantity": 1}]}}],
    [{"name": "begin_checkout", "params": {"currency": "USD", "value": 25.0, "coupon": "MAY",
                                           "items": [{"item_id": "sku-1", "price": 12.5, "quantity": 2}]}}],
    [{"name": "select_content", "params": {"content_type": "tab", "content_id": "2"}}],
    [{"name": "coupon_applied", "params": {"coupon": "MAY", "discount_percent": 10}}],
    [{"name": "e" * 40, "params": {"p" * 40: "v" * 100}}],
])
def test_recommended_and_custom_events_that_follow_the_rules_pass(collector, events):
    assert collector.ga4(ga4_body(*events))[2] == {"validationMessages": []}


def test_26_events_are_too_many(collector):
    body = collector.ga4(ga4_body(*[{"name": "tutorial_begin"}] * 26))[2]
    assert validation_codes(body) == [("events", "EXCEEDED_MAX_ENTITIES")]
    assert collector.ga4(ga4_body(*[{"name": "tutorial_begin"}] * 25))[2] == {"validationMessages": []}


# The Measurement Protocol reference's reserved event names (#reserved_names), typed here from the
# source rather than from the collector, plus the app-stream-only three and the reserved prefixes.
RESERVED_EVENT_NAMES = """ad_activeview ad_click ad_exposure ad_query ad_reward adunit_exposure app_clear_data
app_exception app_install app_remove app_store_refund app_update app_upgrade dynamic_link_app_open
dynamic_link_app_update dynamic_link_first_open error firebase_campaign firebase_in_app_message_action
firebase_in_app_message_dismiss firebase_in_app_message_impression first_open first_visit notification_dismiss
notification_foreground notification_open notification_receive notification_send os_update session_start
user_engagement ad_impression in_app_purchase screen_view firebase_custom google_thing ga_thing""".split()


@pytest.mark.parametrize("name", RESERVED_EVENT_NAMES)
def test_reserved_event_names(collector, name):
    body = collector.ga4(ga4_body({"name": name}))[2]
    assert validation_codes(body) == [("events[0].name", "NAME_RESERVED")]


@pytest.mark.parametrize("name", ["e" * 41, "1st_event", "add-to-cart", "Product Added", "_private", ""])
def test_invalid_event_names(collector, name):
    body = collector.ga4(ga4_body({"name": name}))[2]
    expected = "VALUE_REQUIRED" if name == "" else "NAME_INVALID"
    assert [code for path, code in validation_codes(body) if path == "events[0].name"][0] == expected


def test_a_41_character_name_is_reported_with_its_length(collector):
    body = collector.ga4(ga4_body({"name": "e" * 41}))[2]
    assert body["validationMessages"] == [{"fieldPath": "events[0].name", "validationCode": "NAME_INVALID",
                                           "description": f"Event name [{'e' * 41}] has 41 characters; the limit is 40"}]


@pytest.mark.parametrize("params,expected", [
    ({"google_flag": 1}, [("events[0].params.google_flag", "NAME_RESERVED")]),
    ({"firebase_conversion": 1}, [("events[0].params.firebase_conversion", "NAME_RESERVED")]),
    ({"ga_x": 1}, [("events[0].params.ga_x", "NAME_RESERVED")]),
    ({"p" * 41: 1}, [("events[0].params." + "p" * 41, "NAME_INVALID")]),
    ({"bad-name": 1}, [("events[0].params.bad-name", "NAME_INVALID")]),
    ({"note": "v" * 101}, [("events[0].params.note", "VALUE_OUT_OF_BOUNDS")]),
    ({"page_title": "t" * 300}, []),
    ({"page_title": "t" * 301}, [("events[0].params.page_title", "VALUE_OUT_OF_BOUNDS")]),
    ({"nested": {"a": 1}}, [("events[0].params.nested", "VALUE_INVALID")]),
    ({f"p{index}": index for index in range(26)}, [("events[0].params", "EXCEEDED_MAX_ENTITIES")]),
    ({"session_id": "abc"}, [("events[0].params.session_id", "VALUE_INVALID")]),
])
def test_parameter_rules(collector, params, expected):
    body = collector.ga4(ga4_body({"name": "level_up", "params": params}))[2]
    assert validation_codes(body) == expected


def test_duplicated_parameter_names(collector):
    raw = (b'{"client_id":"1.2","events":[{"name":"level_up","params":{"level":1,"level":2}}]}')
    body = collector.ga4(None, raw=raw)[2]
    assert validation_codes(body) == [("events[0].params.level", "NAME_DUPLICATED")]


@pytest.mark.parametrize("change,expected", [
    ({"transaction_id": None}, [("events[0].params.transaction_id", "VALUE_REQUIRED")]),
    ({"transaction_id": ""}, [("events[0].params.transaction_id", "VALUE_INVALID")]),
    ({"currency": None}, [("events[0].params.currency", "VALUE_REQUIRED")]),
    ({"currency": "usd"}, [("events[0].params.currency", "VALUE_INVALID")]),
    ({"value": "30.03"}, [("events[0].params.value", "VALUE_INVALID")]),
    ({"value": None}, [("events[0].params.value", "VALUE_REQUIRED")]),
    ({"items": None}, [("events[0].params.items", "VALUE_REQUIRED")]),
    ({"items": [{"price": 1, "quantity": 1}]}, [("events[0].params.items[0]", "VALUE_REQUIRED")]),
    ({"items": [{"item_id": "a", "price": "1"}]}, [("events[0].params.items[0].price", "VALUE_INVALID")]),
    ({"items": [{"item_id": "a", "item_name": "n" * 101}]}, [("events[0].params.items[0].item_name", "VALUE_OUT_OF_BOUNDS")]),
    ({"items": [{"item_id": str(index)} for index in range(201)]}, [("events[0].params.items", "EXCEEDED_MAX_ENTITIES")]),
    ({"items": [{"item_id": "a", **{f"c{index}": 1 for index in range(11)}}]},
     [("events[0].params.items[0]", "EXCEEDED_MAX_ENTITIES")]),
])
def test_purchase_parameters(collector, change, expected):
    params = {key: value for key, value in {**PURCHASE["params"], **change}.items() if value is not None}
    body = collector.ga4(ga4_body({"name": "purchase", "params": params}))[2]
    assert validation_codes(body) == expected


@pytest.mark.parametrize("name", ["add_to_cart", "remove_from_cart", "begin_checkout", "view_cart"])
def test_ecommerce_events_need_items_value_and_currency(collector, name):
    body = collector.ga4(ga4_body({"name": name, "params": {"value": 3}}))[2]
    assert validation_codes(body) == [(f"events[0].params.currency", "VALUE_REQUIRED"),
                                      (f"events[0].params.items", "VALUE_REQUIRED")]


@pytest.mark.parametrize("body,expected", [
    ({"events": [{"name": "tutorial_begin"}]}, [("client_id", "VALUE_REQUIRED")]),
    ({"client_id": 12, "events": [{"name": "tutorial_begin"}]}, [("client_id", "VALUE_INVALID")]),
    ({"client_id": "1.2"}, [("events", "VALUE_REQUIRED")]),
    ({"client_id": "1.2", "events": []}, [("events", "VALUE_REQUIRED")]),
    ({"client_id": "1.2", "events": [{"name": "tutorial_begin"}], "user_id": "u" * 257}, [("user_id", "VALUE_OUT_OF_BOUNDS")]),
    ({"client_id": "1.2", "events": [{"name": "tutorial_begin"}], "validation_behavior": "STRICT"},
     [("validation_behavior", "VALUE_INVALID")]),
    ({"client_id": "1.2", "events": [{"name": "tutorial_begin"}],
      "user_properties": {"plan": {"value": "p" * 37}, "first_open_time": {"value": 1}, "u" * 25: {"value": 1}}},
     [("user_properties.plan.value", "VALUE_OUT_OF_BOUNDS"), ("user_properties.first_open_time", "NAME_RESERVED"),
      ("user_properties." + "u" * 25, "NAME_INVALID")]),
])
def test_body_fields(collector, body, expected):
    assert validation_codes(collector.ga4(body)[2]) == expected


@pytest.mark.parametrize("delta,expected", [
    (timedelta(hours=-71), []),
    (timedelta(hours=-73), [("timestamp_micros", "VALUE_OUT_OF_BOUNDS")]),
    (timedelta(hours=1), [("timestamp_micros", "VALUE_INVALID")]),
])
def test_timestamp_micros_may_be_up_to_72_hours_old(collector, delta, expected):
    body = ga4_body({"name": "tutorial_begin"}, timestamp_micros=now_micros(delta))
    assert validation_codes(collector.ga4(body)[2]) == expected


def test_timestamp_micros_in_milliseconds_is_caught(collector):
    body = ga4_body({"name": "tutorial_begin"}, timestamp_micros=now_micros() // 1000)
    assert validation_codes(collector.ga4(body)[2]) == [("timestamp_micros", "VALUE_OUT_OF_BOUNDS")]


def test_a_body_of_130_kb_is_too_large(collector):
    event = {"name": "level_up", "params": {f"p{index}": "v" * 100 for index in range(25)}}
    body = ga4_body(*[event] * 25)
    body["pad"] = "x" * (130_000 - len(json.dumps(body)))
    assert validation_codes(collector.ga4(body)[2]) == [("", "VALUE_OUT_OF_BOUNDS")]
    assert collector.ga4(body, debug=False)[0] == 204


def test_invalid_json_gets_a_message_from_the_debug_endpoint_and_204_from_production(collector):
    assert validation_codes(collector.ga4(None, raw=b"{nope")[2]) == [("", "VALUE_INVALID")]
    status, _, body = collector.ga4(None, debug=False, raw=b"{nope")
    assert (status, body) == (204, None)
    assert collector.last_record()["silently_dropped"] is True


def test_wrong_credentials_are_204_on_production_and_recorded(collector):
    status, _, body = collector.ga4(ga4_body(PURCHASE), debug=False, api_secret="wrong")
    assert (status, body) == (204, None)
    record = collector.last_record()
    assert codes(record["request_problems"]) == ["wrong_api_secret"] and record["silently_dropped"] is True
    status, _, body = collector.ga4(ga4_body(PURCHASE), debug=False, measurement_id="")
    assert status == 204 and codes(collector.last_record()["request_problems"]) == ["missing_measurement_id"]


def test_a_ga4_content_type_other_than_json_is_recorded(collector):
    path = f"/debug/mp/collect?measurement_id={MEASUREMENT_ID}&api_secret={API_SECRET}"
    status, _, body = collector.request("POST", path, json.dumps(ga4_body(PURCHASE)).encode(), {"Content-Type": "text/plain"})
    assert (status, body) == (200, {"validationMessages": []})
    assert codes(collector.last_record()["request_problems"]) == ["content_type"]


def test_the_debug_endpoint_does_not_check_credentials_but_records_them(collector):
    status, _, body = collector.ga4(ga4_body(PURCHASE), api_secret="wrong")
    assert (status, body) == (200, {"validationMessages": []})
    assert codes(collector.last_record()["request_problems"]) == ["wrong_api_secret"]


def test_a_repeated_transaction_id_is_recorded(collector):
    purchase = {"name": "purchase", "params": {**PURCHASE["params"], "transaction_id": str(uuid.uuid4())}}
    collector.ga4(ga4_body(purchase), debug=False)
    collector.ga4(ga4_body(purchase), debug=False)
    assert collector.last_record()["duplicate_transactions"] == [purchase["params"]["transaction_id"]]


def test_get_is_405_and_unknown_paths_404(collector):
    assert collector.request("GET", "/mp/collect")[0] == 405
    assert collector.request("GET", "/v1/batch")[1]["Allow"] == "POST"
    assert collector.request("POST", "/v2/batch", b"{}")[0] == 404


# ------------------------------------------------------------------------------------------------
# Faults
# ------------------------------------------------------------------------------------------------
def test_throttle_answers_429_with_retry_after(fresh):
    server = fresh("--throttle", "2")
    status, headers, _ = server.segment("/v1/batch", {"batch": [track("Signed In")]})
    assert status == 429 and headers["Retry-After"] == "1" and headers["X-RateLimit-Reset"] == "1"
    status, headers, _ = server.ga4(ga4_body(PURCHASE), debug=False)
    assert status == 429 and headers["Retry-After"] == "1"
    assert server.segment("/v1/batch", {"batch": [track("Signed In")]})[0] == 200
    assert [record["status"] for record in server.records()] == [429, 429, 200]
    assert server.stats()["faults"]["throttle"] == 2


def test_fail_answers_500_and_a_retry_is_no_duplicate(fresh):
    server = fresh("--fail", "2")
    batch = {"batch": [track("Order Completed", ORDER_COMPLETED)]}
    assert [server.segment("/v1/batch", batch)[0] for _ in range(3)] == [500, 500, 200]
    record = server.last_record()
    assert record["accepted"] == ["batch[0]"] and record["duplicate"] == []
    assert [record.get("fault") for record in server.records()] == ["fail", "fail", None]


def test_reset_closes_the_connection_without_an_answer(fresh):
    server = fresh("--reset", "1")
    batch = {"batch": [track("Signed In")]}
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)):
        server.segment("/v1/batch", batch)
    assert server.segment("/v1/batch", batch)[0] == 200
    first, second = server.records()
    assert (first["fault"], first["status"]) == ("reset", None)
    assert second["accepted"] == ["batch[0]"]  # the reset request was not taken: no duplicate
    assert server.stats()["by_status"] == {"no answer": 1, "200": 1}


def test_slow_delays_each_answer(fresh):
    server = fresh("--slow", "0.4")
    started = time.monotonic()
    assert server.segment("/v1/track", track("Signed In"))[0] == 200
    assert server.ga4(ga4_body(PURCHASE))[0] == 200
    assert time.monotonic() - started >= 0.8
    started = time.monotonic()
    server.stats()  # the control endpoints are not slowed
    assert time.monotonic() - started < 0.4


def test_a_slow_answer_outlasts_a_client_timeout(fresh):
    server = fresh("--slow", "1.5")
    with pytest.raises(TimeoutError):
        server.request("POST", "/v1/track", json.dumps(track("Signed In")).encode(),
                       {"Content-Type": "application/json"}, timeout=0.3)


def test_faults_can_be_set_at_runtime(collector):
    status, _, body = collector.control(throttle=1, fail=1)
    assert status == 200 and body["faults"]["throttle"] == 1 and body["faults"]["fail"] == 1
    batch = {"batch": [track("Signed In")]}
    assert [collector.segment("/v1/batch", batch)[0] for _ in range(3)] == [429, 500, 200]
    assert collector.stats()["faults_remaining"]["throttle"] == 0


@pytest.mark.parametrize("settings", [{"fail": -1}, {"throttle": "2"}, {"slow": -1}, {"strict": 1}, {"bogus": 1}])
def test_bad_control_requests_are_400(collector, settings):
    assert collector.control(**settings)[0] == 400


def test_stats_count_requests_and_can_be_reset(fresh):
    server = fresh()
    server.segment("/v1/batch", {"batch": [track("Signed In"), track("Signed In", anonymousId=None)]})
    server.ga4(ga4_body({"name": "screen_view"}))
    stats = server.stats()
    assert stats["requests"] == 2 and stats["by_vendor"] == {"segment": 1, "ga4": 1}
    assert stats["segment"]["messages_accepted"] == 1 and stats["segment"]["messages_dropped"] == 1
    assert stats["ga4"]["validation_messages"] == 1 and stats["ga4"]["events_with_problems"] == 1
    assert server.control(reset_stats=True)[0] == 200
    assert server.stats()["requests"] == 0


# ------------------------------------------------------------------------------------------------
# Command line
# ------------------------------------------------------------------------------------------------
def test_sigterm_stops_the_server_with_status_0(tmp_path):
    server = Collector(tmp_path)
    assert server.request("GET", "/_stats")[0] == 200
    started = time.monotonic()
    assert server.stop() == 0
    assert time.monotonic() - started < 3


def test_without_configured_keys_any_key_is_accepted_but_one_is_needed(fresh):
    server = fresh(keys=False)
    assert server.segment("/v1/track", track("Signed In"), key="whatever")[0] == 200
    assert server.segment("/v1/track", track("Signed In"), key=None)[0] == 401
    assert server.ga4(ga4_body(PURCHASE), measurement_id="G-ANY", api_secret="any")[2] == {"validationMessages": []}
    assert server.last_record()["request_problems"] == []


@pytest.mark.parametrize("flags", [["--fail", "-1"], ["--slow", "-2"], ["--ga4-measurement-id", "G-1"], ["--nope"]])
def test_bad_flags_exit_2(flags):
    result = subprocess.run([sys.executable, str(SCRIPT), *flags], capture_output=True, text=True, timeout=10)
    assert result.returncode == 2 and result.stdout == ""
