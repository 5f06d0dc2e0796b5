import FlowLogSystem

/// Where a command writes a path the user gave it (`export --output PATH`), decided before a byte is
/// written. Renaming a finished temporary file over the path is right for a regular file (a reader
/// never sees half of it) and wrong for everything else: it replaced `/dev/stdout`'s symlink, turned
/// a FIFO or a device into a regular file, and destroyed a log when pointed at its `data.mdb`. So the
/// path is resolved first (symlinks followed, as `open` would) and the real target classified:
///
/// - `-`, `/dev/stdout`, `/dev/fd/N`: a descriptor this process already has, written as it is;
/// - a character device or a FIFO: opened and written through, never replaced;
/// - an absent path or (with `force`) a regular file: written to `PATH.partial` in the same folder,
///   synced, then moved into place, so the path holds the old file or the whole new one;
/// - refused, before anything is created: a folder, a path inside an LMDB environment (a FlowLog log
///   or any other), a file named like LMDB's own, an existing regular file without `force`, and
///   anything else (a socket, a block device).
public struct OutputTarget: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// An open descriptor of this process (standard output for `-`).
        case descriptor(Int32)
        /// A character device or a FIFO, written through at its real path.
        case stream(path: String)
        /// A regular file at its real path, written beside it and moved into place.
        case file(path: String, replacing: Bool)
    }

    /// The path as the user gave it, for messages.
    public let requested: String
    public let kind: Kind

    /// Resolves and classifies `requested`; `force` allows replacing an existing regular file.
    public static func resolve(_ requested: String, force: Bool) throws(FlowLogError) -> OutputTarget {
        guard !requested.isEmpty else { throw .output(.empty) }
        if requested == "-" { return OutputTarget(requested: requested, kind: .descriptor(STDOUT_FILENO)) }
        var path = requested
        // As many links as the kernel follows (its ELOOP limit).
        for _ in 0..<40 {
            let (folder, name) = OutputPath.split(path)
            guard !name.isEmpty, name != ".", name != ".." else {
                if let environment = OutputPath.enclosingLMDBEnvironment(of: path) {
                    throw .output(.insideLMDBEnvironment(requested, environment: environment))
                }
                throw .output(.folder(requested))
            }
            guard let realFolder = OutputPath.realPath(folder) else {
                throw .output(errno == ENOENT || errno == ENOTDIR ? .missingFolder(requested, folder: folder) : .cannotOpen(requested, errno: errno))
            }
            if let descriptor = OutputPath.ownDescriptor(folder: realFolder, name: name) {
                return try OutputTarget(requested: requested, descriptor: descriptor)
            }
            let full = OutputPath.join(realFolder, name)
            var info = stat()
            if lstat(full, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let link = OutputPath.readLink(full) {
                path = link.hasPrefix("/") ? link : OutputPath.join(realFolder, link)
                continue
            }
            return try classify(requested: requested, path: full, force: force)
        }
        throw .output(.tooManyLinks(requested))
    }

    private init(requested: String, kind: Kind) {
        self.requested = requested
        self.kind = kind
    }

    /// A descriptor named by path: the shell opened it, so only a closed one or a folder is refused.
    private init(requested: String, descriptor: Int32) throws(FlowLogError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .output(.closedDescriptor(requested, descriptor: descriptor)) }
        guard (info.st_mode & S_IFMT) != S_IFDIR else { throw .output(.folder(requested)) }
        self.init(requested: requested, kind: .descriptor(descriptor))
    }

    private static func classify(requested: String, path: String, force: Bool) throws(FlowLogError) -> OutputTarget {
        if let environment = OutputPath.enclosingLMDBEnvironment(of: path) {
            throw .output(.insideLMDBEnvironment(requested, environment: environment))
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            guard errno == ENOENT else { throw .output(.cannotOpen(requested, errno: errno)) }
            return OutputTarget(requested: requested, kind: .file(path: path, replacing: false))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            guard force else { throw .output(.exists(requested)) }
            return OutputTarget(requested: requested, kind: .file(path: path, replacing: true))
        case S_IFCHR, S_IFIFO:
            return OutputTarget(requested: requested, kind: .stream(path: path))
        case S_IFDIR:
            throw .output(.folder(requested))
        default:
            throw .output(.unsupported(requested, what: (info.st_mode & S_IFMT) == S_IFBLK ? "a block device" : "a socket"))
        }
    }
}

/// An output opened for a resolved `OutputTarget`. Call `commit()` once everything is written; a file
/// that is dropped without it (a failed export) leaves nothing: its `.partial` is removed.
public final class OutputFile: OutputSink {
    public let target: OutputTarget
    private var descriptor: Int32
    private let partial: String?
    private var finished = false

    public init(_ target: OutputTarget) throws(FlowLogError) {
        self.target = target
        switch target.kind {
        case .descriptor(let number):
            descriptor = number
            partial = nil
        case .stream(let path):
            // No O_CREAT, no O_TRUNC: a device or a FIFO is written through, never made anew.
            descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
            partial = nil
            guard descriptor >= 0 else { throw .output(.cannotOpen(target.requested, errno: errno)) }
        case .file(let path, _):
            let partial = path + ".partial"
            self.partial = partial
            descriptor = try Self.createExclusively(partial, requested: target.requested)
        }
    }

    deinit {
        if !finished { discard() }
    }

    public func write(_ bytes: [UInt8]) throws {
        try FileDescriptorOutput(fileDescriptor: descriptor).write(bytes)
    }

    /// Makes the output final: a file is synced and moved into place (never over a file that
    /// appeared meanwhile, unless replacing was asked for), and its folder synced.
    public func commit() throws(FlowLogError) {
        guard !finished else { return }
        finished = true
        guard case .file(let path, let replacing) = target.kind, let partial else {
            if case .stream = target.kind { close(descriptor) }
            return
        }
        guard fsync(descriptor) == 0, close(descriptor) == 0 else {
            let code = errno
            unlink(partial)
            throw .output(.cannotFinish(target.requested, errno: code))
        }
        if replacing {
            guard rename(partial, path) == 0 else {
                let code = errno
                unlink(partial)
                throw .output(.cannotFinish(target.requested, errno: code))
            }
        } else {
            try Self.moveWithoutReplacing(partial, to: path, requested: target.requested)
        }
        let folder = open(OutputPath.split(path).folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Abandons the output: a file's `.partial` is removed; a device or FIFO is closed.
    public func discard() {
        guard !finished else { return }
        finished = true
        if case .descriptor = target.kind { return }
        close(descriptor)
        if let partial { unlink(partial) }
    }

    /// A `.partial` left by a killed run (or a link planted there) is removed, never followed.
    private static func createExclusively(_ partial: String, requested: String) throws(FlowLogError) -> Int32 {
        for attempt in 0..<2 {
            let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return descriptor }
            let code = errno
            var info = stat()
            guard code == EEXIST, attempt == 0, lstat(partial, &info) == 0,
                [S_IFREG, S_IFLNK].contains(info.st_mode & S_IFMT), unlink(partial) == 0
            else {
                throw .output(.cannotOpen(requested, errno: code))
            }
        }
        throw .output(.cannotOpen(requested, errno: EEXIST))
    }

    /// `link` fails if the path exists, so a file created after the check is never replaced; a
    /// filesystem without hard links gets a rename after one more look.
    private static func moveWithoutReplacing(_ partial: String, to path: String, requested: String) throws(FlowLogError) {
        if link(partial, path) == 0 {
            unlink(partial)
            return
        }
        let code = errno
        var info = stat()
        guard code != EEXIST, lstat(path, &info) != 0 else {
            unlink(partial)
            throw .output(.exists(requested))
        }
        guard rename(partial, path) == 0 else {
            let code = errno
            unlink(partial)
            throw .output(.cannotFinish(requested, errno: code))
        }
    }
}

/// Path helpers for outputs: splitting, resolving, and finding an LMDB environment around a path.
public enum OutputPath {
    /// The LMDB environment (a folder holding `data.mdb` or `lock.mdb`) that `path` is or lies in,
    /// looking at the real path of every folder up to `/`. A path named `data.mdb` or `lock.mdb`
    /// counts too: a file of that name makes its folder look like an environment.
    public static func enclosingLMDBEnvironment(of path: String) -> String? {
        let resolved = resolve(path)
        let (folder, name) = split(resolved)
        if name == "data.mdb" || name == "lock.mdb" { return folder }
        var current = resolved
        while true {
            if holdsLMDBFiles(current) { return current }
            let parent = split(current).folder
            if parent == current { return nil }
            current = parent
        }
    }

    /// `path` with its folder's symlinks resolved and its own final symlinks followed, as far as
    /// they exist; what does not exist yet is kept as written.
    public static func resolve(_ path: String) -> String {
        var path = path
        for _ in 0..<40 {
            let (folder, name) = split(path)
            guard let realFolder = realPath(folder) else { return path }
            guard !name.isEmpty, name != ".", name != ".." else { return realPath(path) ?? path }
            let full = join(realFolder, name)
            var info = stat()
            guard lstat(full, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let link = readLink(full) else { return full }
            path = link.hasPrefix("/") ? link : join(realFolder, link)
        }
        return path
    }

    static func holdsLMDBFiles(_ folder: String) -> Bool {
        access(join(folder, "data.mdb"), F_OK) == 0 || access(join(folder, "lock.mdb"), F_OK) == 0
    }

    /// The folder (`.` when there is none) and the last component (empty when the path ends in `/`).
    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let name = String(path[path.index(after: slash)...])
        var folder = Substring(path[..<slash])
        while folder.hasSuffix("/") { folder = folder.dropLast() }
        return (folder.isEmpty ? "/" : String(folder), name)
    }

    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `N` in `/proc/self/fd` (which `/dev/stdout` and `/dev/fd` lead to): one of this process's
    /// descriptors, whose link text (`pipe:[…]`, a deleted file) is no path to write to.
    static func ownDescriptor(folder: String, name: String) -> Int32? {
        guard let number = Int32(name), number >= 0 else { return nil }
        let pid = getpid()
        if folder == "/proc/self/fd" || folder == "/proc/\(pid)/fd" || folder == "/proc/thread-self/fd" { return number }
        if folder.hasPrefix("/proc/\(pid)/task/"), folder.hasSuffix("/fd") { return number }
        return nil
    }
}
