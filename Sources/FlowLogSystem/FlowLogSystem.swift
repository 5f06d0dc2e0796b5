/// The operating system's C interface, decided in this one place: Glibc on Linux (where FlowLog is
/// built and tested), Darwin on macOS (untested). Every other file that needs a system call
/// (`open`, `fsync`, `flock`, `stat`, signals, sockets) imports this module, never the C library
/// itself, so a port touches this file and the calls whose signatures differ.
#if canImport(Glibc)
    @_exported import Glibc
#elseif canImport(Darwin)
    @_exported import Darwin
#else
    #error("FlowLog needs Glibc (Linux) or Darwin (macOS)")
#endif

/// Fills `buffer` from the kernel's cryptographic random source (`/dev/urandom` on Linux, whose
/// `getrandom` Glibc's Swift module does not show; `arc4random_buf` on macOS): record salts must be
/// unpredictable from one another, which a seeded generator's outputs are not.
public func fillRandomly(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress else { return }
    #if canImport(Glibc)
        let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { fatalError("/dev/urandom cannot be opened: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var filled = 0
        while filled < buffer.count {
            let count = read(descriptor, base + filled, buffer.count - filled)
            if count > 0 {
                filled += count
            } else if count == 0 || errno != EINTR {
                fatalError("/dev/urandom cannot be read: \(String(cString: strerror(errno)))")
            }
        }
    #else
        arc4random_buf(base, buffer.count)
    #endif
}
