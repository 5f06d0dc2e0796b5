import FlowLogBasics
import FlowLogLMDB
import FlowLogTesting
import Foundation
import Testing

@Suite("OutputTarget and OutputFile")
struct OutputFileTests {
    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func eachKindOfPathIsClassifiedByWhatItReallyIs() throws {
        let folder = TemporaryDirectory()
        let real = OutputPath.resolve(folder.path)
        try write("x", to: folder.child("old.txt"))
        try FileManager.default.createSymbolicLink(atPath: folder.child("link.txt"), withDestinationPath: "old.txt")
        try FileManager.default.createSymbolicLink(atPath: folder.child("dangling.txt"), withDestinationPath: "later.txt")
        #expect(try OutputTarget.resolve("-", force: false).kind == .descriptor(1))
        #expect(try OutputTarget.resolve("/dev/stdout", force: false).kind == .descriptor(1))
        #expect(try OutputTarget.resolve("/dev/stderr", force: false).kind == .descriptor(2))
        #expect(try OutputTarget.resolve("/dev/null", force: false).kind == .stream(path: "/dev/null"))
        #expect(try OutputTarget.resolve(folder.child("new.txt"), force: false).kind == .file(path: real + "/new.txt", replacing: false))
        #expect(try OutputTarget.resolve(folder.child("old.txt"), force: true).kind == .file(path: real + "/old.txt", replacing: true))
        #expect(try OutputTarget.resolve(folder.child("link.txt"), force: true).kind == .file(path: real + "/old.txt", replacing: true))
        #expect(try OutputTarget.resolve(folder.child("dangling.txt"), force: false).kind == .file(path: real + "/later.txt", replacing: false))
        #expect(throws: FlowLogError.output(.exists(folder.child("old.txt")))) { try OutputTarget.resolve(folder.child("old.txt"), force: false) }
        #expect(throws: FlowLogError.output(.exists(folder.child("link.txt")))) { try OutputTarget.resolve(folder.child("link.txt"), force: false) }
        #expect(throws: FlowLogError.output(.folder(folder.path))) { try OutputTarget.resolve(folder.path, force: true) }
        #expect(throws: FlowLogError.output(.empty)) { try OutputTarget.resolve("", force: true) }
    }

    @Test func nothingInsideAnLMDBEnvironmentIsWritable() throws {
        let folder = TemporaryDirectory()
        _ = try LMDBEventLog(path: folder.child("log"))
        let environment = OutputPath.resolve(folder.child("log"))
        try FileManager.default.createDirectory(atPath: folder.child("log/deeper/still"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.child("alias"), withDestinationPath: "log/deeper")
        for path in ["log/data.mdb", "log/lock.mdb", "log/x.csv", "log/deeper/still/x.csv", "alias/x.csv", "log/", "log/."].map(folder.child) {
            #expect(throws: FlowLogError.output(.insideLMDBEnvironment(path, environment: environment)), "\(path)") {
                try OutputTarget.resolve(path, force: true)
            }
        }
        // A file named like LMDB's own would make a folder look like an environment.
        #expect(OutputPath.enclosingLMDBEnvironment(of: folder.child("data.mdb")) == OutputPath.resolve(folder.path))
        #expect(OutputPath.enclosingLMDBEnvironment(of: folder.child("log-tracker/segment.ndjson")) == nil)
    }

    @Test func aFileAppearsOnlyWhenCommittedAndNeverOverOneThatAppearedMeanwhile() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("out.txt")
        do {
            let output = try OutputFile(try OutputTarget.resolve(path, force: false))
            try output.write(Array("half".utf8))
            #expect(contents(path) == nil && contents(path + ".partial") == "half")
        }
        #expect(contents(path) == nil && contents(path + ".partial") == nil, "dropped without commit: nothing is left")

        let output = try OutputFile(try OutputTarget.resolve(path, force: false))
        try output.write(Array("mine".utf8))
        try write("theirs", to: path)
        #expect(throws: FlowLogError.output(.exists(path))) { try output.commit() }
        #expect(contents(path) == "theirs" && contents(path + ".partial") == nil)

        let forced = try OutputFile(try OutputTarget.resolve(path, force: true))
        try forced.write(Array("mine".utf8))
        try forced.commit()
        #expect(contents(path) == "mine" && contents(path + ".partial") == nil)
    }
}
