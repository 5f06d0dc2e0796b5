import Deciding

#if Network
    import FlowLog
    import FlowLogBasics
    import Hummingbird

    /// `POST /ingest/tips` and `POST /ingest`: `IngestRoutes` for many streams at once, so that a
    /// device with a thousand short sessions pays one request and one commit for many of them rather
    /// than two requests and a commit each (`flowlog push`). The rules are the per-stream route's;
    /// each stream is answered on its own inside one 200, and one request is still one transaction.
    struct IngestBatchRoutes {
        let writer: CommandWriter
        let limits: ServerLimits
        let erased: ErasedStreams?
        /// The most streams one tips request may ask for.
        static let tipsLimit = 10_000

        func register(_ routes: RouteTable) {
            routes.add(.post, "/ingest/tips", scope: .ingest) { request, _ in try await tips(request) }
            routes.add(.post, "/ingest", scope: .ingest) { request, _ in try await ingest(request) }
        }

        func tips(_ request: Request) async throws -> Response {
            let erased = try IngestRoutes.required(erased)
            guard request.mediaType == "application/json" else {
                throw APIError.unsupportedMediaType("Send Content-Type application/json: {\"streams\":[…]}", sent: request.mediaType)
            }
            let body = try await request.readBody(limit: limits.commandBytes, limitMessage: "The body is over 1 MiB; ask for fewer streams at once.")
            let streams = try body.withUnsafeReadableBytes { bytes -> [String] in
                guard case .object(let members)? = try? JSONParser.parse(bytes),
                    case .array(let values)? = members.last(where: { $0.0 == "streams" })?.1
                else {
                    throw APIError.invalidParameter("The body must be {\"streams\":[…]}, a list of stream ids.")
                }
                guard values.count <= Self.tipsLimit else {
                    throw APIError.payloadTooLarge("The body asks for \(values.count) streams; ask for at most \(Self.tipsLimit) at once.")
                }
                return try values.map { value in
                    guard case .string(let stream) = value, Identifier.isValid(stream) else {
                        throw APIError.invalidParameter("Every stream must be a stream id (1 to 64 characters of A-Z a-z 0-9 . _ : -).")
                    }
                    return stream
                }
            }
            let found = try await writer.ingestTips(of: streams, erased: erased)
            return JSONBody.response { json in
                json.beginObject()
                json.key("tips")
                json.beginArray()
                for (stream, tip) in zip(streams, found) {
                    json.beginObject()
                    json.key("stream")
                    json.string(stream)
                    if let tip {
                        json.key("version")
                        json.int(tip.version)
                        if let id = tip.eventId {
                            json.key("eventId")
                            json.string(id.description)
                        }
                    } else {
                        json.key("gone")
                        json.bool(true)
                    }
                    json.endObject()
                }
                json.endArray()
                json.endObject()
            }
        }

        func ingest(_ request: Request) async throws -> Response {
            let erased = try IngestRoutes.required(erased)
            try IngestRoutes.checkEventLines(request)
            let body = try await request.readBody(
                limit: limits.batchBytes,
                limitMessage: "The body is over 16 MiB, the limit for one request of events; send them in several requests. Nothing was stored.")
            let runs = try body.withUnsafeReadableBytes { try IngestRoutes.runs($0, only: nil, lineLimit: limits.batchLines) }
            let outcomes: [Result<CommandProcessor.Ingested, CommandProcessor.IngestRefusal>]
            do {
                outcomes = try await writer.ingest(runs: runs, erased: erased)
            } catch {
                throw APIError.from(error)
            }
            return JSONBody.response { json in
                json.beginObject()
                json.key("streams")
                json.beginArray()
                for outcome in outcomes {
                    switch outcome {
                    case .success(let stored):
                        IngestRoutes.write(stored, into: &json)
                    case .failure(let refusal):
                        let error = IngestRoutes.answer(to: refusal)
                        json.beginObject()
                        json.key("stream")
                        json.string(refusal.stream)
                        json.key("status")
                        json.int(Int(error.status.code))
                        error.writeMember(into: &json)
                        json.endObject()
                    }
                }
                json.endArray()
                json.endObject()
            }
        }
    }
#endif
