#if Network
    import FlowLog
    import FlowLogBasics
    import FlowLogStore
    import Foundation
    import HTTPTypes
    import Hummingbird

    /// `POST /commands`: one command (JSON) or many (NDJSON), with `send`'s answers, codes and
    /// durability: the response is written only after the commit that holds the accepted events.
    struct CommandRoutes {
        let writer: CommandWriter
        let limits: ServerLimits
        let metrics: ServerMetrics

        func register(_ routes: RouteTable) {
            routes.add(.post, "/commands", scope: .write) { request, _ in try await send(request) }
        }

        func send(_ request: Request) async throws -> Response {
            switch request.mediaType {
            case "application/json":
                let body = try await request.readBody(
                    limit: limits.commandBytes,
                    limitMessage: "The body is over 1 MiB, the limit for one command; send many commands as application/x-ndjson.")
                return try await single(body, trace: Self.trace(of: request))
            case "application/x-ndjson":
                let body = try await request.readBody(
                    limit: limits.batchBytes,
                    limitMessage: "The body is over 16 MiB, the limit for a batch of commands; split it into several requests.")
                return try await batch(body, trace: Self.trace(of: request))
            case let other:
                throw APIError.unsupportedMediaType(
                    "Send Content-Type application/json (one command) or application/x-ndjson (one command a line)", sent: other)
            }
        }

        /// The request's W3C trace context headers; a malformed `traceparent` is ignored, as W3C asks.
        static func trace(of request: Request) -> TraceContext? {
            request.headers[traceparent].flatMap { TraceContext(traceparent: $0, tracestate: request.headers[tracestate]) }
        }

        private static let traceparent = HTTPField.Name("traceparent")!
        private static let tracestate = HTTPField.Name("tracestate")!

        private func single(_ body: ByteBuffer, trace: TraceContext?) async throws -> Response {
            let decoded = body.withUnsafeReadableBytes { WireCommand.decode($0) }
            let outcome: CommandOutcome
            switch decoded {
            case .success(let envelope):
                outcome = try await writer.submit([envelope], requestTrace: trace)[0]
            case .failure(let failure):
                metrics.recordRejections([failure.rejection.code.rawValue])
                return JSONBody.response(status: .badRequest) { json in
                    json.beginObject()
                    FlowJSON.writeRejection(stream: failure.stream, failure.rejection, into: &json)
                    json.endObject()
                }
            }
            let status: HTTPResponse.Status =
                switch outcome {
                case .accepted: .ok
                case .rejected(_, let rejection):
                    switch rejection.code {
                    case .malformedCommand, .unknownCommand: .badRequest
                    case .versionConflict: .conflict
                    default: .unprocessableContent
                    }
                }
            return JSONBody.response(status: status) { json in FlowJSON.writeAnswer(outcome, into: &json) }
        }

        private func batch(_ body: ByteBuffer, trace: TraceContext?) async throws -> Response {
            let parsed: SendSession.ParsedBatch = try body.withUnsafeReadableBytes { bytes in
                var lines: [LineReader.Line] = []
                try NDJSONLines.forEach(in: bytes) { line, _ in
                    lines.append(line.count > LineReader.maximumLineLength ? .tooLong(length: line.count) : .text(line))
                    guard lines.count <= limits.batchLines else {
                        throw APIError.payloadTooLarge(
                            "The body holds over \(limits.batchLines) lines, the limit for a batch of commands; nothing was applied. Split it into several requests."
                        )
                    }
                }
                return SendSession.parse(lines)
            }
            metrics.recordRejections(parsed.lineRejections.compactMap { $0?.rejection.code.rawValue })
            // `SendSession.parse` answered every envelope that breaks its checks.
            let outcomes = try await writer.submit(parsed.envelopes, fieldsChecked: true, requestTrace: trace)
            var next = outcomes.makeIterator()
            var json = JSONWriter(capacity: 64 * parsed.lineRejections.count + 64)
            for rejection in parsed.lineRejections {
                if let failure = rejection {
                    json.beginObject()
                    FlowJSON.writeRejection(stream: failure.stream, failure.rejection, into: &json)
                    json.endObject()
                } else {
                    FlowJSON.writeAnswer(next.next()!, into: &json)
                }
                json.newline()
            }
            return Response(
                status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: json.bytes)))
        }
    }
#endif
