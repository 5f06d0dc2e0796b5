import FlowLogBasics
package import FlowLogStore
import FlowLogSystem
import LMDB

/// The streams an import in steps sets aside (`ImportStreamSpill`), in an LMDB environment of their
/// own inside the staged import's folder: stream id → version, last position, then the state with
/// its latest kept row. A B-tree on disk, so the import's memory does not grow with the number of
/// streams; the page cache keeps what is read again. Nothing else opens it (no lock file), and it
/// goes with the staged import's folder.
///
/// An import into PostgreSQL sets its streams aside here too, whole (its snapshots hold every kept
/// row), in a folder of its own under the temporary directory, removed when the import is done
/// (`temporary()`).
package final class SpilledStreams: ImportStreamSpill {
    /// The folder's name inside the staged import's.
    static let folderName = "streams.partial"

    private let environment: Environment
    private let database: Database
    private let path: String
    /// Whether states are kept with every kept row, or with their latest only.
    private let wholeStates: Bool
    /// The temporary folder to remove when done, for a spill of its own.
    private var temporaryFolder: String?

    /// A spill of whole states in a new folder under `TMPDIR` (or /tmp), removed when the spill goes.
    package static func temporary() throws -> SpilledStreams {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/flowlog-import-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw FlowLogError.io(path: base, detail: "creating a folder for the import's streams failed: \(String(cString: strerror(errno)))")
        }
        let folder = String(cString: made)
        do {
            let spill = try SpilledStreams(folder: folder + "/" + folderName, wholeStates: true)
            spill.temporaryFolder = folder
            return spill
        } catch {
            rmdir(folder)
            throw error
        }
    }

    deinit {
        guard let temporaryFolder else { return }
        // Unlinked while the environment is still open: Linux frees the file once it closes.
        unlink(path + "/data.mdb")
        rmdir(path)
        rmdir(temporaryFolder)
    }

    /// Creates the environment in `folder`, which must not exist.
    init(folder: String, wholeStates: Bool = false) throws {
        self.wholeStates = wholeStates
        guard mkdir(folder, 0o700) == 0 else {
            throw FlowLogError.io(path: folder, detail: "creating it failed: \(String(cString: strerror(errno)))")
        }
        var options = Environment.Options()
        options.maxDatabases = 1
        options.noLock = true
        // Address space only: the file grows as pages are written.
        options.initialMapSize = 1 << 38
        do {
            environment = try Environment(path: folder, options: options)
            try environment.setSynchronousCommits(false)
            database = try environment.write { txn in try txn.openDatabase(named: nil) }
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: folder)
        }
        path = folder
    }

    /// Streams set aside by one write transaction at most. Each puts an entry where its name
    /// sorts, so sessions with random names change a page each, and LMDB holds a transaction's
    /// changed pages in heap memory until it commits (and as many after, for reuse). The spill does
    /// not sync its commits, so more of them cost little (decisions.md, "Writes of many streams'
    /// entries go in bounded pieces").
    static let streamsPerTransaction = 1_024

    package func setAside(_ streams: [(stream: String, version: Int, position: Int, state: StreamState)]) throws {
        var state = BinaryWriter(capacity: 256)
        var value = BinaryWriter(capacity: 256)
        // In the database's key order (bytes): neighbours share their pages and the cursor's path
        // down the tree.
        let order = streams.indices.sorted { streams[$0].stream.utf8.lexicographicallyPrecedes(streams[$1].stream.utf8) }
        do {
            for chunk in stride(from: 0, to: order.count, by: Self.streamsPerTransaction) {
                try environment.write { txn in
                    for index in order[chunk..<min(chunk + Self.streamsPerTransaction, order.count)] {
                        let stream = streams[index]
                        if wholeStates { stream.state.encode(into: &state) } else { stream.state.encodeKeepingLatestRow(into: &state) }
                        value.reset()
                        value.write(UInt64(stream.version))
                        value.write(UInt64(stream.position))
                        state.withUnsafeBytes { value.write(bytes: $0) }
                        try value.withUnsafeBytes { value in
                            var name = stream.stream
                            try name.withUTF8 { try txn.put(database, key: UnsafeRawBufferPointer($0), value: value) }
                        }
                    }
                }
            }
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }

    package func takeBack(_ stream: String) throws -> (version: Int, position: Int, state: StreamState)? {
        do {
            return try environment.read { txn in
                guard let value = try txn.get(database, key: Array(stream.utf8)) else { return nil }
                return try decode(value)
            }
        } catch let error as LMDBError {
            throw FlowLogError.reading(error, path: path)
        }
    }

    /// Every stream set aside, in stream id order.
    package func forEachStream(_ body: (String, Int, Int, StreamState) throws -> Void) throws {
        do {
            try environment.read { txn in
                try txn.withCursor(database) { cursor in
                    var entry = try cursor.first()
                    while let (key, value) = entry {
                        let (version, position, state) = try decode(value)
                        try body(String(decoding: key, as: UTF8.self), version, position, state)
                        entry = try cursor.next()
                    }
                }
            }
        } catch let error as LMDBError {
            throw FlowLogError.reading(error, path: path)
        }
    }

    private func decode(_ value: UnsafeRawBufferPointer) throws -> (version: Int, position: Int, state: StreamState) {
        let bytes = UnsafeRawBufferPointer(rebasing: value[min(16, value.count)...])
        guard value.count > 16, let state = wholeStates ? StreamState.decode(bytes) : StreamState.decodeKeepingLatestRow(bytes) else {
            throw FlowLogError.io(path: path, detail: "a stream the import set aside there cannot be read back")
        }
        return (Keys.decodeInt(value), Keys.decodeInt(value, at: 8), state)
    }
}
