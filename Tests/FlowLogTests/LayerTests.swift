import Foundation
import Testing

/// The layers docs/architecture.md draws, held by the sources themselves: no target but the command
/// line's holds more than 40 files, and within every target the folders depend on one another one
/// way only. A folder depends on another when one of its files names a type declared at the top
/// level of a file there (comments aside); files at a target's root are its entry, above them all.
@Suite("targets and their folders")
struct LayerTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    static var targets: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []).filter { !swiftFiles(in: $0).isEmpty }.sorted()
    }

    /// Every Swift file of `target`, as paths relative to it.
    static func swiftFiles(in target: String) -> [String] {
        let root = sources.appendingPathComponent(target).path
        let all = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        return all.filter { $0.hasSuffix(".swift") }
    }

    @Test func noTargetButTheCommandLinesHoldsMoreThanFortyFiles() {
        #expect(Self.targets.count > 10, "the sources were found")
        for target in Self.targets where target != "FlowLogCLI" {
            #expect(Self.swiftFiles(in: target).count <= 40, "\(target)")
        }
    }

    @Test(arguments: LayerTests.targets)
    func foldersDependOneWay(target: String) throws {
        let root = Self.sources.appendingPathComponent(target)
        let files = try Self.swiftFiles(in: target).filter { $0.contains("/") }.map { path in
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            return (folder: String(path.prefix { $0 != "/" }), text: text)
        }
        var declaredIn: [String: String] = [:]
        for file in files {
            for name in Self.topLevelTypes(in: file.text) { declaredIn[name] = file.folder }
        }
        #expect(files.isEmpty || !declaredIn.isEmpty, "\(target): the folders' types were read")
        // edges[a][b]: the names folder `a` uses from folder `b`.
        var edges: [String: [String: Set<String>]] = [:]
        for file in files {
            for word in Self.words(in: Self.withoutComments(file.text)) {
                guard let home = declaredIn[word], home != file.folder else { continue }
                edges[file.folder, default: [:]][home, default: []].insert(word)
            }
        }
        let circle = Self.firstCircle(in: edges.mapValues { Set($0.keys) })
        #expect(circle == nil, "\(target): \(Self.describe(circle ?? [], edges))")
    }

    /// The types a file declares outside any other: those at its shallowest indentation, which is
    /// one level in where the whole file sits inside `#if Network`.
    static func topLevelTypes(in text: String) -> [String] {
        let modifiers = #/^(?:(?:public|package|internal|private|fileprivate|final|indirect)\s+)*/#
        let pattern = #/(?:struct|enum|class|protocol|typealias|actor)\s+(\w+)/#
        let declarations = text.split(separator: "\n").compactMap { line -> (indent: Int, name: String)? in
            let code = line.drop { $0 == " " }
            let rest = code[((try? modifiers.prefixMatch(in: code))?.range.upperBound ?? code.startIndex)...]
            return (try? pattern.prefixMatch(in: rest)).map { (line.count - code.count, String($0.output.1)) }
        }
        let outermost = declarations.map(\.indent).min()
        return declarations.filter { $0.indent == outermost }.map(\.name)
    }

    static func withoutComments(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.firstRange(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
        }.joined(separator: "\n")
    }

    static func words(in text: String) -> Set<String> {
        Set(text.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
    }

    /// A path of folders that comes back to its first, or nil when they depend one way.
    static func firstCircle(in graph: [String: Set<String>]) -> [String]? {
        var done: Set<String> = []
        var path: [String] = []
        func visit(_ folder: String) -> [String]? {
            if let start = path.firstIndex(of: folder) { return Array(path[start...]) + [folder] }
            guard !done.contains(folder) else { return nil }
            path.append(folder)
            for next in (graph[folder] ?? []).sorted() {
                if let circle = visit(next) { return circle }
            }
            path.removeLast()
            done.insert(folder)
            return nil
        }
        for folder in graph.keys.sorted() {
            if let circle = visit(folder) { return circle }
        }
        return nil
    }

    static func describe(_ circle: [String], _ edges: [String: [String: Set<String>]]) -> String {
        zip(circle, circle.dropFirst()).map { "\($0) → \($1) (\((edges[$0]?[$1] ?? []).sorted().prefix(4).joined(separator: ", ")))" }
            .joined(separator: "; ")
    }
}
