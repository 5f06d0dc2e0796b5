import FlowLogFuzzing
import Foundation

/// `flowlog-fuzz`: the fuzz targets of `FlowLogFuzzing` outside a test.
///
/// The ordinary build replays files: `flowlog-fuzz TARGET PATH…` runs every file at the paths
/// through the target (a crash stops it, as it would a fuzzer), `flowlog-fuzz --list` names the
/// targets. `scripts/fuzz` builds it with `FLOWLOG_FUZZING` and libFuzzer linked in
/// (`-sanitize=fuzzer,address`): libFuzzer's own `main` then drives `LLVMFuzzerTestOneInput`
/// below, on the target `FLOWLOG_FUZZ_TARGET` names. The entry points exist only in that build, so
/// that no ordinary build links a symbol only libFuzzer calls.
@main
struct FlowLogFuzz {
    static func main() {
        #if FLOWLOG_FUZZING
            exit(runFuzzer())
        #else
            replay()
        #endif
    }

    static func replay() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--list" {
            for target in FuzzTargets.all { print("\(target.name)\t\(target.checks)") }
            return
        }
        guard let name = arguments.first, let target = FuzzTargets.named(name), arguments.count > 1 else {
            let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: flowlog-fuzz TARGET PATH… | --list\ntargets: \(names)\n".utf8))
            exit(64)
        }
        var count = 0
        for path in arguments.dropFirst() {
            let files = FuzzCorpus.files(at: path)
            guard !files.isEmpty || FileManager.default.fileExists(atPath: path) else {
                FileHandle.standardError.write(Data("flowlog-fuzz: no such file or folder: \(path)\n".utf8))
                exit(66)
            }
            for file in files {
                guard let bytes = FuzzCorpus.contents(of: file) else { continue }
                target.run(bytes)
                count += 1
            }
        }
        print("\(target.name): \(count) inputs ran clean")
    }
}

#if FLOWLOG_FUZZING
    /// The target libFuzzer runs, chosen once, before the first input.
    nonisolated(unsafe) private var chosen: FuzzTarget?

    @_cdecl("LLVMFuzzerInitialize")
    public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>)
        -> CInt
    {
        if CommandLine.arguments.dropFirst().first == "--list" {
            for target in FuzzTargets.all { print("\(target.name)\t\(target.checks)") }
            exit(0)
        }
        let name = ProcessInfo.processInfo.environment["FLOWLOG_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTargets.named(name) else {
            let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("flowlog-fuzz: set FLOWLOG_FUZZ_TARGET to one of \(names) (got '\(name)')\n".utf8))
            exit(64)
        }
        chosen = target
        return 0
    }

    /// libFuzzer's driver, which `main` hands the process to where the linker kept this program's
    /// `main` rather than libFuzzer's (which one it keeps differs between builds).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    @_silgen_name("LLVMFuzzerRunDriver")
    private func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    extension FlowLogFuzz {
        static func runFuzzer() -> CInt {
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            _ = fuzzerInitialize(&argc, &argv)
            return LLVMFuzzerRunDriver(&argc, &argv, fuzzerTestOneInput)
        }
    }

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        chosen?.run(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }
#endif
