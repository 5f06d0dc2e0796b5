#!/usr/bin/env python3
"""A loopback OTLP/HTTP trace receiver for FlowLog's tests: it decodes each export request with the
OpenTelemetry project's own protobuf definitions (the `opentelemetry-proto` package), keeps every span,
and refuses or hangs on demand, as a collector that is down or slow would.

    python3 otlp_receiver.py [--mode ok|refuse|hang]

It listens on 127.0.0.1 at a free port, prints the port as its first line of stdout, and serves until
SIGTERM or SIGINT.

Endpoints
  POST /v1/traces   an ExportTraceServiceRequest (application/x-protobuf, gzip or not); answered per mode:
                    ok: 200 with an empty ExportTraceServiceResponse; refuse: 400 (not retryable);
                    hang: no answer until the connection is closed
  GET  /_spans      every span received so far, as JSON (ids in lowercase hex, attributes as values)
  GET  /_stats      {"requests": N, "spans": N, "refused": N, "hung": N}
  POST /_control    {"mode": "ok"|"refuse"|"hang", "clear": true}
"""
from __future__ import annotations

import argparse
import gzip
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

MODES = ("ok", "refuse", "hang")
SPAN_KINDS = {value: name.removeprefix("SPAN_KIND_").lower() for name, value in trace_pb2.Span.SpanKind.items()}


def any_value(value):
    """An OTLP AnyValue as the JSON value it holds."""
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {item.key: any_value(item.value) for item in value.kvlist_value.values}
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return getattr(value, kind)


def attributes(pairs):
    return {pair.key: any_value(pair.value) for pair in pairs}


def spans_of(request: trace_service_pb2.ExportTraceServiceRequest) -> list[dict]:
    """Every span of an export request, flattened, with its resource's attributes beside it."""
    spans = []
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append({
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": SPAN_KINDS.get(span.kind, str(span.kind)),
                    "start": span.start_time_unix_nano,
                    "end": span.end_time_unix_nano,
                    "attributes": attributes(span.attributes),
                    "events": [{"name": event.name, "attributes": attributes(event.attributes)} for event in span.events],
                    "links": [{"trace_id": link.trace_id.hex(), "span_id": link.span_id.hex()} for link in span.links],
                    "status": {"code": span.status.code, "message": span.status.message},
                    "resource": resource,
                })
    return spans


class Receiver:
    def __init__(self, mode: str):
        self.lock = threading.Lock()
        self.mode = mode
        self.spans: list[dict] = []
        self.stats = {"requests": 0, "spans": 0, "refused": 0, "hung": 0}
        self.release = threading.Event()

    def receive(self, body: bytes) -> str:
        """Decodes one request and says what to answer; raises ValueError when it is not OTLP."""
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.ParseFromString(body)
        with self.lock:
            self.stats["requests"] += 1
            mode = self.mode
            if mode == "ok":
                received = spans_of(request)
                self.spans.extend(received)
                self.stats["spans"] += len(received)
            else:
                self.stats["refused" if mode == "refuse" else "hung"] += 1
        return mode


def handler(receiver: Receiver):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def answer(self, status: int, body: bytes, content_type: str):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def answer_json(self, value, status: int = 200):
            self.answer(status, json.dumps(value).encode(), "application/json")

        def do_GET(self):
            if self.path == "/_spans":
                with receiver.lock:
                    self.answer_json(list(receiver.spans))
            elif self.path == "/_stats":
                with receiver.lock:
                    self.answer_json(dict(receiver.stats))
            else:
                self.answer_json({"error": f"no such path {self.path}"}, 404)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            if self.path == "/_control":
                control = json.loads(body or b"{}")
                with receiver.lock:
                    if control.get("mode") in MODES:
                        receiver.mode = control["mode"]
                    if control.get("clear"):
                        receiver.spans.clear()
                        receiver.stats = {key: 0 for key in receiver.stats}
                self.answer_json({"mode": receiver.mode})
                return
            if self.path != "/v1/traces":
                self.answer_json({"error": f"no such path {self.path}"}, 404)
                return
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            try:
                mode = receiver.receive(body)
            except Exception as error:  # a body that is not an export request
                self.answer(400, f"not an ExportTraceServiceRequest: {error}".encode(), "text/plain")
                return
            if mode == "ok":
                self.answer(200, trace_service_pb2.ExportTraceServiceResponse().SerializeToString(), "application/x-protobuf")
            elif mode == "refuse":
                self.answer(400, b"refused on purpose", "text/plain")
            else:
                receiver.release.wait()

    return Handler


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=MODES, default="ok")
    options = parser.parse_args(argv)
    receiver = Receiver(options.mode)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(receiver))
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
