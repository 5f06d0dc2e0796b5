import FlowLogFuzzing
import Foundation
import Testing

/// Every input kept under `Tests/Fuzz/<target>/` (the seed corpus, and in `crashes/` every input
/// that once broke a target) run through its target in process: a crash found and fixed stays fixed.
/// A broken rule stops the test process, which fails the run.
@Suite("Fuzz corpus")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz").path

    @Test(arguments: FuzzTargets.all.map(\.name))
    func everyKeptInputRunsClean(target name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let files = FuzzCorpus.files(at: Self.corpus + "/" + name)
        #expect(!files.isEmpty, "every target has a seed corpus in Tests/Fuzz/\(name)")
        for file in files {
            let bytes = try #require(FuzzCorpus.contents(of: file))
            target.run(bytes)
        }
    }

    @Test func everyCorpusFolderNamesATarget() {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: Self.corpus)) ?? []
        let folders = entries.filter { entry in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: Self.corpus + "/" + entry, isDirectory: &isFolder) && isFolder.boolValue
        }
        #expect(!folders.isEmpty)
        let names = Set(FuzzTargets.all.map(\.name))
        #expect(folders.filter { !names.contains($0) } == [], "a corpus folder in Tests/Fuzz whose target is gone or misspelt")
    }
}
