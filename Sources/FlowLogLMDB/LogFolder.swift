import FlowLogBasics
import FlowLogSystem
import LMDB

/// The checks made before LMDB touches a path, so that a wrong `--db` never creates anything by accident.
enum LogFolder {
    static func prepare(path: String, creating: Bool) throws(FlowLogError) {
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else {
                throw errno == EACCES ? .permissionDenied(path: path) : .notALog(path: path, reason: String(cString: strerror(errno)))
            }
            guard creating else { throw .notFound(path: path) }
            let parent = parentFolder(of: path)
            var parentInfo = stat()
            guard stat(parent, &parentInfo) == 0, (parentInfo.st_mode & S_IFMT) == S_IFDIR else {
                throw .missingParent(path: path, parent: parent)
            }
            guard mkdir(path, 0o755) == 0 else {
                throw errno == EACCES
                    ? .permissionDenied(path: path)
                    : .notALog(path: path, reason: "the folder could not be created (\(String(cString: strerror(errno))))")
            }
            return
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .notALog(path: path, reason: "it is a file, and a log is a folder holding data.mdb and lock.mdb")
        }
        var dataInfo = stat()
        if stat(path + "/data.mdb", &dataInfo) == 0 { return }
        // The log lock alone is what a log whose files were removed (or whose creation failed, or
        // whose refused import was undone) leaves, and with a staged import's folder what a killed
        // import into a new log leaves: the folder is as good as empty.
        let entries = folderEntries(path).filter { $0 != LogLock.fileName && $0 != LMDBEventLog.stagedImportName }
        if entries.isEmpty {
            guard creating else { throw .notFound(path: path) }
            return
        }
        throw .notALog(path: path, reason: "the folder holds other files (\(entries.prefix(3).joined(separator: ", "))) but no data.mdb")
    }

    static func openingError(_ error: any Error, path: String) -> FlowLogError {
        guard let error = error as? LMDBError else { return (error as? FlowLogError) ?? .notALog(path: path, reason: "\(error)") }
        switch error.code {
        case EACCES, EPERM, EROFS: return .permissionDenied(path: path)
        case ENOENT: return .notFound(path: path)
        case ENOSPC: return .diskFull(path: path)
        default:
            if error.isInvalidFile, hasOneMetaPage(path + "/data.mdb") {
                return .notALog(
                    path: path,
                    reason:
                        "its data.mdb is damaged: LMDB reports \(error.message.prefix(1).lowercased())\(error.message.dropFirst()) for one of its two meta pages; nothing was changed, restore the log from a backup"
                )
            }
            if error.isInvalidFile { return .notALog(path: path, reason: "its data.mdb is not an LMDB database of a compatible format") }
            if error.isCorrupted, error.detail != nil {
                let advice = error.message.contains("backup") ? "" : ", restore the log from a backup"
                return .notALog(path: path, reason: "its data.mdb is damaged (\(error.message)); nothing was changed\(advice)")
            }
            if error.isCorrupted {
                return .notALog(
                    path: path, reason: "its data.mdb is damaged (LMDB reports \(error.message)); nothing was changed, restore the log from a backup")
            }
            return .io(path: path, detail: "\(error)")
        }
    }

    /// Whether exactly one of the file's two meta pages is whole (its page number, flags, magic
    /// number, version and page size): an LMDB file whose other meta page is damaged, not another
    /// program's file. The second meta page lies one page size in, which a whole first one keeps.
    private static func hasOneMetaPage(_ file: String) -> Bool {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let sizes: [UInt32] = [4096, 8192, 16384, 32768, 65536]
        /// The page size a whole meta page `page` at `offset` keeps, or `nil`.
        func meta(page: UInt64, at offset: Int) -> UInt32? {
            var header = [UInt8](repeating: 0, count: 48)
            guard header.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, 48, off_t(offset)) }) == 48 else { return nil }
            return header.withUnsafeBytes { bytes in
                let size = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 40, as: UInt32.self))
                let whole =
                    UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)) == page
                    && UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 10, as: UInt16.self)) & 0x08 != 0
                    && UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self)) == 0xBEEF_C0DE
                    && UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 20, as: UInt32.self)) == 1
                    && sizes.contains(size) && (page == 0 || Int(size) == offset)
                return whole ? size : nil
            }
        }
        let second = sizes.first { meta(page: 1, at: Int($0)) != nil }
        let first = meta(page: 0, at: 0).map { second == nil || $0 == second }
        return (first == true) != (second != nil)
    }

    private static func parentFolder(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    private static func folderEntries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
