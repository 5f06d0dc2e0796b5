"""The OTLP receiver the tracing tests export to: what it keeps of a request, and its faults."""
import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

RECEIVER = Path(__file__).with_name("otlp_receiver.py")


@pytest.fixture
def receiver():
    process = subprocess.Popen([sys.executable, str(RECEIVER)], stdout=subprocess.PIPE, text=True)
    port = int(process.stdout.readline())
    yield f"http://127.0.0.1:{port}"
    process.kill()
    process.wait()


def export_request() -> bytes:
    span = trace_pb2.Span(
        trace_id=bytes.fromhex("0af7651916cd43dd8448eb211c80319c"), span_id=bytes.fromhex("b7ad6b7169203331"),
        parent_span_id=bytes.fromhex("00f067aa0ba902b7"), name="flowlog.commit", kind=trace_pb2.Span.SPAN_KIND_INTERNAL,
        attributes=[common_pb2.KeyValue(key="flowlog.commit.commands", value=common_pb2.AnyValue(int_value=3))],
        links=[trace_pb2.Span.Link(trace_id=bytes(16), span_id=bytes.fromhex("0102030405060708"))],
    )
    request = trace_service_pb2.ExportTraceServiceRequest(resource_spans=[trace_pb2.ResourceSpans(
        resource={"attributes": [common_pb2.KeyValue(key="service.name", value=common_pb2.AnyValue(string_value="flowlog"))]},
        scope_spans=[trace_pb2.ScopeSpans(spans=[span])])])
    return request.SerializeToString()


def post(url: str, body: bytes, content_type: str = "application/x-protobuf") -> int:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": content_type}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def get(url: str):
    with urllib.request.urlopen(url, timeout=2) as response:
        return json.load(response)


def test_a_span_is_kept_with_its_ids_attributes_links_and_resource(receiver):
    assert post(f"{receiver}/v1/traces", export_request()) == 200
    [span] = get(f"{receiver}/_spans")
    assert span["trace_id"] == "0af7651916cd43dd8448eb211c80319c"
    assert span["parent_span_id"] == "00f067aa0ba902b7"
    assert span["kind"] == "internal"
    assert span["attributes"] == {"flowlog.commit.commands": 3}
    assert span["links"] == [{"trace_id": "00" * 16, "span_id": "0102030405060708"}]
    assert span["resource"] == {"service.name": "flowlog"}


def test_refusing_keeps_nothing_and_answers_400(receiver):
    post(f"{receiver}/_control", json.dumps({"mode": "refuse"}).encode(), "application/json")
    assert post(f"{receiver}/v1/traces", export_request()) == 400
    assert get(f"{receiver}/_spans") == []
    assert get(f"{receiver}/_stats")["refused"] == 1


def test_hanging_never_answers(receiver):
    post(f"{receiver}/_control", json.dumps({"mode": "hang"}).encode(), "application/json")
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        post(f"{receiver}/v1/traces", export_request())
    assert get(f"{receiver}/_stats")["hung"] == 1


def test_a_body_that_is_not_an_export_request_is_refused(receiver):
    assert post(f"{receiver}/v1/traces", b"\xff\xff\xff") == 400
