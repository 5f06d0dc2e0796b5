#if Network
    import FlowLogBasics
    import FlowLogMemory
    import Hummingbird

    /// `POST /sessions` (an export opened as a scratch log in memory), `DELETE /sessions/{session}`,
    /// and the read routes under `/sessions/{session}/…`.
    struct SessionRoutes {
        let sessions: ScratchSessions
        let readers: WorkerPool
        let limits: ServerLimits

        func register(_ routes: RouteTable) {
            routes.add(.post, "/sessions", scope: .read) { request, _ in try await create(request) }
            routes.add(.delete, "/sessions/{session}", scope: .read) { _, context in
                let id = context.parameters.get("session") ?? ""
                guard sessions.remove(id) else { throw Self.gone(id) }
                return Response(status: .noContent)
            }
            StreamRoutes(
                prefix: "/sessions/{session}",
                resolve: { [sessions] context in
                    let id = context.parameters.get("session") ?? ""
                    guard let log = sessions.use(id) else { throw Self.gone(id) }
                    return log
                }, readers: readers, immutableVersions: false
            ).register(routes)
        }

        static func gone(_ id: String) -> APIError {
            .notFound(
                "sessionNotFound",
                "There is no session \(Query.shown(id)); it may have expired (sessions last an hour after their last use). Open the file again.")
        }

        func create(_ request: Request) async throws -> Response {
            guard request.mediaType == "application/x-ndjson" else {
                throw APIError.unsupportedMediaType("Send the export as Content-Type application/x-ndjson", sent: request.mediaType)
            }
            let body = try await request.readBody(
                limit: limits.sessionBytes,
                limitMessage: "The file is over 64 MiB, the limit for a session; export fewer streams (`\(ProgramName.current) export --stream S`).")
            let id = ScratchSessions.newID()
            let log: ReadOnlyMemoryLog = try await readers.run {
                do {
                    return try body.withUnsafeReadableBytes { try SessionFile.read(ndjson: $0) }
                } catch let invalid as SessionFile.Invalid {
                    throw APIError(status: .badRequest, code: "invalidExport", message: invalid.message)
                }
            }
            sessions.add(log, id: id)
            return JSONBody.response(status: .created, headers: [.location: "sessions/\(id)"]) { json in
                json.beginObject()
                json.key("session")
                json.string(id)
                json.key("streams")
                json.int(log.streamCount)
                json.key("events")
                json.int(log.eventCount)
                json.endObject()
            }
        }
    }
#endif
