public import FlowLogSystem

/// Where results go: standard output in the CLI, a buffer in tests.
public protocol OutputSink: AnyObject {
    func write(_ bytes: [UInt8]) throws
}

/// Writes straight to a file descriptor, with no buffering of its own, so what was written is out
/// before the next batch begins.
public final class FileDescriptorOutput: OutputSink {
    private let fileDescriptor: Int32

    public init(fileDescriptor: Int32 = STDOUT_FILENO) {
        self.fileDescriptor = fileDescriptor
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = FlowLogSystem.write(fileDescriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw FlowLogError.input("Writing the output failed: \(String(cString: strerror(errno))).")
                }
                offset += written
            }
        }
    }
}

/// Collects output in memory.
public final class BufferOutput: OutputSink {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public func write(_ bytes: [UInt8]) throws { self.bytes.append(contentsOf: bytes) }
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
