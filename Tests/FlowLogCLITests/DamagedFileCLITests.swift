import FlowLogSystem
import FlowLogTesting
import Foundation
import Testing

/// The built `flowlog` on copies of the schema-4 fixture with one bit flipped in a used page: the
/// in-process harness (FlowLogLMDBTests' `DamagedFileTests`) checks what each command says; this
/// sample checks what a user sees of the process: it exits 0 or 65, never by a signal, and a 65
/// says to restore from a backup.
@Suite("Damaged data files through the binary")
struct DamagedFileCLITests {
    @Test func fortyFlipsNeverEndAProcessByASignal() throws {
        let fixture = FlowLogProcess.fixtures.appendingPathComponent("logs/schema-4/data.mdb")
        let original = Array(try Data(contentsOf: fixture))
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        // The last page the newest meta page names (its transaction id at 144, its last page at 136).
        func load(_ offset: Int) -> Int {
            original.withUnsafeBytes { Int(UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self))) }
        }
        let newest = load(144) > load(pageSize + 144) ? 0 : pageSize
        let used = (load(newest + 136) + 1) * pageSize
        let folder = TemporaryDirectory()
        var rng = SplitMix64(seed: 65)
        var damaged = 0
        for _ in 0..<40 {
            var bytes = original
            let offset = Int.random(in: (2 * pageSize)..<used, using: &rng)
            bytes[offset] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
            let copy = folder.child("copy")
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
            #expect(FileManager.default.createFile(atPath: copy + "/data.mdb", contents: Data(bytes)))
            for command in [["verify"], ["export"], ["replay", "--summary"], ["state", "--stream", "usd", "--at", "40"]] {
                let result = try FlowLogProcess.run(command + ["--db", copy])
                #expect(result.status == 0 || result.status == 65, "\(command) on byte \(offset): exit \(result.status) \(result.stderr.prefix(300))")
                if result.status == 65 {
                    damaged += 1
                    #expect((result.stdout + result.stderr).contains("backup"), "\(command) on byte \(offset): \(result.stderr.prefix(300))")
                }
            }
        }
        #expect(damaged > 0)
    }

    /// A page whose header names another page is found by the walk of the structure alone: `verify`
    /// names it by number and database, in text and JSON, and exits 65.
    @Test func aDamagedPageHeaderIsNamedByVerifyInTextAndJSON() throws {
        let fixture = FlowLogProcess.fixtures.appendingPathComponent("logs/schema-4/data.mdb")
        var bytes = Array(try Data(contentsOf: fixture))
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        func load(_ offset: Int) -> Int {
            bytes.withUnsafeBytes { Int(UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self))) }
        }
        func flags(_ page: Int) -> UInt8 { bytes[page * pageSize + 10] }
        let newest = load(144) > load(pageSize + 144) ? 0 : pageSize
        // The last leaf page of the newest commit whose header names itself.
        let leaf = try #require((2...load(newest + 136)).last { load($0 * pageSize) == $0 && flags($0) == 0x02 })
        bytes[leaf * pageSize + 1] ^= 0x40
        let folder = TemporaryDirectory()
        let copy = folder.child("copy")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: copy + "/data.mdb", contents: Data(bytes)))
        let text = try FlowLogProcess.run(["verify", "--db", copy])
        #expect(text.status == 65)
        #expect(text.stdout.contains("damaged: page \(leaf) of "), "\(text.stdout.prefix(600))")
        #expect(text.stdout.contains("its header names page \(leaf + 0x4000), not \(leaf)"), "\(text.stdout.prefix(600))")
        let json = try FlowLogProcess.run(["verify", "--db", copy, "--format", "json"])
        #expect(json.status == 65)
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let problems = try #require(report?["problems"] as? [[String: Any]])
        #expect(
            problems.contains { $0["page"] as? Int == leaf && ($0["database"] as? String).map { !$0.isEmpty } == true }, "\(json.stdout.prefix(600))")
        #expect(report?["intact"] as? Bool == false)
    }
}
