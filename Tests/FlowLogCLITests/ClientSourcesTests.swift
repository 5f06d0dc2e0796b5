import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// FlowLogClient's sources are swift-openapi-generator's output, committed (Sources/FlowLogClient/Generated):
/// each file names the SHA-256 of the docs/openapi.json and openapi-generator-config.yaml it was
/// made from. A change to either without `scripts/generate-client` fails here.
@Suite("FlowLogClient's generated sources")
struct ClientSourcesTests {
    private static let repository = FlowLogProcess.fixtures.deletingLastPathComponent()

    private static func sha256(_ path: String) throws -> String {
        let bytes = [UInt8](try Data(contentsOf: repository.appendingPathComponent(path)))
        return SHA256.hash(bytes).map { String(format: "%02x", $0) }.joined()
    }

    @Test func theGeneratedSourcesAreCurrent() throws {
        let document = try Self.sha256("docs/openapi.json")
        let config = try Self.sha256("openapi-generator-config.yaml")
        let folder = Self.repository.appendingPathComponent("Sources/FlowLogClient/Generated")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files.contains("Types.swift") && files.contains("Client.swift"), "\(files)")
        let heads = try files.map { file in
            (file, try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).split(separator: "\n").prefix(5))
        }
        let staleForDocument = heads.filter { !$0.1.contains("// docs/openapi.json SHA-256: \(document)") }.map(\.0)
        let staleForConfig = heads.filter { !$0.1.contains("// openapi-generator-config.yaml SHA-256: \(config)") }.map(\.0)
        #expect(
            staleForDocument.isEmpty,
            "\(staleForDocument) were generated from another docs/openapi.json: run scripts/generate-client and commit what it writes")
        #expect(
            staleForConfig.isEmpty,
            "\(staleForConfig) were generated with another openapi-generator-config.yaml: run scripts/generate-client and commit what it writes")
    }
}
