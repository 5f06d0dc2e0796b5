#if Network
    import FlowLog
    import FlowLogBasics
    import FlowLogStore
    import Hummingbird

    /// `DELETE /streams/{stream}`: `flowlog forget --stream S` over HTTP (issue 29, item 6), for a token
    /// with the `admin` scope only: erasing is not something a client that feeds or reads the log
    /// should be able to do by holding the token it already has.
    ///
    /// The forget runs on the log's one writer (`CommandWriter.forget`), so it never splits a group
    /// commit and the processor forgets its cached state of the stream. Afterwards
    /// every route answers for the stream as for one that never existed.
    struct ForgetRoutes {
        let writer: CommandWriter
        /// Where blocking file work runs, off the event loop.
        let readers: WorkerPool
        /// The operator's pseudonym key: the audit event keeps the stream's pseudonym under it, by
        /// which a late upload of the stream is refused (`IngestRoutes`).
        let key: [UInt8]?
        /// Takes the stream's lines out of the trackers' files first, as `flowlog forget` does.
        let beforeForgetting: @Sendable ([String]) throws -> Void

        func register(_ routes: RouteTable) {
            routes.add(.delete, "/streams/{stream}", scope: .admin) { request, context in
                let stream = try streamParameter(context)
                // The audit trail's reason (`?reason=`): kept in the log, so never personal data.
                let reason = request.uri.queryParameters["reason"].map(String.init) ?? ""
                if let problem = ErasureAudit.problem(withReason: reason, naming: [stream]) {
                    throw APIError(status: .badRequest, code: "invalidParameter", message: "reason \(problem). Nothing was changed.")
                }
                let forgotten: ForgottenStream
                do {
                    // The tracker files are read and written whole: a reader thread's work, not the event loop's.
                    let rewrite = beforeForgetting
                    try await readers.run { try rewrite([stream]) }
                    forgotten = try await writer.forget(stream, reason: reason, key: key)
                } catch {
                    throw Self.answer(to: error, stream: stream)
                }
                return JSONBody.response { json in FlowJSON.writeForgotten(forgotten, into: &json) }
            }
        }

        /// The refusals, as the document lists them. An unknown stream and one forgotten before get the
        /// very answer `GET /streams/{stream}` gives a stream that never existed.
        static func answer(to error: any Error, stream: String) -> APIError {
            switch error {
            case ForgetRefusal.unknownStream:
                return .streamNotFound(stream)
            case ForgetRefusal.upgradeRequired(_, let logSchema):
                // 409: the request is sound, the log's state is in the way, and `flowlog upgrade` mends it.
                return APIError(
                    status: .conflict, code: "upgradeRequired",
                    message:
                        "The log is at log schema \(logSchema), whose records cannot be forgotten without breaking its hash chain. Run `\(ProgramName.current) upgrade --db LOG` on the server's log once (it writes a backup first), then ask again; nothing was changed."
                )
            case is CommandProcessor.ForgettingUnsupported:
                return APIError(
                    status: .notImplemented, code: "forgettingUnsupported",
                    message: "This server's log cannot forget a stream: only LMDB and PostgreSQL logs can. Nothing was changed.")
            default:
                return .from(error)
            }
        }
    }
#endif
