import FlowLog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Composition {
    static let projectorNames = ["storage", "tracker.segment", "tracker.snake"]

    /// The three projectors, wired to the log and the trackers' files or endpoints.
    static func projectors(_ log: any LogStore, tracker: TrackerOptions, options: LogOptions) throws -> [any Projector] {
        let folder = tracker.folder(for: options)
        // An NDJSON sink appends, and cuts a torn last line: inside a log (or through a link into
        // one) that would write into its database files, so such a folder or file is refused.
        let files = [folder] + [(SegmentService().name, tracker.segmentURL), (SnakeCaseService().name, tracker.snakeURL)]
            .filter { $0.1 == nil }.map { "\(folder)/\($0.0).ndjson" }
        for file in files {
            if let environment = OutputPath.enclosingLMDBEnvironment(of: file) {
                throw CLIFailure("The tracker's \(file == folder ? "folder" : "file") \(file) is inside \(environment), an LMDB environment (a FlowLog log, or another program's database); analytics calls are never written there. Choose another folder with --tracker-dir; nothing was written.", .usage)
            }
        }
        if mkdir(folder, 0o755) != 0 && errno != EEXIST {
            throw CLIFailure("Cannot create the tracker folder \(folder): \(String(cString: strerror(errno))). Choose another with --tracker-dir.", .cannotCreate)
        }
        let services: [(any AnalyticsService, String?)] = [(SegmentService(), tracker.segmentURL), (SnakeCaseService(), tracker.snakeURL)]
        return [StorageProjector(store: log) as any Projector] + services.map { service, url in
            let sink: any TrackerSink = url.flatMap(URL.init(string:)).map { HTTPBatchSink(url: $0) } ?? NDJSONFileSink(path: "\(folder)/\(service.name).ndjson")
            return TrackerProjector(service: service, sink: sink, log: log) as any Projector
        }
    }
}
