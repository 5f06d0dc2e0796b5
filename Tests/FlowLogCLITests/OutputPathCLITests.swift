import FlowLogTesting
import Foundation
import Testing

/// `export --output PATH` and the tracker's files: a path is written, or refused with exit 64 and
/// nothing changed; it is never replaced by accident, and never inside a log.
@Suite("output paths from the command line")
struct OutputPathCLITests {
    /// A log with the demo's 17 events, and its export as standard output gives it.
    private func demoLog() throws -> (folder: TemporaryDirectory, db: [String], export: String) {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        let demo = try FlowLogProcess.run(["demo", "--stream", "d"] + db)
        #expect(demo.status == 0, "\(demo.stderr)")
        let export = try FlowLogProcess.run(["export"] + db)
        return (folder, db, export.stdout)
    }

    private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    private func kind(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    @Test func aPathInsideTheLogIsRefusedAndTheLogIsUntouched() throws {
        let (folder, db, _) = try demoLog()
        let log = folder.child("log")
        let before = bytes(log + "/data.mdb")
        let files = try FileManager.default.contentsOfDirectory(atPath: log).sorted()
        try FileManager.default.createSymbolicLink(atPath: folder.child("innocent.ndjson"), withDestinationPath: log + "/data.mdb")
        for target in [log + "/data.mdb", log + "/events.ndjson", log + "/lock.mdb", folder.child("innocent.ndjson")] {
            for force in [[], ["--force"]] {
                let result = try FlowLogProcess.run(["export", "--output", target] + force + db)
                #expect(result.status == 64, "\(target) \(force): \(result.stderr)")
                #expect(result.stderr.contains("an LMDB environment"), "\(target)")
                #expect(result.stdout.isEmpty)
            }
        }
        #expect(bytes(log + "/data.mdb") == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: log).sorted() == files)
        #expect(kind(folder.child("innocent.ndjson")) == S_IFLNK)
        #expect(try FlowLogProcess.run(["verify"] + db).status == 0)
    }

    @Test func aFolderIsRefused() throws {
        let (folder, db, _) = try demoLog()
        for target in [folder.path, folder.path + "/", folder.child("log")] {
            let result = try FlowLogProcess.run(["export", "-o", target, "--force"] + db)
            #expect(result.status == 64, "\(target): \(result.stderr)")
        }
        let plain = try FlowLogProcess.run(["export", "-o", folder.path] + db)
        #expect(plain.stderr.contains("is a folder, not a file"))
        #expect(kind(folder.path + ".partial") == nil)
    }

    @Test func anExistingFileIsReplacedOnlyWithForce() throws {
        let (folder, db, export) = try demoLog()
        let target = folder.child("events.ndjson")
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: target))
        let refused = try FlowLogProcess.run(["export", "--output", target] + db)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("exists; give --force to replace it"))
        #expect(bytes(target) == Data("keep me\n".utf8))
        #expect(kind(target + ".partial") == nil)

        let forced = try FlowLogProcess.run(["export", "--output", target, "--force"] + db)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(bytes(target) == Data(export.utf8))

        // Through a symlink the file it points to is replaced; the link stays a link.
        try FileManager.default.createSymbolicLink(atPath: folder.child("latest.ndjson"), withDestinationPath: "events.ndjson")
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: target))
        #expect(try FlowLogProcess.run(["export", "-o", folder.child("latest.ndjson")] + db).status == 64)
        #expect(try FlowLogProcess.run(["export", "-o", folder.child("latest.ndjson"), "--force"] + db).status == 0)
        #expect(kind(folder.child("latest.ndjson")) == S_IFLNK)
        #expect(bytes(target) == Data(export.utf8))
    }

    @Test func aNewFileAppearsWholeAndAMissingFolderIsStill73() throws {
        let (folder, db, export) = try demoLog()
        // A .partial left by a killed export, and one planted as a link, are replaced, not followed.
        try Data("torn".utf8).write(to: URL(fileURLWithPath: folder.child("new.ndjson.partial")))
        let fresh = try FlowLogProcess.run(["export", "-o", folder.child("new.ndjson")] + db)
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(bytes(folder.child("new.ndjson")) == Data(export.utf8))
        try Data("precious".utf8).write(to: URL(fileURLWithPath: folder.child("precious")))
        try FileManager.default.createSymbolicLink(atPath: folder.child("other.ndjson.partial"), withDestinationPath: folder.child("precious"))
        #expect(try FlowLogProcess.run(["export", "-o", folder.child("other.ndjson")] + db).status == 0)
        #expect(bytes(folder.child("precious")) == Data("precious".utf8))
        #expect(kind(folder.child("new.ndjson.partial")) == nil && kind(folder.child("other.ndjson.partial")) == nil)

        let missing = try FlowLogProcess.run(["export", "-o", folder.child("no/such/folder/x.ndjson")] + db)
        #expect(missing.status == 73)
        #expect(missing.stderr.contains("Check that the folder exists"))
    }

    @Test func aFIFOIsWrittenThroughAndStaysAFIFO() throws {
        let (folder, db, export) = try demoLog()
        let fifo = folder.child("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Held open for reading and writing, the FIFO never blocks; the export (a few KB) fits its buffer.
        let held = open(fifo, O_RDWR | O_NONBLOCK)
        defer { close(held) }
        let result = try FlowLogProcess.run(["export", "--output", fifo] + db)
        #expect(result.status == 0, "\(result.stderr)")
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(held, &chunk, chunk.count)
            if count <= 0 { break }
            received += chunk[..<count]
        }
        #expect(String(decoding: received, as: UTF8.self) == export)
        #expect(kind(fifo) == S_IFIFO)
        #expect(kind(fifo + ".partial") == nil)
    }

    /// Not run against the old build: it replaced /dev/stdout and /dev/null themselves.
    @Test func standardOutputAndDevicesAreWrittenThroughNeverReplaced() throws {
        let (folder, db, export) = try demoLog()
        defer { withExtendedLifetime(folder) {} }
        for target in ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            let result = try FlowLogProcess.run(["export", "--output", target] + db)
            #expect(result.status == 0, "\(target): \(result.stderr)")
            #expect(result.stdout == export, "\(target)")
        }
        let null = try FlowLogProcess.run(["export", "--output", "/dev/null"] + db)
        #expect(null.status == 0 && null.stdout.isEmpty)
        #expect(kind("/dev/null") == S_IFCHR)
        #expect(kind("/dev/stdout") == S_IFLNK)
        let closed = try FlowLogProcess.run(["export", "--output", "/dev/fd/9"] + db)
        #expect(closed.status == 64)
        #expect(closed.stderr.contains("descriptor 9"))
    }

    @Test func trackerFilesNeverGoIntoALog() throws {
        let (folder, db, _) = try demoLog()
        let log = folder.child("log")
        let before = bytes(log + "/data.mdb")
        let files = try FileManager.default.contentsOfDirectory(atPath: log).sorted()
        for trackerDir in [log, log + "/tracker"] {
            let result = try FlowLogProcess.run(["projections", "rebuild", "tracker.segment", "--tracker-dir", trackerDir] + db)
            #expect(result.status == 64, "\(trackerDir): \(result.stderr)")
            #expect(result.stderr.contains("an LMDB environment"))
        }
        // A tracker file that is a link into the log is refused too: the sink would cut the file at its last newline.
        let elsewhere = folder.child("calls")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: elsewhere + "/segment.ndjson", withDestinationPath: log + "/data.mdb")
        let linked = try FlowLogProcess.run(["projections", "rebuild", "tracker.segment", "--tracker-dir", elsewhere] + db)
        #expect(linked.status == 64, "\(linked.stderr)")
        #expect(bytes(log + "/data.mdb") == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: log).sorted() == files)
    }
}
