#if Network
    import FlowLogStore
    import Hummingbird

    /// `/health`, `/metrics`, `/openapi.json`, `/invariants`, and the inspector's files.
    struct OperationRoutes {
        let view: StoreView
        let handle: LogHandle
        let projectors: [String]
        let deliveries: @Sendable () -> [TrackerDeliveries]
        var spansDropped: @Sendable () -> Int = { 0 }
        let readers: WorkerPool
        let metrics: ServerMetrics

        func register(_ routes: RouteTable) {
            routes.add(.get, "/health", scope: nil) { _, _ in
                let head = try await readers.run { try view.lastPosition() }
                return JSONBody.response { json in
                    json.beginObject()
                    json.key("status")
                    json.string("ok")
                    json.key("headPosition")
                    json.int(head)
                    json.endObject()
                }
            }
            routes.add(.get, "/metrics", scope: .read) { _, _ in
                if let head = try? await readers.run({ try view.lastPosition() }) { metrics.projectors.setHead(head) }
                if !projectors.isEmpty, let lags = try? await readers.run({ try ProjectorLag.read(projectors, from: handle.log) }) {
                    for lag in lags { metrics.projectors.setProjector(lag) }
                }
                for tracker in (try? await readers.run(deliveries)) ?? [] { metrics.projectors.setDeliveries(tracker) }
                metrics.projectors.setSpansDropped(spansDropped())
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.text())))
            }
            routes.add(.get, "/openapi.json", scope: nil) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-cache"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_json)))
            }
            routes.add(.get, "/invariants", scope: .read) { _, _ in
                JSONBody.response { json in
                    json.beginObject()
                    json.key("invariants")
                    json.beginArray()
                    for (name, summary) in LogDecider.invariants.map({ ($0.name, $0.summary) }) + [("all", "every invariant above")] {
                        json.beginObject()
                        json.key("name")
                        json.string(name)
                        json.key("summary")
                        json.string(summary)
                        json.endObject()
                    }
                    json.endArray()
                    json.endObject()
                }
            }
            InspectorFiles.register(routes)
        }
    }

    /// The inspector (`Resources/inspector/`), compiled into the binary: no files beside it, no network.
    enum InspectorFiles {
        static let files: [String: (bytes: [UInt8], type: String)] = [
            "index.html": (PackageResources.index_html, "text/html; charset=utf-8"),
            "style.css": (PackageResources.style_css, "text/css; charset=utf-8"),
            "api.js": (PackageResources.api_js, "text/javascript; charset=utf-8"),
            "app.js": (PackageResources.app_js, "text/javascript; charset=utf-8"),
            "bisect.js": (PackageResources.bisect_js, "text/javascript; charset=utf-8"),
            "details.js": (PackageResources.details_js, "text/javascript; charset=utf-8"),
            "diff.js": (PackageResources.diff_js, "text/javascript; charset=utf-8"),
            "dom.js": (PackageResources.dom_js, "text/javascript; charset=utf-8"),
            "files.js": (PackageResources.files_js, "text/javascript; charset=utf-8"),
            "format.js": (PackageResources.format_js, "text/javascript; charset=utf-8"),
            "json-path.js": (PackageResources.json_path_js, "text/javascript; charset=utf-8"),
            "json-tree.js": (PackageResources.json_tree_js, "text/javascript; charset=utf-8"),
            "live.js": (PackageResources.live_js, "text/javascript; charset=utf-8"),
            "rows.js": (PackageResources.rows_js, "text/javascript; charset=utf-8"),
            "state.js": (PackageResources.state_js, "text/javascript; charset=utf-8"),
            "streams.js": (PackageResources.streams_js, "text/javascript; charset=utf-8"),
            "timeline.js": (PackageResources.timeline_js, "text/javascript; charset=utf-8"),
        ]

        static let headers: HTTPFields = [
            .contentSecurityPolicy: "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
            .xContentTypeOptions: "nosniff",
            .cacheControl: "no-cache",
            .init("Referrer-Policy")!: "no-referrer",
        ]

        static func register(_ routes: RouteTable) {
            // Relative, so a reverse proxy's path prefix is kept.
            routes.add(.get, "/", scope: nil) { _, _ in Response(status: .found, headers: [.location: "inspector/"]) }
            // The router takes /inspector and /inspector/ for one path; the page's relative addresses need the slash.
            routes.add(.get, "/inspector", scope: nil) { request, _ in
                request.uri.path.hasSuffix("/") ? try file("index.html") : Response(status: .found, headers: [.location: "inspector/"])
            }
            routes.add(.get, "/inspector/{file}", scope: nil) { _, context in try file(context.parameters.get("file") ?? "") }
        }

        static func file(_ name: String) throws -> Response {
            guard let file = files[name] else {
                throw APIError.notFound("notFound", "The inspector has no file \(Query.shown(name)).")
            }
            var fields = headers
            fields[.contentType] = file.type
            return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
        }
    }
#endif
