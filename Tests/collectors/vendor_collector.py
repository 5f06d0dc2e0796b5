#!/usr/bin/env python3
"""A loopback stand-in for Segment's HTTP Tracking API and GA4's Measurement Protocol, for FlowLog's
tests: it checks each request against the vendors' published rules, answers as the vendor does (or
stricter, where this file says so), records every request, and injects faults on demand.

    python3 vendor_collector.py [--segment-write-key KEY] [--ga4-measurement-id ID --ga4-api-secret SECRET]
                                [--record FILE] [--strict] [--segment-auth-mode fixture|observed|none]
                                [--fail N] [--throttle N] [--slow SECONDS] [--reset N]

It listens on 127.0.0.1 at a free port, prints the port as its first line of stdout, and serves until
SIGTERM or SIGINT. Standard library only. Tests/collectors/README.md lists every rule with its source.

Endpoints
  POST /v1/batch, /v1/track, /v1/identify, /v1/screen, /v1/page, /v1/group, /v1/alias   (Segment)
  POST /mp/collect?measurement_id=…&api_secret=…        (GA4, production: always 204)
  POST /debug/mp/collect?measurement_id=…&api_secret=…  (GA4, validation server: 200 + validationMessages)
  POST /_control   {"fail":N,"throttle":N,"reset":N,"slow":S,"strict":B,"reset_stats":B,"forget_ids":B}
  GET  /_stats     counters

Where the vendors leave a behaviour undocumented, the choice made here is marked "FIXTURE CHOICE".
"""
from __future__ import annotations

import argparse
import base64
import binascii
import gzip
import json
import math
import re
import signal
import socket
import struct
import sys
import threading
import time
import zlib
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

# ----------------------------------------------------------------------------------------------------
# Sources. Segment's docs are quoted from the segmentio/segment-docs repository (src/…), which is
# what https://segment.com/docs/… renders; GA4's from developers.google.com and support.google.com.
# ----------------------------------------------------------------------------------------------------
SEG_HTTP_API = "https://segment.com/docs/connections/sources/catalog/libraries/server/http-api/"
SEG_COMMON = "https://segment.com/docs/connections/spec/common/"
SEG_TRACK = "https://segment.com/docs/connections/spec/track/"
SEG_SCREEN = "https://segment.com/docs/connections/spec/screen/"
SEG_ECOMMERCE_V2 = "https://segment.com/docs/connections/spec/ecommerce/v2/"
SEG_MOBILE = "https://segment.com/docs/connections/spec/mobile/"
SEG_B2B_SAAS = "https://segment.com/docs/connections/spec/b2b-saas/"
SEG_DELIVERY_OVERVIEW = "https://segment.com/docs/connections/delivery-overview/"
SEG_WRITE_KEY_NOT_CHECKED = "https://github.com/segmentio/analytics-go/issues/205"
SEG_PY_LIMITS = "https://github.com/segmentio/analytics-python/blob/master/segment/analytics/consumer.py"

GA_REFERENCE = "https://developers.google.com/analytics/devguides/collection/protocol/ga4/reference?client_type=gtag"
GA_RESERVED = "https://developers.google.com/analytics/devguides/collection/protocol/ga4/reference#reserved_names"
GA_LIMITATIONS = "https://developers.google.com/analytics/devguides/collection/protocol/ga4/sending-events?client_type=gtag#limitations"
GA_VALIDATING = "https://developers.google.com/analytics/devguides/collection/protocol/ga4/validating-events?client_type=gtag"
GA_EVENTS = "https://developers.google.com/analytics/devguides/collection/ga4/reference/events"
GA_ECOMMERCE = "https://developers.google.com/analytics/devguides/collection/ga4/ecommerce"
GA_NAMING = "https://support.google.com/analytics/answer/13316687"
GA_COLLECTION_LIMITS = "https://support.google.com/analytics/answer/9267744"
FIREBASE_LOG_EVENT = ("https://firebase.google.com/docs/reference/android/com/google/firebase/analytics/"
                      "FirebaseAnalytics#logEvent(java.lang.String,%20android.os.Bundle)")

# ----------------------------------------------------------------------------------------------------
# Shared helpers
# ----------------------------------------------------------------------------------------------------
MAX_READ = 16 * 1024 * 1024  # FIXTURE CHOICE: bodies above this are refused with 413 and the connection closed.


class BadJSON(ValueError):
    pass


def _reject_constant(name: str):
    # NaN, Infinity and -Infinity are not JSON (RFC 8259 §6); Python's json accepts them unless told.
    raise BadJSON(f"{name} is not a JSON value")


def _pairs_keeping_duplicates(pairs):
    """An object hook that keeps the keys an object repeats (GA4 answers NAME_DUPLICATED for those)."""
    result = {}
    duplicated = []
    for key, value in pairs:
        if key in result:
            duplicated.append(key)
        result[key] = value
    if duplicated:
        return _DictWithDuplicates(result, duplicated)
    return result


class _DictWithDuplicates(dict):
    def __init__(self, items, duplicated):
        super().__init__(items)
        self.duplicated_keys = duplicated


def parse_json(raw: bytes):
    """Parses strict JSON (UTF-8, no NaN/Infinity); raises BadJSON with a reason."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadJSON(f"the body is not UTF-8 ({error.reason} at byte {error.start})") from None
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_pairs_keeping_duplicates)
    except json.JSONDecodeError as error:
        raise BadJSON(f"{error.msg} at line {error.lineno} column {error.colno}") from None


def compact_size(value) -> int:
    """Bytes of a value as compact UTF-8 JSON: how one message of a batch is sized (FIXTURE CHOICE:
    Segment does not say how it measures a message inside a batch; its Python library measures the
    serialized message, see SEG_PY_LIMITS)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def type_name(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


# Segment: "All timestamps are ISO-8601 date strings, and are in the UTC timezone." (SEG_COMMON#timestamps)
ISO_8601 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$")


def parse_iso8601(text: str):
    """A date-time with a zone designator, as datetime; None when it is not one."""
    match = ISO_8601.match(text)
    if not match:
        return None
    year, month, day, hour, minute, second = (int(group) for group in match.groups()[:6])
    fraction, zone = match.group(7), match.group(8)
    micro = int((fraction[1:] + "000000")[:6]) if fraction else 0
    if zone == "Z":
        offset = timezone.utc
    else:
        digits = zone[1:].replace(":", "")
        delta = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        offset = timezone(delta if zone[0] == "+" else -delta)
    try:
        return datetime(year, month, day, hour, minute, second, micro, tzinfo=offset)
    except ValueError:
        return None


def problem(code: str, path: str, message: str, source: str) -> dict:
    return {"code": code, "path": path, "message": message, "source": source}


# ----------------------------------------------------------------------------------------------------
# Segment HTTP Tracking API
# ----------------------------------------------------------------------------------------------------
SEGMENT_PATHS = {
    "/v1/batch": None, "/v1/track": "track", "/v1/identify": "identify", "/v1/screen": "screen",
    "/v1/page": "page", "/v1/group": "group", "/v1/alias": "alias",
}
# "Each call must have a type property with a valid method name." (SEG_HTTP_API#batch)
SEGMENT_TYPES = {"identify", "group", "track", "page", "screen", "alias"}
# "There is a maximum of 32KB per normal API request. The batch API endpoint accepts a maximum of
# 500KB per request, with a limit of 32KB per event in the batch. … Segment's API responds with
# 400 Bad Request if these limits are exceeded." (SEG_HTTP_API#max-request-size)
# KB read as 1,024 bytes, as Segment's own clients do (analytics-python MAX_MSG_SIZE = 32 << 10,
# SEG_PY_LIMITS; analytics-next sizes batches in bytes / 1024 against 500).
SEGMENT_MESSAGE_LIMIT = 32 * 1024
SEGMENT_BATCH_LIMIT = 500 * 1024
# "Each batch request can only have up to 2500 events … Segment returns a 200 response but rejects
# the event when the number of batched events exceeds the limit." (SEG_HTTP_API#errors)
SEGMENT_BATCH_MAX_EVENTS = 2500
# messageId: "This field is limited to 100 characters." (SEG_COMMON, spec-field-message-id)
SEGMENT_MESSAGE_ID_MAX = 100

S, N, B, A, O = "string", "number", "boolean", "array", "object"
STRING_OR_OBJECT = "string|object"

# Semantic properties of the spec events, with the types the spec tables give. Every property is
# optional in the spec; a present one of the wrong type is a warning.
_PRODUCT = {"product_id": S, "sku": S, "category": S, "name": S, "brand": S, "variant": S, "price": N,
            "quantity": N, "coupon": S, "position": N, "url": S, "image_url": S}
_ORDER = {"order_id": S, "affiliation": S, "total": N, "revenue": N, "shipping": N, "tax": N,
          "discount": N, "coupon": S, "currency": S, "products": A}
_CHECKOUT_STEP = {"checkout_id": S, "step": N, "shipping_method": S, "payment_method": S}
_COUPON = {"order_id": S, "cart_id": S, "coupon_id": S, "coupon_name": S}
_SHARE = {"share_via": S, "share_message": S, "recipient": S}

# (properties, source)
SEGMENT_SPEC_EVENTS: dict[str, tuple[dict, str]] = {
    # Ecommerce v2 (SEG_ECOMMERCE_V2)
    "Products Searched": ({"query": STRING_OR_OBJECT}, SEG_ECOMMERCE_V2 + "#products-searched"),
    "Product List Viewed": ({"list_id": S, "category": S, "products": A}, SEG_ECOMMERCE_V2 + "#product-list-viewed"),
    "Product List Filtered": ({"list_id": S, "category": S, "filters": A, "sorts": A, "products": A},
                              SEG_ECOMMERCE_V2 + "#product-list-filtered"),
    "Promotion Viewed": ({"promotion_id": S, "creative": S, "name": S, "position": S}, SEG_ECOMMERCE_V2 + "#promotion-viewed"),
    "Promotion Clicked": ({"promotion_id": S, "creative": S, "name": S, "position": S}, SEG_ECOMMERCE_V2 + "#promotion-clicked"),
    "Product Clicked": (dict(_PRODUCT), SEG_ECOMMERCE_V2 + "#product-clicked"),
    "Product Viewed": ({**_PRODUCT, "currency": S, "value": N}, SEG_ECOMMERCE_V2 + "#product-viewed"),
    "Product Added": ({"cart_id": S, **_PRODUCT}, SEG_ECOMMERCE_V2 + "#product-added"),
    "Product Removed": ({"cart_id": S, **_PRODUCT}, SEG_ECOMMERCE_V2 + "#product-removed"),
    "Cart Viewed": ({"cart_id": S, "products": A}, SEG_ECOMMERCE_V2 + "#cart-viewed"),
    "Checkout Started": ({"order_id": S, "affiliation": S, "value": N, "revenue": N, "shipping": N, "tax": N,
                          "discount": N, "coupon": S, "currency": S, "products": A}, SEG_ECOMMERCE_V2 + "#checkout-started"),
    "Checkout Step Viewed": (dict(_CHECKOUT_STEP), SEG_ECOMMERCE_V2 + "#checkout-step-viewed"),
    "Checkout Step Completed": (dict(_CHECKOUT_STEP), SEG_ECOMMERCE_V2 + "#checkout-step-completed"),
    "Payment Info Entered": ({**_CHECKOUT_STEP, "order_id": S}, SEG_ECOMMERCE_V2 + "#payment-info-entered"),
    "Order Updated": (dict(_ORDER), SEG_ECOMMERCE_V2 + "#order-updated"),
    "Order Completed": ({"checkout_id": S, "subtotal": N, **_ORDER}, SEG_ECOMMERCE_V2 + "#order-completed"),
    "Order Refunded": ({"order_id": S, "total": N, "currency": S, "products": A}, SEG_ECOMMERCE_V2 + "#order-refunded"),
    "Order Cancelled": (dict(_ORDER), SEG_ECOMMERCE_V2 + "#order-cancelled"),
    "Coupon Entered": ({"order_id": S, "cart_id": S, "coupon_id": S}, SEG_ECOMMERCE_V2 + "#coupon-entered"),
    "Coupon Applied": ({**_COUPON, "discount": N}, SEG_ECOMMERCE_V2 + "#coupon-applied"),
    "Coupon Denied": ({**_COUPON, "reason": S}, SEG_ECOMMERCE_V2 + "#coupon-denied"),
    "Coupon Removed": ({**_COUPON, "discount": N}, SEG_ECOMMERCE_V2 + "#coupon-removed"),
    "Product Added to Wishlist": ({"wishlist_id": S, "wishlist_name": S, **_PRODUCT}, SEG_ECOMMERCE_V2 + "#product-added-to-wishlist"),
    "Product Removed from Wishlist": ({"wishlist_id": S, "wishlist_name": S, **_PRODUCT},
                                      SEG_ECOMMERCE_V2 + "#product-removed-from-wishlist"),
    "Wishlist Product Added to Cart": ({"wishlist_id": S, "wishlist_name": S, "cart_id": S, **_PRODUCT},
                                       SEG_ECOMMERCE_V2 + "#wishlist-product-added-to-cart"),
    "Product Shared": ({**_SHARE, **{k: v for k, v in _PRODUCT.items() if k not in ("quantity", "coupon", "position")}},
                       SEG_ECOMMERCE_V2 + "#product-shared"),
    "Cart Shared": ({**_SHARE, "cart_id": S, "products": A}, SEG_ECOMMERCE_V2 + "#cart-shared"),
    "Product Reviewed": ({"product_id": S, "review_id": S, "review_body": S, "rating": S}, SEG_ECOMMERCE_V2 + "#product-reviewed"),
    # Native Mobile spec (SEG_MOBILE)
    "Application Installed": ({"version": S, "build": S}, SEG_MOBILE + "#application-installed"),
    "Application Opened": ({"from_background": B, "url": S, "referring_application": S, "version": S, "build": S},
                           SEG_MOBILE + "#application-opened"),
    "Application Backgrounded": ({}, SEG_MOBILE + "#application-backgrounded"),
    "Application Foregrounded": ({}, SEG_MOBILE + "#application-foregrounded"),
    "Application Updated": ({"previous_version": S, "previous_build": S, "version": S, "build": S},
                            SEG_MOBILE + "#application-updated"),
    "Application Uninstalled": ({}, SEG_MOBILE + "#application-uninstalled"),
    "Application Crashed": ({}, SEG_MOBILE + "#application-crashed"),
    "Install Attributed": ({"provider": S, "campaign": O}, SEG_MOBILE + "#install-attributed"),
    "Push Notification Received": ({"campaign": O}, SEG_MOBILE + "#push-notification-received"),
    "Push Notification Tapped": ({"action": S, "campaign": O}, SEG_MOBILE + "#push-notification-tapped"),
    "Push Notification Bounced": ({"action": S, "campaign": O}, SEG_MOBILE + "#push-notification-bounced"),
    "Deep Link Opened": ({"provider": S, "url": S}, SEG_MOBILE + "#deep-link-opened"),
    "Deep Link Clicked": ({"provider": S, "url": S}, SEG_MOBILE + "#deep-link-clicked"),
    # B2B SaaS spec (SEG_B2B_SAAS)
    "Account Created": ({"account_name": S}, SEG_B2B_SAAS + "#account-created"),
    "Account Deleted": ({"account_name": S}, SEG_B2B_SAAS + "#account-deleted"),
    "Signed Up": ({"type": S, "first_name": S, "last_name": S, "email": S, "phone": S, "username": S, "title": S},
                  SEG_B2B_SAAS + "#signed-up"),
    "Signed In": ({"username": S}, SEG_B2B_SAAS + "#signed-in"),
    "Signed Out": ({"username": S}, SEG_B2B_SAAS + "#signed-out"),
    "Invite Sent": ({"invitee_email": S, "invitee_first_name": S, "invitee_last_name": S, "invitee_role": S},
                    SEG_B2B_SAAS + "#invite-sent"),
    "Account Added User": ({"role": S}, SEG_B2B_SAAS + "#account-added-user"),
}
# Reserved properties of every track call: revenue (Number), currency (String, ISO 4217), value
# (Number). (SEG_TRACK#properties)
SEGMENT_TRACK_RESERVED = {"revenue": N, "currency": S, "value": N}
# products[] entries in the ecommerce events: "products.$.…" rows of the spec tables.
SEGMENT_PRODUCT_ITEM = dict(_PRODUCT)

# FIXTURE CHOICE: the spec marks every semantic property optional, so none is required by Segment.
# These are the properties without which FlowLog's call could not be joined up downstream; their
# absence is recorded as a warning ("spec_property_missing"), and is a 400 only with --strict.
# Checkout Started and Order Completed: "Be sure to include all items in the cart as event
# properties" (SEG_ECOMMERCE_V2#checkout-started, #order-completed).
SEGMENT_EXPECTED = {
    "Product Added": [("product_id", "sku")], "Product Removed": [("product_id", "sku")],
    "Product Viewed": [("product_id", "sku")], "Product Clicked": [("product_id", "sku")],
    "Checkout Started": [("products",)],
    "Order Completed": [("order_id",), ("products",)], "Order Updated": [("order_id",)],
    "Order Refunded": [("order_id",)], "Order Cancelled": [("order_id",)],
    "Coupon Applied": [("coupon_id",)], "Coupon Removed": [("coupon_id",)],
    "Coupon Entered": [("coupon_id",)], "Coupon Denied": [("coupon_id",)],
}
CURRENCY_CODE = re.compile(r"^[A-Z]{3}$")


def _check_type(value, expected: str) -> bool:
    if expected == S:
        return isinstance(value, str)
    if expected == N:
        return is_number(value)
    if expected == B:
        return isinstance(value, bool)
    if expected == A:
        return isinstance(value, list)
    if expected == O:
        return isinstance(value, dict)
    if expected == STRING_OR_OBJECT:
        return isinstance(value, (str, dict))
    raise AssertionError(expected)


def segment_check_properties(event: str, properties: dict, path: str) -> list[dict]:
    """Warnings for a track call's properties against the spec event it names (if it names one)."""
    warnings: list[dict] = []
    spec = SEGMENT_SPEC_EVENTS.get(event)
    table = dict(SEGMENT_TRACK_RESERVED)
    source_of = {name: SEG_TRACK + "#properties" for name in table}
    if spec is not None:
        table.update(spec[0])
        source_of.update({name: spec[1] for name in spec[0]})
    for name, expected in table.items():
        if name in properties and properties[name] is not None and not _check_type(properties[name], expected):
            warnings.append(problem("spec_property_type", f"{path}.{name}",
                                    f"{event!r}: property {name!r} is {type_name(properties[name])}, the spec says {expected}",
                                    source_of[name]))
    currency = properties.get("currency")
    if isinstance(currency, str) and not CURRENCY_CODE.match(currency):
        warnings.append(problem("spec_property_format", f"{path}.currency",
                                f"currency {currency!r} is not an ISO 4217 code (three capital letters)",
                                SEG_TRACK + "#properties"))
    quantity = properties.get("quantity")
    if spec is not None and "quantity" in spec[0] and is_number(quantity) and quantity != int(quantity):
        warnings.append(problem("quantity_not_integer", f"{path}.quantity",
                                f"quantity {quantity!r} is not a whole number (FIXTURE CHOICE: the spec says Number)",
                                spec[1]))
    if spec is None:
        return warnings
    for alternatives in SEGMENT_EXPECTED.get(event, []):
        if not any(properties.get(name) not in (None, "") for name in alternatives):
            warnings.append(problem("spec_property_missing", f"{path}.{alternatives[0]}",
                                    f"{event!r} without {' or '.join(alternatives)} (FIXTURE CHOICE: the spec makes it optional)",
                                    spec[1]))
    products = properties.get("products")
    if "products" in spec[0] and isinstance(products, list):
        for index, product in enumerate(products):
            item_path = f"{path}.products[{index}]"
            if not isinstance(product, dict):
                warnings.append(problem("spec_property_type", item_path,
                                        f"products[{index}] is {type_name(product)}, the spec says an object", spec[1]))
                continue
            for name, expected in SEGMENT_PRODUCT_ITEM.items():
                if name in product and product[name] is not None and not _check_type(product[name], expected):
                    warnings.append(problem("spec_property_type", f"{item_path}.{name}",
                                            f"{event!r}: products.$.{name} is {type_name(product[name])}, the spec says {expected}",
                                            spec[1]))
            if product.get("product_id") in (None, "") and product.get("sku") in (None, ""):
                warnings.append(problem("spec_property_missing", f"{item_path}.product_id",
                                        f"{event!r}: products[{index}] without product_id or sku (FIXTURE CHOICE)",
                                        spec[1]))
            item_quantity = product.get("quantity")
            if is_number(item_quantity) and item_quantity != int(item_quantity):
                warnings.append(problem("quantity_not_integer", f"{item_path}.quantity",
                                        f"products[{index}].quantity {item_quantity!r} is not a whole number (FIXTURE CHOICE)",
                                        spec[1]))
    return warnings


def _merged_context(batch_context, message_context):
    """A batch's context "will be merged with any context inside each of the items" (SEG_HTTP_API#batch)."""
    merged = dict(batch_context) if isinstance(batch_context, dict) else {}
    if isinstance(message_context, dict):
        merged.update(message_context)
    return merged


def segment_check_message(message, call_type: str | None, path: str, batch: dict | None) -> tuple[list, list]:
    """(dropped, warnings) for one message: dropped problems are the ones Segment's ingestion drops a
    message for (it still answers 200); warnings are spec deviations it accepts."""
    dropped: list[dict] = []
    warnings: list[dict] = []
    if not isinstance(message, dict):
        dropped.append(problem("message_not_object", path, f"a message must be a JSON object, not {type_name(message)}",
                               SEG_HTTP_API + "#batch"))
        return dropped, warnings
    kind = message.get("type")
    if call_type is None:
        if kind not in SEGMENT_TYPES:
            dropped.append(problem("invalid_type", f"{path}.type",
                                   f"type {kind!r} is not one of {sorted(SEGMENT_TYPES)}", SEG_HTTP_API + "#batch"))
            return dropped, warnings
    else:
        if kind is not None and kind != call_type:
            warnings.append(problem("type_mismatch", f"{path}.type",
                                    f"type {kind!r} sent to the {call_type} endpoint (the endpoint decides)", SEG_HTTP_API))
        kind = call_type

    # Identity: "A userId or an anonymousId is required." (SEG_COMMON); ingestion drops a message
    # without one (no_user_anon_id) or whose id is an empty string or not a string (id_not_string)
    # (SEG_DELIVERY_OVERVIEW, "Failed on Ingest"). alias needs userId and previousId.
    ids = ("userId", "previousId") if kind == "alias" else ("userId", "anonymousId")
    present = [name for name in ids if message.get(name) is not None]
    for name in present:
        if not isinstance(message[name], str) or message[name] == "":
            dropped.append(problem("id_not_string", f"{path}.{name}",
                                   f"{name} must be a non-empty string, not {message[name]!r}", SEG_DELIVERY_OVERVIEW))
    if kind == "alias":
        for name in ids:
            if name not in present:
                dropped.append(problem("id_required", f"{path}.{name}", f"an alias call needs {name}",
                                       SEG_HTTP_API + "#alias"))
    elif not present:
        dropped.append(problem("no_user_anon_id", path, "neither userId nor anonymousId",
                               SEG_HTTP_API + "#errors"))

    if kind == "track":
        event = message.get("event")
        if event is None or event == "":
            dropped.append(problem("event_not_defined", f"{path}.event", "a track call without an event name",
                                   SEG_HTTP_API + "#errors"))
        elif not isinstance(event, str):
            dropped.append(problem("event_not_string", f"{path}.event", f"event is {type_name(event)}, not a string",
                                   SEG_DELIVERY_OVERVIEW))
    if kind in ("page", "screen"):
        # name is optional for screen and page (SEG_SCREEN#name); when present it must be a non-empty
        # string (name_not_string), and so must category (category_not_string) (SEG_DELIVERY_OVERVIEW).
        for name in ("name", "category"):
            if name in message and (not isinstance(message[name], str) or message[name] == ""):
                dropped.append(problem(f"{name}_not_string", f"{path}.{name}",
                                       f"{name} must be a non-empty string when present, not {message[name]!r}",
                                       SEG_DELIVERY_OVERVIEW))
    if kind == "group" and message.get("groupId") in (None, ""):
        dropped.append(problem("group_id_required", f"{path}.groupId", "a group call needs groupId", SEG_HTTP_API + "#group"))
    if "properties" in message and not isinstance(message["properties"], dict):
        dropped.append(problem("properties_not_object", f"{path}.properties", "properties must be an object",
                               SEG_DELIVERY_OVERVIEW))
    if "traits" in message and not isinstance(message["traits"], dict):
        dropped.append(problem("traits_not_object", f"{path}.traits", "traits must be an object", SEG_DELIVERY_OVERVIEW))

    # messageId: "Segment deduplicates events using the messageId field … ensure all events have
    # unique messageId values with fewer than 100 characters." (SEG_HTTP_API#errors). Segment adds
    # one when it is missing, so a missing one is a warning: FlowLog relies on it for dedup.
    message_id = message.get("messageId")
    if message_id is None:
        warnings.append(problem("missing_message_id", f"{path}.messageId",
                                "no messageId: Segment makes one up, so a retried call is not deduplicated",
                                SEG_COMMON))
    elif not isinstance(message_id, str) or message_id == "":
        dropped.append(problem("message_id_not_string", f"{path}.messageId", f"messageId {message_id!r} is not a string",
                               SEG_COMMON))
    elif len(message_id) > SEGMENT_MESSAGE_ID_MAX:
        dropped.append(problem("message_id_too_long", f"{path}.messageId",
                               f"messageId has {len(message_id)} characters, over {SEGMENT_MESSAGE_ID_MAX}", SEG_COMMON))

    # Timestamps: ISO-8601, UTC (SEG_COMMON#timestamps). Optional, but FlowLog imports history, which
    # needs timestamp ("If you're importing data from the past, make sure you to provide a timestamp"),
    # and sentAt is what Segment corrects clock skew with; the libraries set both. FIXTURE CHOICE:
    # missing ones are warnings. sentAt may sit on the batch (Segment's libraries put it there).
    batch_sent_at = batch.get("sentAt") if isinstance(batch, dict) else None
    for name in ("timestamp", "sentAt", "originalTimestamp"):
        value = message.get(name)
        if value is None:
            if name == "timestamp" or (name == "sentAt" and batch_sent_at is None):
                code = "missing_timestamp" if name == "timestamp" else "missing_sent_at"
                warnings.append(problem(code, f"{path}.{name}", f"no {name}", SEG_COMMON + "#timestamps"))
            continue
        parsed = parse_iso8601(value) if isinstance(value, str) else None
        if parsed is None:
            warnings.append(problem("timestamp_not_iso8601", f"{path}.{name}", f"{name} {value!r} is not an ISO-8601 date-time with a zone",
                                    SEG_COMMON + "#timestamps"))
        elif parsed.utcoffset() != timedelta(0):
            warnings.append(problem("timestamp_not_utc", f"{path}.{name}", f"{name} {value!r} is not in UTC",
                                    SEG_COMMON + "#timestamps"))

    # context.library: "Other libraries only collect context.library" (SEG_COMMON#context-fields-
    # automatically-collected): every Segment library sends it. FIXTURE CHOICE: missing is a warning.
    context = _merged_context(batch.get("context") if isinstance(batch, dict) else None, message.get("context"))
    if "context" in message and not isinstance(message["context"], dict):
        warnings.append(problem("context_not_object", f"{path}.context", "context must be an object", SEG_COMMON + "#context"))
    library = context.get("library")
    if not (isinstance(library, dict) and isinstance(library.get("name"), str) and isinstance(library.get("version"), str)):
        warnings.append(problem("missing_context_library", f"{path}.context.library",
                                "no context.library {name, version}", SEG_COMMON + "#context"))
    if "integrations" in message and not isinstance(message["integrations"], dict):
        warnings.append(problem("integrations_not_object", f"{path}.integrations", "integrations must be an object",
                                SEG_COMMON + "#integrations"))

    if kind == "track" and isinstance(message.get("event"), str) and isinstance(message.get("properties", {}), dict):
        warnings += segment_check_properties(message["event"], message.get("properties", {}), f"{path}.properties")
    return dropped, warnings


def parse_basic_authorization(header: str | None) -> dict | None:
    """The Authorization header as {scheme, user, password_empty, colon, error}."""
    if header is None:
        return None
    scheme, _, credentials = header.strip().partition(" ")
    result = {"scheme": scheme}
    if scheme.lower() != "basic":
        return result
    try:
        decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        result["error"] = "not base64 of UTF-8"
        return result
    user, colon, password = decoded.partition(":")
    result.update(user=user, colon=bool(colon), password_empty=(password == ""))
    return result


def segment_authenticate(authorization: dict | None, body, configured_key: str | None) -> tuple[str, list, list]:
    """('ok' | 'missing' | 'invalid', presented keys, warnings). Keys come from HTTP Basic (the write
    key as user name, an empty password) or from writeKey in the body; both are documented
    (SEG_HTTP_API#authentication)."""
    warnings: list[dict] = []
    presented: list[tuple[str, str]] = []
    if authorization is not None:
        if authorization.get("scheme", "").lower() == "basic" and "user" in authorization:
            if authorization["user"]:
                presented.append(("basic", authorization["user"]))
            if not authorization["colon"]:
                warnings.append(problem("basic_auth_without_colon", "headers.Authorization",
                                        "the write key was encoded without the trailing colon: 'Include a colon before encoding'",
                                        SEG_HTTP_API + "#basic-authentication"))
            elif not authorization["password_empty"]:
                warnings.append(problem("basic_auth_password", "headers.Authorization",
                                        "the password should be left empty", SEG_HTTP_API + "#basic-authentication"))
        elif authorization.get("scheme", "").lower() == "bearer":
            warnings.append(problem("oauth_not_emulated", "headers.Authorization",
                                    "OAuth bearer tokens are not checked here; the writeKey in the body is", SEG_HTTP_API + "#oauth"))
        else:
            warnings.append(problem("authorization_unusable", "headers.Authorization",
                                    f"unusable Authorization header ({authorization.get('error') or authorization.get('scheme')})",
                                    SEG_HTTP_API + "#authentication"))
    if isinstance(body, dict) and "writeKey" in body:
        if isinstance(body["writeKey"], str) and body["writeKey"]:
            presented.append(("body", body["writeKey"]))
    keys = {key for _, key in presented}
    if len(keys) > 1:
        warnings.append(problem("write_key_conflict", "writeKey", "the header and the body carry different write keys",
                                SEG_HTTP_API + "#authentication"))
    if not keys:
        return "missing", presented, warnings
    if configured_key is not None and configured_key not in keys:
        return "invalid", presented, warnings
    return "ok", presented, warnings


# ----------------------------------------------------------------------------------------------------
# GA4 Measurement Protocol
# ----------------------------------------------------------------------------------------------------
GA4_PATHS = {"/mp/collect": "production", "/debug/mp/collect": "debug"}
# Limitations (GA_LIMITATIONS): at most 25 events a request, 25 parameters an event, 25 user
# properties; event and parameter names ≤ 40 characters, alphanumeric and underscores, starting
# with a letter; parameter values ≤ 100 characters; user property names ≤ 24, values ≤ 36;
# "The post body must be smaller than 130kB"; "Item parameters can have a maximum of 10 custom
# parameters". kB read as 1,000 bytes (FIXTURE CHOICE: the stricter reading).
GA4_MAX_BODY = 130_000
GA4_MAX_EVENTS = 25
GA4_MAX_PARAMS = 25
GA4_MAX_USER_PROPERTIES = 25
GA4_MAX_NAME = 40
GA4_MAX_VALUE = 100
GA4_MAX_USER_PROPERTY_NAME = 24
GA4_MAX_USER_PROPERTY_VALUE = 36
GA4_MAX_CUSTOM_ITEM_PARAMS = 10
# Items: up to 200 per event (GA_ECOMMERCE). User-ID values ≤ 256 characters (GA_COLLECTION_LIMITS).
GA4_MAX_ITEMS = 200
GA4_MAX_USER_ID = 256
# Longer values allowed for these three parameters (GA_COLLECTION_LIMITS).
GA4_LONG_VALUES = {"page_title": 300, "page_referrer": 420, "page_location": 1000}
# "Events can be backdated up to 72 hours." (GA_REFERENCE, timestamp_micros)
GA4_BACKDATE = timedelta(hours=72)
GA4_FUTURE_SLACK = timedelta(minutes=1)  # FIXTURE CHOICE: clock skew tolerated before "in the future".
GA4_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")

# Reserved event names (GA_RESERVED). The last three are only for app streams
# (firebase_app_id/app_instance_id); FlowLog sends with measurement_id/client_id (a web stream),
# where they cannot be sent either.
GA4_RESERVED_EVENTS = {
    "ad_activeview", "ad_click", "ad_exposure", "ad_query", "ad_reward", "adunit_exposure", "app_clear_data",
    "app_exception", "app_install", "app_remove", "app_store_refund", "app_update", "app_upgrade",
    "dynamic_link_app_open", "dynamic_link_app_update", "dynamic_link_first_open", "error", "firebase_campaign",
    "firebase_in_app_message_action", "firebase_in_app_message_dismiss", "firebase_in_app_message_impression",
    "first_open", "first_visit", "notification_dismiss", "notification_foreground", "notification_open",
    "notification_receive", "notification_send", "os_update", "session_start", "user_engagement",
}
GA4_APP_STREAM_ONLY_EVENTS = {"ad_impression", "in_app_purchase", "screen_view"}
# Reserved parameter name and prefixes (GA_RESERVED; GA_NAMING lists the same prefixes). Event names
# may not use firebase_, google_ or ga_ either (FIREBASE_LOG_EVENT).
GA4_RESERVED_PARAMS = {"firebase_conversion"}
GA4_RESERVED_PARAM_PREFIXES = ("_", "firebase_", "ga_", "google_", "gtag.")
GA4_RESERVED_EVENT_PREFIXES = ("firebase_", "google_", "ga_")
GA4_RESERVED_USER_PROPERTIES = {"first_open_time", "first_visit_time", "last_deep_link_referrer", "user_id",
                                "first_open_after_install"}
GA4_RESERVED_USER_PROPERTY_PREFIXES = ("_", "firebase_", "ga_", "google_")

# Recommended events (GA_EVENTS). value and currency are "Yes*": "If you set value then currency is
# required for revenue metrics to be computed accurately", and "value is typically required for
# meaningful reporting". items is "Yes" where listed below; transaction_id is "Yes" for purchase
# and refund. The fixture reports a missing required one as VALUE_REQUIRED (FIXTURE CHOICE: the
# validation server is not documented to check recommended-event parameters).
GA4_VALUE_EVENTS = {"add_payment_info", "add_shipping_info", "add_to_cart", "add_to_wishlist", "begin_checkout",
                    "purchase", "refund", "remove_from_cart", "view_cart", "view_item"}
GA4_ITEMS_REQUIRED = {"add_payment_info", "add_shipping_info", "add_to_cart", "add_to_wishlist", "begin_checkout",
                      "purchase", "remove_from_cart", "view_cart", "view_item", "view_item_list", "select_item"}
GA4_TRANSACTION_ID_REQUIRED = {"purchase", "refund"}
GA4_PARAM_TYPES = {"value": N, "currency": S, "transaction_id": S, "coupon": S, "shipping": N, "tax": N,
                   "payment_type": S, "shipping_tier": S, "method": S, "content_type": S, "content_id": S,
                   "item_list_id": S, "item_list_name": S, "engagement_time_msec": N, "items": A}
# Item parameters of the events reference; anything else on an item is a custom item parameter.
GA4_ITEM_PARAMS = {"item_id": S, "item_name": S, "affiliation": S, "coupon": S, "discount": N, "index": N,
                   "item_brand": S, "item_category": S, "item_category2": S, "item_category3": S,
                   "item_category4": S, "item_category5": S, "item_list_id": S, "item_list_name": S,
                   "item_variant": S, "location_id": S, "price": N, "quantity": N, "creative_name": S,
                   "creative_slot": S, "promotion_id": S, "promotion_name": S, "google_business_vertical": S}
GA4_VALIDATION_BEHAVIORS = {"RELAXED", "ENFORCE_RECOMMENDATIONS"}


def vm(field_path: str, description: str, code: str) -> dict:
    """One validation message in the validation server's format (GA_VALIDATING#response):
    {"fieldPath", "description", "validationCode"}; codes VALUE_INVALID, VALUE_REQUIRED,
    NAME_INVALID, NAME_RESERVED, VALUE_OUT_OF_BOUNDS, EXCEEDED_MAX_ENTITIES, NAME_DUPLICATED."""
    return {"fieldPath": field_path, "description": description, "validationCode": code}


def _ga4_check_name(name, path: str, what: str, reserved: set, prefixes: tuple, limit: int) -> list[dict]:
    if not isinstance(name, str) or name == "":
        return [vm(path, f"{what} name is required", "VALUE_REQUIRED")]
    messages = []
    if len(name) > limit:
        messages.append(vm(path, f"{what} name [{name}] has {len(name)} characters; the limit is {limit}", "NAME_INVALID"))
    if not GA4_NAME.match(name):
        messages.append(vm(path, f"{what} name [{name}] is invalid. Names must start with an alphabetic character "
                                 f"and contain only alphanumeric characters and underscores.", "NAME_INVALID"))
    if name in reserved or name.startswith(prefixes):
        messages.append(vm(path, f"{what} name [{name}] is reserved", "NAME_RESERVED"))
    return messages


def _ga4_check_scalar(value, path: str, name: str) -> list[dict]:
    if isinstance(value, str):
        limit = GA4_LONG_VALUES.get(name, GA4_MAX_VALUE)
        if len(value) > limit:
            return [vm(path, f"value of [{name}] has {len(value)} characters; the limit is {limit}", "VALUE_OUT_OF_BOUNDS")]
        return []
    if is_number(value) or isinstance(value, bool):
        return []
    # "String, long and double param types are supported" (FIREBASE_LOG_EVENT); the MP docs send
    # booleans too (debug_mode: true).
    return [vm(path, f"value of [{name}] is {type_name(value)}; parameters take strings, numbers or booleans",
               "VALUE_INVALID")]


def _ga4_check_items(items, path: str) -> list[dict]:
    if not isinstance(items, list):
        return [vm(path, "items must be an array", "VALUE_INVALID")]
    messages = []
    if len(items) > GA4_MAX_ITEMS:
        messages.append(vm(path, f"{len(items)} items; the limit is {GA4_MAX_ITEMS}", "EXCEEDED_MAX_ENTITIES"))
    for index, item in enumerate(items):
        item_path = f"{path}[{index}]"
        if not isinstance(item, dict):
            messages.append(vm(item_path, "an item must be an object", "VALUE_INVALID"))
            continue
        for key in getattr(item, "duplicated_keys", []):
            messages.append(vm(f"{item_path}.{key}", f"item parameter [{key}] appears more than once", "NAME_DUPLICATED"))
        if item.get("item_id") in (None, "") and item.get("item_name") in (None, ""):
            messages.append(vm(item_path, "One of item_id or item_name is required", "VALUE_REQUIRED"))
        custom = 0
        for key, value in item.items():
            if key not in GA4_ITEM_PARAMS:
                custom += 1
                messages += _ga4_check_name(key, f"{item_path}.{key}", "Item parameter", GA4_RESERVED_PARAMS,
                                            GA4_RESERVED_PARAM_PREFIXES, GA4_MAX_NAME)
            elif not _check_type(value, GA4_ITEM_PARAMS[key]):
                messages.append(vm(f"{item_path}.{key}", f"item parameter [{key}] is {type_name(value)}; expected "
                                                         f"{GA4_ITEM_PARAMS[key]}", "VALUE_INVALID"))
                continue
            messages += _ga4_check_scalar(value, f"{item_path}.{key}", key)
        if custom > GA4_MAX_CUSTOM_ITEM_PARAMS:
            messages.append(vm(item_path, f"{custom} custom item parameters; the limit is {GA4_MAX_CUSTOM_ITEM_PARAMS}",
                               "EXCEEDED_MAX_ENTITIES"))
    return messages


def _ga4_check_timestamp(value, path: str, now: datetime) -> list[dict]:
    if not isinstance(value, int) or isinstance(value, bool):
        return [vm(path, "timestamp_micros must be an integer number of microseconds since the Unix epoch", "VALUE_INVALID")]
    when = datetime.fromtimestamp(0, timezone.utc) + timedelta(microseconds=value)
    if when < now - GA4_BACKDATE:
        return [vm(path, f"timestamp_micros {value} ({when.isoformat()}) is more than 72 hours in the past "
                         f"(microseconds, not milliseconds?)", "VALUE_OUT_OF_BOUNDS")]
    if when > now + GA4_FUTURE_SLACK:
        return [vm(path, f"timestamp_micros {value} ({when.isoformat()}) is in the future", "VALUE_INVALID")]
    return []


def _ga4_check_recommended(name: str, params: dict, path: str) -> list[dict]:
    messages = []
    for key, expected in GA4_PARAM_TYPES.items():
        if key in params and key != "items" and not _check_type(params[key], expected):
            messages.append(vm(f"{path}.{key}", f"[{key}] is {type_name(params[key])}; the events reference says {expected}",
                               "VALUE_INVALID"))
    if name in GA4_VALUE_EVENTS:
        if "value" not in params:
            messages.append(vm(f"{path}.value", f"{name}: value is marked required (Yes*) by the events reference",
                               "VALUE_REQUIRED"))
        if "value" in params and "currency" not in params:
            messages.append(vm(f"{path}.currency", f"{name}: currency is required when value is set", "VALUE_REQUIRED"))
    currency = params.get("currency")
    if isinstance(currency, str) and not CURRENCY_CODE.match(currency):
        messages.append(vm(f"{path}.currency", f"currency [{currency}] is not a 3-letter ISO 4217 code", "VALUE_INVALID"))
    if name in GA4_ITEMS_REQUIRED and "items" not in params:
        messages.append(vm(f"{path}.items", f"{name}: items is required", "VALUE_REQUIRED"))
    if name in GA4_TRANSACTION_ID_REQUIRED:
        if params.get("transaction_id") is None:
            messages.append(vm(f"{path}.transaction_id", f"{name}: transaction_id is required", "VALUE_REQUIRED"))
        elif params.get("transaction_id") == "":
            # "Don't send an empty string as the transaction ID" (support.google.com/analytics/answer/12313109)
            messages.append(vm(f"{path}.transaction_id", "transaction_id is an empty string", "VALUE_INVALID"))
    return messages


def ga4_validate(raw: bytes, now: datetime) -> tuple[list[dict], object, dict]:
    """(validation messages, parsed body or None, summary) for a request body."""
    summary = {"events": 0, "event_names": [], "events_with_problems": []}
    if len(raw) >= GA4_MAX_BODY:
        return [vm("", f"the post body has {len(raw)} bytes; it must be smaller than 130kB", "VALUE_OUT_OF_BOUNDS")], None, summary
    try:
        body = parse_json(raw)
    except BadJSON as error:
        return [vm("", f"Unable to parse the body as JSON: {error}", "VALUE_INVALID")], None, summary
    if not isinstance(body, dict):
        return [vm("", "the body must be a JSON object", "VALUE_INVALID")], body, summary
    messages: list[dict] = []
    for key in getattr(body, "duplicated_keys", []):
        messages.append(vm(key, f"[{key}] appears more than once", "NAME_DUPLICATED"))
    # client_id: Required (GA_REFERENCE). app_instance_id is the app-stream form, not emulated here.
    if "app_instance_id" in body and "client_id" not in body:
        messages.append(vm("client_id", "app_instance_id is for app streams (firebase_app_id); "
                                        "this emulates web streams (measurement_id + client_id)", "VALUE_REQUIRED"))
    elif body.get("client_id") in (None, ""):
        messages.append(vm("client_id", "client_id is required", "VALUE_REQUIRED"))
    elif not isinstance(body["client_id"], str):
        messages.append(vm("client_id", f"client_id must be a string, not {type_name(body['client_id'])}", "VALUE_INVALID"))
    user_id = body.get("user_id")
    if user_id is not None:
        if not isinstance(user_id, str):
            messages.append(vm("user_id", "user_id must be a string", "VALUE_INVALID"))
        elif len(user_id) > GA4_MAX_USER_ID:
            messages.append(vm("user_id", f"user_id has {len(user_id)} characters; the limit is {GA4_MAX_USER_ID}",
                               "VALUE_OUT_OF_BOUNDS"))
    if "timestamp_micros" in body:
        messages += _ga4_check_timestamp(body["timestamp_micros"], "timestamp_micros", now)
    behavior = body.get("validation_behavior")
    if behavior is not None and behavior not in GA4_VALIDATION_BEHAVIORS:
        messages.append(vm("validation_behavior", f"validation_behavior [{behavior}] is not RELAXED or "
                                                  "ENFORCE_RECOMMENDATIONS", "VALUE_INVALID"))
    user_properties = body.get("user_properties")
    if user_properties is not None:
        if not isinstance(user_properties, dict):
            messages.append(vm("user_properties", "user_properties must be an object", "VALUE_INVALID"))
        else:
            for key in getattr(user_properties, "duplicated_keys", []):
                messages.append(vm(f"user_properties.{key}", f"user property [{key}] appears more than once", "NAME_DUPLICATED"))
            if len(user_properties) > GA4_MAX_USER_PROPERTIES:
                messages.append(vm("user_properties", f"{len(user_properties)} user properties; the limit is "
                                                      f"{GA4_MAX_USER_PROPERTIES}", "EXCEEDED_MAX_ENTITIES"))
            for key, entry in user_properties.items():
                path = f"user_properties.{key}"
                messages += _ga4_check_name(key, path, "User property", GA4_RESERVED_USER_PROPERTIES,
                                            GA4_RESERVED_USER_PROPERTY_PREFIXES, GA4_MAX_USER_PROPERTY_NAME)
                # Each user property is {"value": …} (developers.google.com/…/protocol/ga4/user-properties).
                if not isinstance(entry, dict) or "value" not in entry:
                    messages.append(vm(path, "a user property must be an object with a value", "VALUE_INVALID"))
                elif isinstance(entry["value"], str) and len(entry["value"]) > GA4_MAX_USER_PROPERTY_VALUE:
                    messages.append(vm(f"{path}.value", f"user property value has {len(entry['value'])} characters; "
                                                        f"the limit is {GA4_MAX_USER_PROPERTY_VALUE}", "VALUE_OUT_OF_BOUNDS"))
    events = body.get("events")
    if events is None:
        messages.append(vm("events", "events is required", "VALUE_REQUIRED"))
        return messages, body, summary
    if not isinstance(events, list):
        messages.append(vm("events", "events must be an array", "VALUE_INVALID"))
        return messages, body, summary
    if not events:
        messages.append(vm("events", "events is empty", "VALUE_REQUIRED"))
    if len(events) > GA4_MAX_EVENTS:
        messages.append(vm("events", f"{len(events)} events; a request can have at most {GA4_MAX_EVENTS}",
                           "EXCEEDED_MAX_ENTITIES"))
    summary["events"] = len(events)
    for index, event in enumerate(events):
        path = f"events[{index}]"
        before = len(messages)
        if not isinstance(event, dict):
            messages.append(vm(path, "an event must be an object", "VALUE_INVALID"))
            summary["events_with_problems"].append(index)
            continue
        name = event.get("name")
        summary["event_names"].append(name)
        messages += _ga4_check_name(name, f"{path}.name", "Event", GA4_RESERVED_EVENTS | GA4_APP_STREAM_ONLY_EVENTS,
                                    GA4_RESERVED_EVENT_PREFIXES, GA4_MAX_NAME)
        params = event.get("params", {})
        if not isinstance(params, dict):
            messages.append(vm(f"{path}.params", "params must be an object", "VALUE_INVALID"))
            params = {}
        for key in getattr(params, "duplicated_keys", []):
            messages.append(vm(f"{path}.params.{key}", f"parameter [{key}] appears more than once", "NAME_DUPLICATED"))
        if len(params) > GA4_MAX_PARAMS:
            messages.append(vm(f"{path}.params", f"{len(params)} parameters; an event can have at most {GA4_MAX_PARAMS}",
                               "EXCEEDED_MAX_ENTITIES"))
        for key, value in params.items():
            param_path = f"{path}.params.{key}"
            messages += _ga4_check_name(key, param_path, "Parameter", GA4_RESERVED_PARAMS, GA4_RESERVED_PARAM_PREFIXES,
                                        GA4_MAX_NAME)
            if key == "items":
                messages += _ga4_check_items(value, param_path)
            elif key == "timestamp_micros":
                messages += _ga4_check_timestamp(value, param_path, now)
            elif key == "session_id" and not re.fullmatch(r"\d+", str(value)):
                messages.append(vm(param_path, "session_id must be digits", "VALUE_INVALID"))
            else:
                messages += _ga4_check_scalar(value, param_path, key)
        if isinstance(name, str):
            messages += _ga4_check_recommended(name, params, f"{path}.params")
        if len(messages) > before:
            summary["events_with_problems"].append(index)
    return messages, body, summary


def ga4_request_problems(query: dict, content_type: str, measurement_id: str | None, api_secret: str | None) -> list[dict]:
    """Problems with the request around the body: measurement_id and api_secret (GA_REFERENCE, query
    parameters) and the Content-Type every documented request sends (GA_LIMITATIONS page, "Format the
    request"). The production endpoint answers 2xx anyway, and "The validation server does not verify
    api_secret or measurement_id values" (GA_VALIDATING), so these are recorded, never answered."""
    problems = []
    if content_type != "application/json":
        problems.append(problem("content_type", "headers.Content-Type",
                                f"Content-Type is {content_type or 'missing'}, not application/json", GA_LIMITATIONS))
    if "firebase_app_id" in query:
        problems.append(problem("app_stream_not_emulated", "firebase_app_id",
                                "firebase_app_id is the app-stream form; only measurement_id streams are emulated", GA_REFERENCE))
    for name, expected in (("measurement_id", measurement_id), ("api_secret", api_secret)):
        values = query.get(name, [])
        if not values or values[0] == "":
            problems.append(problem(f"missing_{name}", name, f"no {name} in the query string", GA_REFERENCE))
        elif expected is not None and values[0] != expected:
            problems.append(problem(f"wrong_{name}", name, f"{name} does not match the configured one", GA_REFERENCE))
    return problems


# ----------------------------------------------------------------------------------------------------
# The server
# ----------------------------------------------------------------------------------------------------
class Settings:
    def __init__(self, args):
        self.segment_write_key = args.segment_write_key
        self.segment_auth_mode = args.segment_auth_mode
        self.ga4_measurement_id = args.ga4_measurement_id
        self.ga4_api_secret = args.ga4_api_secret
        self.strict = args.strict
        self.fail = args.fail
        self.throttle = args.throttle
        self.reset = args.reset
        self.slow = args.slow
        self.record_path = args.record
        self.verbose = args.verbose


def _empty_stats() -> dict:
    return {
        "requests": 0,
        "by_vendor": {"segment": 0, "ga4": 0},
        "by_status": {},
        "faults": {"fail": 0, "throttle": 0, "reset": 0},
        "segment": {"messages_accepted": 0, "messages_dropped": 0, "duplicates": 0, "warnings": 0,
                    "unauthorized": 0, "bad_requests": 0},
        "ga4": {"events": 0, "events_with_problems": 0, "validation_messages": 0, "request_problems": 0,
                "duplicate_transactions": 0},
        "control": 0,
    }


class Collector:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.lock = threading.Lock()
        self.stats = _empty_stats()
        self.segment_message_ids: set[str] = set()
        self.ga4_transaction_ids: set[str] = set()
        self.sequence = 0
        self.record_file = open(settings.record_path, "a", encoding="utf-8") if settings.record_path else None

    # -- bookkeeping --------------------------------------------------------------------------------
    def take_fault(self) -> str | None:
        """The fault this request gets, in the order reset, throttle, fail; each counts down once per
        vendor request it answers."""
        with self.lock:
            for name in ("reset", "throttle", "fail"):
                if getattr(self.settings, name) > 0:
                    setattr(self.settings, name, getattr(self.settings, name) - 1)
                    self.stats["faults"][name] += 1
                    return name
        return None

    def record(self, entry: dict):
        with self.lock:
            self.sequence += 1
            entry = {"seq": self.sequence, "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"), **entry}
            status = entry.get("status")
            if entry.get("vendor") in ("segment", "ga4"):
                self.stats["requests"] += 1
                self.stats["by_vendor"][entry["vendor"]] += 1
                key = str(status) if status is not None else "no answer"
                self.stats["by_status"][key] = self.stats["by_status"].get(key, 0) + 1
            if self.record_file is not None:
                self.record_file.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")
                self.record_file.flush()

    def faults_now(self) -> dict:
        return {"fail": self.settings.fail, "throttle": self.settings.throttle, "reset": self.settings.reset,
                "slow": self.settings.slow, "strict": self.settings.strict}

    # -- control ------------------------------------------------------------------------------------
    def control(self, body) -> tuple[int, dict]:
        if not isinstance(body, dict):
            return 400, {"error": "the control body must be a JSON object"}
        unknown = sorted(set(body) - {"fail", "throttle", "reset", "slow", "strict", "reset_stats", "forget_ids"})
        if unknown:
            return 400, {"error": f"unknown control keys {unknown}"}
        with self.lock:
            for name in ("fail", "throttle", "reset"):
                if name in body:
                    value = body[name]
                    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                        return 400, {"error": f"{name} must be a non-negative integer"}
                    setattr(self.settings, name, value)
            if "slow" in body:
                if not is_number(body["slow"]) or body["slow"] < 0:
                    return 400, {"error": "slow must be a non-negative number of seconds"}
                self.settings.slow = float(body["slow"])
            if "strict" in body:
                if not isinstance(body["strict"], bool):
                    return 400, {"error": "strict must be true or false"}
                self.settings.strict = body["strict"]
            if body.get("reset_stats"):
                self.stats = _empty_stats()
            if body.get("forget_ids"):
                self.segment_message_ids.clear()
                self.ga4_transaction_ids.clear()
            self.stats["control"] += 1
            return 200, {"faults": self.faults_now()}

    def stats_snapshot(self) -> dict:
        with self.lock:
            return {**json.loads(json.dumps(self.stats)), "faults_remaining": self.faults_now(),
                    "segment_message_ids": len(self.segment_message_ids)}

    # -- Segment ------------------------------------------------------------------------------------
    def segment(self, path: str, headers, raw: bytes, entry: dict) -> tuple[int, dict, dict]:
        call_type = SEGMENT_PATHS[path]
        limit = SEGMENT_BATCH_LIMIT if call_type is None else SEGMENT_MESSAGE_LIMIT
        warnings: list[dict] = []
        content_type = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if content_type != "application/json":
            # "a content-type header must be set to 'application/json'" (SEG_HTTP_API#content-type).
            # FIXTURE CHOICE: Segment does not say what it answers otherwise; a warning (400 if strict).
            warnings.append(problem("content_type", "headers.Content-Type",
                                    f"Content-Type is {content_type or 'missing'}, not application/json",
                                    SEG_HTTP_API + "#content-type"))
        if len(raw) > limit:
            entry["body_bytes"] = len(raw)
            return self._segment_error(400, "payload_too_large",
                                       f"the body has {len(raw)} bytes; the {path} limit is {limit} bytes",
                                       SEG_HTTP_API + "#max-request-size", entry)
        try:
            body = parse_json(raw)
        except BadJSON as error:
            entry["body_error"] = str(error)
            return self._segment_error(400, "invalid_json", f"invalid JSON: {error}", SEG_HTTP_API + "#errors", entry)
        entry["body"] = body
        if not isinstance(body, dict):
            # FIXTURE CHOICE: a JSON value that is not an object is answered like invalid JSON.
            return self._segment_error(400, "invalid_json", "the body must be a JSON object", SEG_HTTP_API + "#errors", entry)

        authorization = parse_basic_authorization(headers.get("Authorization"))
        verdict, presented, auth_warnings = segment_authenticate(authorization, body, self.settings.segment_write_key)
        warnings += auth_warnings
        entry["auth"] = {"verdict": verdict, "sources": [source for source, _ in presented]}
        dropped_all: list[dict] = []
        if verdict != "ok" and self.settings.segment_auth_mode == "none":
            # For trackers that do not authenticate yet: the missing or wrong key is only a warning.
            warnings.append(problem(f"{verdict}_write_key", "writeKey", f"write key {verdict} (auth mode none)",
                                    SEG_HTTP_API + "#authentication"))
        elif verdict != "ok":
            reason = ("no write key (neither HTTP Basic user name nor writeKey in the body)" if verdict == "missing"
                      else "the write key does not match --segment-write-key")
            if self.settings.segment_auth_mode == "fixture":
                # FIXTURE CHOICE: Segment's docs name no 401; this fixture refuses so the bug is loud.
                with self.lock:
                    self.stats["segment"]["unauthorized"] += 1
                entry["warnings"] = warnings
                return 401, {"success": False, "code": f"{verdict}_write_key", "message": reason}, {
                    "WWW-Authenticate": 'Basic realm="Segment write key"'}
            # "observed": as reported for api.segment.io (SEG_WRITE_KEY_NOT_CHECKED): an empty key
            # gets 400, an unknown one gets 200 {"success": true} and the events are dropped.
            if verdict == "missing":
                return self._segment_error(400, "missing_write_key", reason, SEG_WRITE_KEY_NOT_CHECKED, entry, warnings)
            dropped_all.append(problem("invalid_write_key", "writeKey", reason, SEG_WRITE_KEY_NOT_CHECKED))

        # The messages of the request.
        if call_type is None:
            batch = body.get("batch")
            if batch is None or not isinstance(batch, list):
                # FIXTURE CHOICE: a batch request without a batch array is answered 400.
                return self._segment_error(400, "invalid_batch", "the body has no batch array", SEG_HTTP_API + "#batch",
                                           entry, warnings)
            messages = batch
            batch_info = body
            if not messages:
                # "Batch is empty: empty_batch" (SEG_DELIVERY_OVERVIEW): received, nothing published.
                dropped_all.append(problem("empty_batch", "batch", "the batch has no messages", SEG_DELIVERY_OVERVIEW))
            if len(messages) > SEGMENT_BATCH_MAX_EVENTS:
                dropped_all.append(problem("batch_too_many_events", "batch",
                                           f"{len(messages)} events; a batch can have up to {SEGMENT_BATCH_MAX_EVENTS}",
                                           SEG_HTTP_API + "#errors"))
            sent_at = body.get("sentAt")
            if sent_at is not None and (not isinstance(sent_at, str) or parse_iso8601(sent_at) is None):
                warnings.append(problem("timestamp_not_iso8601", "sentAt", f"sentAt {sent_at!r} is not ISO-8601",
                                        SEG_COMMON + "#timestamps"))
            for index, message in enumerate(messages):
                size = compact_size(message)
                if size > SEGMENT_MESSAGE_LIMIT:
                    return self._segment_error(400, "message_too_large",
                                               f"batch[{index}] has {size} bytes; a message can have {SEGMENT_MESSAGE_LIMIT}",
                                               SEG_HTTP_API + "#max-request-size", entry, warnings)
            paths = [f"batch[{index}]" for index in range(len(messages))]
        else:
            messages, batch_info, paths = [body], None, ["body"]

        # dropped_all holds request-level reasons (a wrong key, an empty or oversized batch): every
        # message of the request goes with them.
        outcomes = []
        for message, message_path in zip(messages, paths):
            dropped, message_warnings = segment_check_message(message, call_type, message_path, batch_info)
            outcomes.append((message, message_path, dropped, message_warnings))
        all_dropped = dropped_all + [item for outcome in outcomes for item in outcome[2]]
        all_warnings = warnings + [item for outcome in outcomes for item in outcome[3]]
        entry["dropped"] = all_dropped
        entry["warnings"] = all_warnings

        if self.settings.strict and (all_dropped or all_warnings):
            with self.lock:
                self.stats["segment"]["bad_requests"] += 1
                self.stats["segment"]["warnings"] += len(all_warnings)
            entry["strict"] = True
            return 400, {"success": False, "code": "strict_mode",
                         "message": "the request breaks rules that Segment itself lets through (see problems)",
                         "problems": all_dropped + all_warnings}, {}

        accepted, duplicates = [], []
        with self.lock:
            for message, message_path, dropped, _ in outcomes:
                if dropped or dropped_all:
                    continue
                message_id = message.get("messageId") if isinstance(message, dict) else None
                if isinstance(message_id, str) and message_id in self.segment_message_ids:
                    duplicates.append({"path": message_path, "messageId": message_id})
                    continue
                if isinstance(message_id, str):
                    self.segment_message_ids.add(message_id)
                accepted.append(message_path)
            counters = self.stats["segment"]
            counters["messages_accepted"] += len(accepted)
            counters["messages_dropped"] += sum(1 for outcome in outcomes if outcome[2] or dropped_all)
            counters["duplicates"] += len(duplicates)
            counters["warnings"] += len(all_warnings)
        entry["accepted"] = accepted
        entry["duplicate"] = duplicates
        # "Segment returns a 200 response for all API requests except errors caused by large payloads
        # and JSON errors (which return 400 responses.)" (SEG_HTTP_API#errors)
        return 200, {"success": True}, {}

    def _segment_error(self, status, code, message, source, entry, warnings=None):
        entry["error"] = problem(code, "", message, source)
        if warnings:
            entry["warnings"] = warnings
        with self.lock:
            self.stats["segment"]["bad_requests"] += 1
        return status, {"success": False, "code": code, "message": message}, {}

    # -- GA4 ----------------------------------------------------------------------------------------
    def ga4(self, path: str, query: dict, headers, raw: bytes, entry: dict) -> tuple[int, dict | None, dict]:
        endpoint = GA4_PATHS[path]
        content_type = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
        request_problems = ga4_request_problems(query, content_type, self.settings.ga4_measurement_id,
                                                self.settings.ga4_api_secret)
        messages, body, summary = ga4_validate(raw, datetime.now(timezone.utc))
        entry["query"] = {"measurement_id": query.get("measurement_id", [None])[0],
                          "api_secret": "(given)" if query.get("api_secret", [""])[0] else None}
        entry["request_problems"] = request_problems
        entry["body"] = body if len(raw) < GA4_MAX_BODY else None
        if body is None and len(raw) >= GA4_MAX_BODY:
            entry["body_bytes"] = len(raw)
        entry["validationMessages"] = messages
        entry["events"] = summary
        duplicate_transactions = []
        if isinstance(body, dict) and isinstance(body.get("events"), list) and endpoint == "production" and not request_problems:
            with self.lock:
                for event in body["events"]:
                    if isinstance(event, dict) and event.get("name") == "purchase" and isinstance(event.get("params"), dict):
                        transaction = event["params"].get("transaction_id")
                        if isinstance(transaction, str):
                            # "Google Analytics deduplicates purchase events with the same transaction
                            # ID." (support.google.com/analytics/answer/12313109)
                            if transaction in self.ga4_transaction_ids:
                                duplicate_transactions.append(transaction)
                            self.ga4_transaction_ids.add(transaction)
        entry["duplicate_transactions"] = duplicate_transactions
        with self.lock:
            counters = self.stats["ga4"]
            counters["events"] += summary["events"]
            counters["events_with_problems"] += len(summary["events_with_problems"])
            counters["validation_messages"] += len(messages)
            counters["request_problems"] += len(request_problems)
            counters["duplicate_transactions"] += len(duplicate_transactions)
        if endpoint == "debug":
            # The validation server answers with {"validationMessages": [...]} (GA_VALIDATING); it does
            # not check the credentials. FIXTURE CHOICE: status 200, and an empty list when clean.
            return 200, {"validationMessages": messages}, {}
        # "The Measurement Protocol returns a 2xx status code if the HTTP request is received. The
        # Measurement Protocol doesn't return an error code if the payload is malformed, or if the
        # data is incorrect or not processed by Google Analytics." (GA_REFERENCE#response_codes)
        entry["silently_dropped"] = bool(messages or request_problems)
        return 204, None, {}


def _read_chunked(rfile) -> bytes:
    body = bytearray()
    while True:
        line = rfile.readline(65537)
        size = int(line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                pass
            return bytes(body)
        body += rfile.read(size)
        rfile.readline(3)
        if len(body) > MAX_READ:
            raise OverflowError


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FlowLogVendorCollector/1"
    sys_version = ""

    def log_message(self, format, *args):
        if self.server.collector.settings.verbose:
            sys.stderr.write("%s %s\n" % (self.address_string(), format % args))

    def do_POST(self):
        self.dispatch("POST")

    def do_GET(self):
        self.dispatch("GET")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def finish(self):
        if getattr(self, "_reset_connection", False):
            # Close without answering, with an RST (SO_LINGER 0) rather than an orderly FIN.
            try:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
            for stream in (self.wfile, self.rfile):
                try:
                    stream.close()
                except Exception:
                    pass
            try:
                self.connection.close()
            except OSError:
                pass
            return
        super().finish()

    # -- plumbing -----------------------------------------------------------------------------------
    def read_body(self) -> bytes:
        if (self.headers.get("Transfer-Encoding") or "").lower() == "chunked":
            raw = _read_chunked(self.rfile)
        else:
            length = int(self.headers.get("Content-Length") or 0)
            if length < 0 or length > MAX_READ:
                raise OverflowError
            raw = self.rfile.read(length)
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        if encoding == "gzip":
            raw = gzip.decompress(raw)
        elif encoding == "deflate":
            raw = zlib.decompress(raw)
        return raw

    def answer(self, status: int, payload, extra_headers: dict | None = None):
        data = b"" if payload is None else json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        if payload is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if data and self.command != "HEAD":
            self.wfile.write(data)

    def interesting_headers(self) -> dict:
        picked = {name: self.headers[name] for name in ("Content-Type", "Content-Length", "Content-Encoding",
                                                        "Transfer-Encoding", "User-Agent") if self.headers.get(name)}
        authorization = parse_basic_authorization(self.headers.get("Authorization"))
        if authorization is not None:
            picked["Authorization"] = authorization
        return picked

    def dispatch(self, method: str):
        collector: Collector = self.server.collector
        url = urlsplit(self.path)
        path, query = url.path, parse_qs(url.query, keep_blank_values=True)
        try:
            raw = self.read_body()
        except OverflowError:
            self.close_connection = True
            self.answer(413, {"error": f"bodies over {MAX_READ} bytes are not read"})
            return
        except (ValueError, OSError, EOFError, zlib.error) as error:
            self.close_connection = True
            self.answer(400, {"error": f"unreadable body: {error}"})
            return

        if path == "/_control" and method == "POST":
            try:
                body = parse_json(raw) if raw else {}
            except BadJSON as error:
                self.answer(400, {"error": str(error)})
                return
            status, payload = collector.control(body)
            self.answer(status, payload)
            return
        if path == "/_stats" and method == "GET":
            self.answer(200, collector.stats_snapshot())
            return

        vendor = "segment" if path in SEGMENT_PATHS else "ga4" if path in GA4_PATHS else None
        if vendor is None:
            self.answer(404, {"error": f"no endpoint {path}"})
            return
        if method != "POST":
            # "The Google Analytics Measurement Protocol only supports HTTP POST requests."
            # (GA_LIMITATIONS page); Segment's calls are all POSTs (SEG_HTTP_API).
            self.answer(405, {"error": f"{path} takes POST"}, {"Allow": "POST"})
            return

        entry = {"vendor": vendor, "path": path, "method": method, "headers": self.interesting_headers()}
        fault = collector.take_fault()
        if collector.settings.slow > 0:
            time.sleep(collector.settings.slow)
        if fault == "reset":
            entry.update(status=None, fault="reset")
            collector.record(entry)
            self._reset_connection = True
            self.close_connection = True
            return
        if fault == "throttle":
            # Segment: "Requests that exceed acceptable limits may be rejected with HTTP Status Code
            # 429 … the response header contains Retry-After and X-RateLimit-Reset headers"
            # (SEG_HTTP_API#rate-limits). GA4 documents no 429; the fault is synthetic there.
            headers = {"Retry-After": "1"}
            if vendor == "segment":
                headers["X-RateLimit-Reset"] = "1"
            entry.update(status=429, fault="throttle")
            collector.record(entry)
            self.answer(429, {"error": "too many requests (injected)"}, headers)
            return
        if fault == "fail":
            entry.update(status=500, fault="fail")
            collector.record(entry)
            self.answer(500, {"error": "internal error (injected)"})
            return

        if vendor == "segment":
            status, payload, headers = collector.segment(path, self.headers, raw, entry)
        else:
            status, payload, headers = collector.ga4(path, query, self.headers, raw, entry)
        entry["status"] = status
        collector.record(entry)
        self.answer(status, payload, headers)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, collector: Collector):
        self.collector = collector
        super().__init__(("127.0.0.1", 0), Handler)

    def handle_error(self, request, client_address):
        # A client that gave up (a timeout against --slow) is expected, not a server error.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--segment-write-key", metavar="KEY",
                        help="the write key Segment calls must carry (any non-empty key when left out)")
    parser.add_argument("--segment-auth-mode", choices=("fixture", "observed", "none"), default="fixture",
                        help="fixture: 401 without a matching key (default); observed: what api.segment.io is "
                             "reported to do (400 without a key, 200 and dropped events with a wrong one); "
                             "none: no key needed, a missing or wrong one is a warning")
    parser.add_argument("--ga4-measurement-id", metavar="ID", help="the measurement_id GA4 requests must carry")
    parser.add_argument("--ga4-api-secret", metavar="SECRET", help="the api_secret GA4 requests must carry")
    parser.add_argument("--record", metavar="FILE", help="append one JSON line per request to FILE")
    parser.add_argument("--strict", action="store_true",
                        help="answer 400 to Segment requests with spec warnings or dropped messages")
    parser.add_argument("--fail", type=int, default=0, metavar="N", help="answer the first N requests with 500")
    parser.add_argument("--throttle", type=int, default=0, metavar="N",
                        help="answer the first N requests with 429 and Retry-After: 1")
    parser.add_argument("--slow", type=float, default=0.0, metavar="SECONDS", help="delay each answer")
    parser.add_argument("--reset", type=int, default=0, metavar="N",
                        help="close the connection without answering for the first N requests")
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    args = parser.parse_args(argv)
    for name in ("fail", "throttle", "reset"):
        if getattr(args, name) < 0:
            parser.error(f"--{name} must not be negative")
    if args.slow < 0:
        parser.error("--slow must not be negative")
    if (args.ga4_measurement_id is None) != (args.ga4_api_secret is None):
        parser.error("--ga4-measurement-id and --ga4-api-secret go together")
    return args


def main(argv=None) -> int:
    args = parse_arguments(argv)
    server = Server(Collector(Settings(args)))

    def stop(signum, frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()
        if server.collector.record_file is not None:
            server.collector.record_file.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
