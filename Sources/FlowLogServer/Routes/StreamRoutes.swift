import Deciding

#if Network
    import FlowLogBasics
    import FlowLogHistory
    import FlowLogStore
    import Hummingbird

    /// The read routes of one log, the server's (`/streams…`) or a session's
    /// (`/sessions/{session}/streams…`): streams, a stream's state, events, versions and bisect.
    struct StreamRoutes {
        let prefix: String
        /// The log a request reads (throws 404 for a session that is gone).
        let resolve: @Sendable (ServerContext) throws -> any InspectedLog
        let readers: WorkerPool
        /// The server's log never changes a version once written; a session may be replaced.
        let immutableVersions: Bool

        /// The most names one `q` request examines before it answers with a cursor.
        static let scanBudget = 20_000
        /// The most events one filtered page examines.
        static let examineBudget = 5_000

        func register(_ routes: RouteTable) {
            routes.add(.get, "\(prefix)/streams", scope: .read) { request, context in
                let log = try resolve(context)
                let query = Query(request)
                let limit = try query.integer("limit", in: 1...1000, default: 100)!
                let prefix = query.string("prefix")
                let search = query.string("q")
                let after = query.string("after")
                return try await readers.run { try streamPage(log, prefix: prefix, search: search, after: after, limit: limit) }
            }
            routes.add(.get, "\(prefix)/streams/{stream}", scope: .read) { request, context in
                let log = try resolve(context)
                let stream = try streamParameter(context)
                let at = try Query(request).integer("at", in: 0...Int.max)
                return try await readers.run { try state(log, stream: stream, at: at) }
            }
            routes.add(.get, "\(prefix)/streams/{stream}/events", scope: .read) { request, context in
                let log = try resolve(context)
                let stream = try streamParameter(context)
                let query = Query(request)
                let from = try query.integer("fromVersion", in: 1...Int.max, default: 1)!
                let limit = try query.integer("limit", in: 1...1000, default: 100)!
                let kinds = try query.eventKinds("type")
                let actor = try query.string("actor").map { name in
                    guard let actor = Actor(rawValue: name) else {
                        throw APIError.invalidParameter("actor must be user or system, not \(Query.shown(name)).")
                    }
                    return actor
                }
                return try await readers.run { try events(log, stream: stream, from: from, limit: limit, kinds: kinds, actor: actor) }
            }
            routes.add(.get, "\(prefix)/streams/{stream}/versions/{version}", scope: .read) { _, context in
                let log = try resolve(context)
                let stream = try streamParameter(context)
                let raw = context.parameters.get("version") ?? ""
                let digits = !raw.isEmpty && raw.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
                guard let version = Int(raw) ?? (digits ? Int.max : nil), version >= 0 else {
                    throw APIError.invalidParameter("The version must be an integer of 0 or more, not \(Query.shown(raw)).")
                }
                return try await readers.run { try versionDetail(log, stream: stream, version: version) }
            }
            routes.add(.get, "\(prefix)/streams/{stream}/bisect", scope: .read) { request, context in
                let log = try resolve(context)
                let stream = try streamParameter(context)
                guard let name = Query(request).string("invariant") else {
                    throw APIError.invalidParameter("Name the invariant to check with invariant= (GET /invariants lists them).")
                }
                guard let invariant = LogDecider.invariant(named: name) else {
                    throw APIError(
                        status: .badRequest, code: "unknownInvariant",
                        message:
                            "There is no invariant \(Query.shown(name)); the invariants are \(LogDecider.invariantNames.joined(separator: ", "))."
                    )
                }
                return try await readers.run { try bisect(log, stream: stream, invariant: invariant) }
            }
        }

        private func existingVersion(_ log: any InspectedLog, _ stream: String) throws -> Int {
            let version = try log.version(of: stream)
            guard version > 0 else {
                throw APIError.streamNotFound(stream, listing: "GET \(prefix.isEmpty ? "" : "…")/streams")
            }
            return version
        }

        /// One page of `GET /streams`: a walk of the log's stream table from `after` or `prefix`
        /// (whichever comes later in byte order), never the whole list.
        func streamPage(_ log: any InspectedLog, prefix: String?, search: String?, after: String?, limit: Int) throws -> Response {
            let start = [after, prefix].compactMap { $0 }.max { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            let needle = search.map { Array($0.lowercased().utf8) }
            var page: [StreamListing] = []
            var examined = 0
            var lastExamined: String?
            var next: String?
            try log.forEachStream(from: start) { name, version in
                if let after, name.utf8.elementsEqual(after.utf8) { return true }
                if let prefix, !name.hasPrefix(prefix) { return false }
                if page.count == limit {
                    next = page.last?.stream
                    return false
                }
                if examined >= Self.scanBudget, let lastExamined {
                    next = lastExamined
                    return false
                }
                examined += 1
                lastExamined = name
                if let needle, !Self.contains(name, needle) { return true }
                page.append(try log.summary(of: name, version: version))
                return true
            }
            return JSONBody.response { json in
                json.beginObject()
                json.key("streams")
                json.beginArray()
                for summary in page { Self.write(summary, into: &json) }
                json.endArray()
                json.key("next")
                json.string(next)
                json.endObject()
            }
        }

        static func contains(_ name: String, _ needle: [UInt8]) -> Bool {
            if needle.isEmpty { return true }
            let bytes = Array(name.utf8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
            guard bytes.count >= needle.count else { return false }
            for start in 0...(bytes.count - needle.count) where bytes[start..<start + needle.count].elementsEqual(needle) { return true }
            return false
        }

        static func write(_ summary: StreamListing, into json: inout JSONWriter) {
            json.beginObject()
            json.key("stream")
            json.string(summary.stream)
            json.key("version")
            json.int(summary.version)
            json.key("firstPosition")
            json.int(summary.firstPosition)
            json.key("lastPosition")
            json.int(summary.lastPosition)
            json.key("lastTimestamp")
            json.string(summary.lastTimestamp.rfc3339)
            json.endObject()
        }

        func state(_ log: any InspectedLog, stream: String, at: Int?) throws -> Response {
            _ = try existingVersion(log, stream)
            if let at {
                let last = try log.lastPosition()
                guard at <= last else {
                    throw APIError(
                        status: .badRequest, code: "positionOutOfRange",
                        message:
                            "at=\(at) is outside the log, which holds positions \(last == 0 ? "none yet" : "1 through \(last)"); choose a position in that range, or 0 for the initial state."
                    )
                }
            }
            let (state, version) = try log.state(ofStream: stream, throughPosition: at)
            return JSONBody.response { json in FlowJSON.writeState(state, stream: stream, version: version, into: &json) }
        }

        func events(_ log: any InspectedLog, stream: String, from: Int, limit: Int, kinds: Set<LogDecider.Event.Kind>, actor: Actor?) throws
            -> Response
        {
            let last = try existingVersion(log, stream)
            let filtered = !kinds.isEmpty || actor != nil
            var events: [RecordedEvent] = []
            var version = from
            var examined = 0
            while version <= last, events.count < limit, !(filtered && examined >= Self.examineBudget) {
                guard let event = try log.event(inStream: stream, version: version) else { break }
                examined += 1
                version += 1
                if !kinds.isEmpty, !kinds.contains(event.event.kind) { continue }
                if let actor, event.actor != actor { continue }
                events.append(event)
            }
            let next: Int? = version <= last ? version : nil
            return JSONBody.response { json in
                json.beginObject()
                json.key("events")
                json.beginArray()
                for event in events { FlowJSON.writeEvent(event, into: &json) }
                json.endArray()
                json.key("nextVersion")
                if let next { json.int(next) } else { json.null() }
                json.endObject()
            }
        }

        func versionDetail(_ log: any InspectedLog, stream: String, version: Int) throws -> Response {
            let last = try existingVersion(log, stream)
            guard version <= last else {
                throw APIError.notFound(
                    "versionNotFound", "Stream \(stream) has versions 0 through \(last), not \(version); choose a version in that range.")
            }
            var event: RecordedEvent?
            var before = LogDecider.initialState
            var after = LogDecider.initialState
            if version > 0 {
                guard let found = try log.event(inStream: stream, version: version) else {
                    throw APIError.notFound("versionNotFound", "Stream \(stream) has no version \(version).")
                }
                event = found
                before = try log.state(ofStream: stream, throughPosition: found.position - 1).state
                after = before
                LogDecider.evolve(&after, found.event)
            }
            let changes = version == 0 ? [] : StateDiff.changes(from: before, to: after)
            let headers: HTTPFields = immutableVersions ? [.cacheControl: "private, max-age=31536000, immutable"] : [:]
            return JSONBody.response(headers: headers) { json in
                json.beginObject()
                json.key("event")
                if let event { FlowJSON.writeEvent(event, into: &json) } else { json.null() }
                json.key("state")
                FlowJSON.writeState(after, stream: stream, version: version, into: &json)
                json.key("changes")
                json.beginArray()
                for change in changes { StateDiff.write(change, into: &json) }
                json.endArray()
                json.endObject()
            }
        }

        func bisect(_ log: any InspectedLog, stream: String, invariant: Invariant<LogDecider.State>) throws -> Response {
            let versions = try existingVersion(log, stream)
            var reasons: [Int: String] = [:]
            let outcome = try Bisector.bisect(
                versions: versions,
                state: { version in try log.state(ofStream: stream, afterVersion: version) },
                event: { version in
                    guard let event = try log.event(inStream: stream, version: version) else {
                        throw APIError.notFound("versionNotFound", "Stream \(stream) has no version \(version).")
                    }
                    return event
                },
                check: { version, state in
                    guard let violation = invariant.violation(in: state) else { return .good }
                    reasons[version] = invariant.name == "all" ? violation : "\(invariant.name): \(violation)"
                    return .bad
                })
            return JSONBody.response { json in
                json.beginObject()
                switch outcome {
                case .found(let culprit):
                    json.key("found")
                    json.bool(true)
                    json.key("version")
                    json.int(culprit.record.version)
                    json.key("position")
                    json.int(culprit.record.position)
                    json.key("event")
                    FlowJSON.writeEvent(culprit.record, into: &json)
                    json.key("reason")
                    json.string(reasons[culprit.record.version] ?? invariant.name)
                    json.key("reconstructions")
                    json.int(culprit.reconstructions)
                case .finalStateIsGood(_, let reconstructions), .undecided(_, let reconstructions), .finalStateSkipped(_, let reconstructions):
                    json.key("found")
                    json.bool(false)
                    json.key("version")
                    json.null()
                    json.key("position")
                    json.null()
                    json.key("event")
                    json.null()
                    json.key("reason")
                    json.null()
                    json.key("reconstructions")
                    json.int(reconstructions)
                }
                json.endObject()
            }
        }
    }
#endif
