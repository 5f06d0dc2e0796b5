import FlowLogBasics
import FlowLogSystem

/// Runs a user's check the way `git bisect run` does: `/bin/sh -c COMMAND`, the state on standard
/// input, the check's standard output sent to standard error (standard output carries results).
///
/// What the check does with its input or how it ends is its verdict, never FlowLog's failure:
/// - the input is a file, not a pipe, so a check that reads none of it (`false`), or exits before
///   reading it all, cannot make FlowLog die of SIGPIPE (it did: exit 141, nothing printed);
/// - the check runs in a process group of its own, and the whole group is killed with SIGKILL once
///   the check ends (a background job it forgot) or runs past the timeout, so no process it started
///   outlives the bisect (one that leaves the group with `setsid` is beyond reach);
/// - the group is killed while the check's pid is still held by its unreaped exit, so the kill can
///   never reach a group that reused the number;
/// - SIGINT, SIGTERM, SIGHUP and SIGQUIT that arrive while it runs kill the group first, then end
///   FlowLog by the same signal, as if it had not caught them. The check starts with default signal
///   handling and an empty mask, whatever FlowLog's own are.
public struct ShellCheck: Sendable {
    public enum Ending: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)
        /// It ran past the timeout and was killed with its group.
        case timedOut
    }

    public let command: String
    /// Seconds; `nil` waits as long as the check takes.
    public let timeout: Double?

    public init(command: String, timeout: Double?) {
        self.command = command
        self.timeout = timeout
    }

    /// The status a shell would report: the exit status, or 128 + the signal that ended the check.
    public static func status(_ ending: Ending) -> Int32? {
        switch ending {
        case .exited(let code): code
        case .signalled(let signal): 128 + signal
        case .timedOut: nil
        }
    }

    public func run(input: [UInt8]) throws -> Ending {
        let inputFile = try Self.temporaryFile(holding: input)
        defer { close(inputFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputFile, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO)
        for descriptor in Self.inheritableDescriptors() where descriptor > STDERR_FILENO {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGCHLD] + Self.endingSignals { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        // Blocked from before the spawn, so none is lost between the spawn and the wait.
        var watched = sigset_t()
        sigemptyset(&watched)
        for signal in [SIGCHLD] + Self.endingSignals { sigaddset(&watched, signal) }
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &watched, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }

        var pid: pid_t = 0
        let arguments = ["sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let code = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, environ)
        guard code == 0 else { throw FlowLogError.input("Cannot run /bin/sh for the check: \(String(cString: strerror(code))).") }
        return Self.wait(for: pid, watching: &watched, timeout: timeout)
    }

    static let endingSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private static func wait(for pid: pid_t, watching watched: inout sigset_t, timeout: Double?) -> Ending {
        let deadline = timeout.map { MonotonicClock.seconds() + $0 }
        var timedOut = false
        var interruption: Int32?
        while true {
            var info = siginfo_t()
            // WNOWAIT: the check has ended but is not reaped, so its pid (the group's id) stays taken.
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info.si_signo == SIGCHLD { break }
            var slice = 0.05
            if let deadline {
                let remaining = deadline - MonotonicClock.seconds()
                if remaining <= 0 {
                    timedOut = true
                    break
                }
                slice = min(slice, remaining)
            }
            var wait = timespec(tv_sec: 0, tv_nsec: Int(slice * 1_000_000_000))
            let signal = sigtimedwait(&watched, nil, &wait)
            if signal > 0, endingSignals.contains(signal) {
                interruption = signal
                break
            }
        }
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        if let interruption {
            // End as the signal would have ended FlowLog, now that nothing of the check is left.
            signal(interruption, SIG_DFL)
            var only = sigset_t()
            sigemptyset(&only)
            sigaddset(&only, interruption)
            pthread_sigmask(SIG_UNBLOCK, &only, nil)
            raise(interruption)
        }
        if timedOut { return .timedOut }
        return status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
    }

    /// The input in an unlinked temporary file, read from its start.
    private static func temporaryFile(holding input: [UInt8]) throws -> Int32 {
        let folder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/flowlog-check-XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            throw FlowLogError.input(
                "Cannot create a temporary file in \(folder) for the check's input: \(String(cString: strerror(errno))). Set TMPDIR to a writable folder."
            )
        }
        unlink(template)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        do {
            try FileDescriptorOutput(fileDescriptor: descriptor).write(input)
        } catch {
            close(descriptor)
            throw error
        }
        lseek(descriptor, 0, SEEK_SET)
        return descriptor
    }

    /// Descriptors a child would inherit (open, without close-on-exec): LMDB's, or any a library left.
    private static func inheritableDescriptors() -> [Int32] {
        guard let folder = opendir("/proc/self/fd") else { return [] }
        var numbers: [Int32] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let number = Int32(name) { numbers.append(number) }
        }
        closedir(folder)
        return numbers.filter { fcntl($0, F_GETFD) >= 0 && fcntl($0, F_GETFD) & FD_CLOEXEC == 0 }
    }

}
