"""Schemathesis hooks for FlowLog's API (loaded through SCHEMATHESIS_HOOKS by ServerToolTests).

NDJSON bodies (POST /commands, POST /sessions) are documented as strings, one JSON value a line:
schemathesis has no serializer for application/x-ndjson, so generated strings go out as UTF-8 text
and generated objects as one JSON line.
"""
import json

import schemathesis


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, list):
        return "".join(json.dumps(item) + "\n" for item in value).encode()
    return (json.dumps(value) + "\n").encode()


@schemathesis.deserializer("application/x-ndjson", "text/csv")
def text(ctx, response):
    """Both are documented as strings: the body as text, so the schema (type string) applies."""
    return response.content.decode("utf-8")
