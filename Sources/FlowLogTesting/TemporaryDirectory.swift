import Foundation

/// A fresh folder under the system's temporary directory, removed with everything in it when released.
public final class TemporaryDirectory {
    public let path: String

    public init(prefix: String = "flowlog-test") {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UInt64.random(in: 0...UInt64.max))").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the folder (not created).
    public func child(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
