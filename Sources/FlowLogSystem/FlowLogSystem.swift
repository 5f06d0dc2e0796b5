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
