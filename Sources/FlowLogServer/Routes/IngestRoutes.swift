import Deciding

#if Network
    import FlowLog
    import FlowLogBasics
    import FlowLogStore
    import Hummingbird

    /// `POST /streams/{stream}/events`: a device's recorded events of one stream (`flowlog push`, the
    /// client library's sync), NDJSON in `export`'s line form, for a token with the `ingest` scope.
    ///
    /// The server records them as the device decided them and decides nothing again: an app build
    /// older than the server is recorded as it behaved. One request is one transaction. Events the
    /// stream holds already (same version, same event id) are a retry's and are acknowledged as
    /// duplicates; anything else at a version the stream holds, or a gap, is 409 with the stream's
    /// version. A stream forgotten here is 410, which needs the operator's pseudonym key
    /// (`serve --key-file`): without it the server cannot tell, so it takes no events at all (501).
    struct IngestRoutes {
        let writer: CommandWriter
        let limits: ServerLimits
        /// The forgotten streams' pseudonyms; nil without `--key-file`.
        let erased: ErasedStreams?

        func register(_ routes: RouteTable) {
            routes.add(.post, "/streams/{stream}/events", scope: .ingest) { request, context in
                let stream = try streamParameter(context)
                return try await ingest(request, stream: stream)
            }
            routes.add(.get, "/streams/{stream}/tip", scope: .ingest) { _, context in
                let stream = try streamParameter(context)
                let erased = try Self.required(erased)
                let tip: (version: Int, eventId: EventID?)
                do {
                    tip = try await writer.ingestTip(of: stream, erased: erased)
                } catch let refusal as CommandProcessor.IngestRefusal {
                    throw Self.answer(to: refusal)
                }
                return JSONBody.response { json in
                    json.beginObject()
                    json.key("stream")
                    json.string(stream)
                    json.key("version")
                    json.int(tip.version)
                    if let id = tip.eventId {
                        json.key("eventId")
                        json.string(id.description)
                    }
                    json.endObject()
                }
            }
        }

        /// The forgotten streams' pseudonyms, or the 501 of a server started without a key: every
        /// route that takes recorded events (here and `IngestBatchRoutes`) asks this first.
        static func required(_ erased: ErasedStreams?) throws -> ErasedStreams {
            guard let erased else { throw needsKey }
            return erased
        }

        /// Both ingest routes take recorded events as export lines.
        static func checkEventLines(_ request: Request) throws {
            guard request.mediaType == "application/x-ndjson" else {
                throw APIError.unsupportedMediaType(
                    "Send Content-Type application/x-ndjson: one recorded event a line, as `\(ProgramName.current) export` writes them",
                    sent: request.mediaType)
            }
        }

        static let needsKey = APIError(
            status: .notImplemented, code: "ingestNeedsKey",
            message:
                "This server takes no recorded events: without the key that forgotten streams' pseudonyms are made with it could store a forgotten session again. Start it with --key-file KEY (the key `\(ProgramName.current) forget --key-file` uses); nothing was stored."
        )

        func ingest(_ request: Request, stream: String) async throws -> Response {
            let erased = try Self.required(erased)
            guard !SystemStreams.isReserved(stream) else {
                throw APIError.invalidParameter(
                    "The stream id \(stream) starts with \(SystemStreams.reservedPrefix), which names the log's own streams; a device's session needs another id. Nothing was stored."
                )
            }
            try Self.checkEventLines(request)
            let body = try await request.readBody(
                limit: limits.batchBytes,
                limitMessage:
                    "The body is over 16 MiB, the limit for one request of events; send the stream's events in several requests, in version order. Nothing was stored."
            )
            let events = try body.withUnsafeReadableBytes { try Self.read($0, stream: stream, lineLimit: limits.batchLines) }
            let stored: CommandProcessor.Ingested
            do {
                stored = try await writer.ingest(events, stream: stream, erased: erased)
            } catch let refusal as CommandProcessor.IngestRefusal {
                throw Self.answer(to: refusal)
            } catch {
                throw APIError.from(error)
            }
            return JSONBody.response { json in Self.write(stored, into: &json) }
        }

        /// The request's events, each checked as `import` checks a line, then as one stream's run of
        /// versions; a problem is 400 naming its line (422 for a kind or version this build does not know).
        static func read(_ bytes: UnsafeRawBufferPointer, stream: String, lineLimit: Int) throws -> [RecordedEvent] {
            try runs(bytes, only: stream, lineLimit: lineLimit)[0].events
        }

        /// The body's events grouped into one run per stream, in the order each stream first comes
        /// (`only`: every line must name that stream). Each stream's lines go up one version at a time.
        static func runs(_ bytes: UnsafeRawBufferPointer, only: String?, lineLimit: Int) throws -> [CommandProcessor.IngestRun] {
            var runs: [CommandProcessor.IngestRun] = []
            var slots: [String: Int] = [:]
            var count = 0
            try NDJSONLines.forEach(in: bytes) { line, number in
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
                count += 1
                guard count <= lineLimit else {
                    throw APIError.payloadTooLarge(
                        "The body holds over \(lineLimit) events, the limit for one request; send them in several requests, in version order. Nothing was stored."
                    )
                }
                let event = try Self.event(line, number: number)
                if let only, event.stream != only {
                    throw malformed(line: number, "its stream is \(event.stream), not \(only), the stream of the request's path")
                }
                guard !SystemStreams.isReserved(event.stream) else {
                    throw malformed(line: number, "its stream \(event.stream) is one of the log's own (\(SystemStreams.reservedPrefix)…)")
                }
                if let slot = slots[event.stream] {
                    let previous = runs[slot].events[runs[slot].events.count - 1].version
                    guard event.version == previous + 1 else {
                        throw malformed(
                            line: number,
                            "it is version \(event.version) of \(event.stream), but the stream's line before is version \(previous); send a stream's events in version order without gaps"
                        )
                    }
                    runs[slot].events.append(event)
                } else {
                    slots[event.stream] = runs.count
                    runs.append((event.stream, [event]))
                }
            }
            guard !runs.isEmpty else { throw malformed(line: 1, "the body holds no event") }
            return runs
        }

        /// One line read as an exported event a device may send: not forgotten, not a system event.
        private static func event(_ line: UnsafeRawBufferPointer, number: Int) throws -> RecordedEvent {
            guard line.count <= LineReader.maximumLineLength else {
                throw malformed(line: number, "it is longer than \(LineReader.maximumLineLength) bytes")
            }
            let event: RecordedEvent
            do {
                event = try RecordedEventJSON.decode(line)
            } catch {
                guard !error.isUnknownKind else {
                    throw APIError(
                        status: .unprocessableContent, code: "unknownEventKind",
                        message:
                            "Line \(number): \(error.message). A newer FlowLog wrote it: upgrade FlowLog on this server, then send the stream again from this line; nothing was stored."
                    )
                }
                throw malformed(line: number, error.message)
            }
            guard !event.isForgotten else { throw malformed(line: number, "it is a forgotten event; a device sends only the events it recorded") }
            if event.event.systemEvent != nil { throw malformed(line: number, "it is a system event, which only the log itself records") }
            return event
        }

        static func malformed(line: Int, _ problem: String) -> APIError {
            APIError(
                status: .badRequest, code: "malformedEvent", message: "Line \(line) cannot be taken: \(problem). Nothing was stored.",
                details: [("line", line)])
        }

        static func answer(to refusal: CommandProcessor.IngestRefusal) -> APIError {
            switch refusal {
            case .conflict(_, let current, _):
                APIError(status: .conflict, code: "versionConflict", message: refusal.description, details: [("currentVersion", current)])
            case .gone:
                APIError(status: .gone, code: "streamForgotten", message: refusal.description)
            case .upgradeRequired:
                APIError(status: .conflict, code: "logUpgradeRequired", message: refusal.description)
            }
        }

        /// `{"stream","appended","duplicates","version"}`, and the positions of what was appended.
        static func write(_ stored: CommandProcessor.Ingested, into json: inout JSONWriter) {
            json.beginObject()
            json.key("stream")
            json.string(stored.stream)
            json.key("appended")
            json.int(stored.appended?.eventCount ?? 0)
            json.key("duplicates")
            json.int(stored.duplicates)
            json.key("version")
            json.int(stored.version)
            if let receipt = stored.appended {
                json.key("firstPosition")
                json.int(receipt.firstPosition)
                json.key("lastPosition")
                json.int(receipt.firstPosition + receipt.eventCount - 1)
            }
            json.endObject()
        }
    }
#endif
