import CLMDB
import FlowLogSystem

extension Environment {
    /// Refuses a data file whose meta pages LMDB would trust to its harm (`MDB_CORRUPTED`), before
    /// LMDB opens it; what LMDB checks itself (each meta page's flags, magic number and version) is
    /// left to it.
    ///
    /// - The page size: LMDB takes it from the newest meta page and computes every page's address
    ///   from it, so a flipped bit there sends its first read past the end of the file (`SIGBUS`).
    ///   Both meta pages must keep the same power of two, and the second must lie that far in.
    /// - The transaction numbers: LMDB writes the meta page of transaction N to page N mod 2, and
    ///   only once N − 1's is on disk, so the two name transactions one apart (both 0 in a new
    ///   environment; a compacted copy holds 0 and 1). It opens the larger: a flipped bit in the
    ///   older one's number would silently open an older commit, whose pages later ones reused.
    static func checkMetaPages(file: String, path: String) throws(LMDBError) {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        func load<Integer: FixedWidthInteger>(_: Integer.Type, at offset: Int) -> Integer? {
            var value = Integer.zero
            guard
                withUnsafeMutableBytes(of: &value, { pread(descriptor, $0.baseAddress, MemoryLayout<Integer>.size, off_t(offset)) })
                    == MemoryLayout<Integer>.size
            else { return nil }
            return Integer(littleEndian: value)
        }
        func isMeta(_ offset: Int) -> Bool {
            load(UInt16.self, at: offset + 10).map { $0 & 0x08 != 0 } == true && load(UInt32.self, at: offset + 16) == 0xBEEF_C0DE
        }
        // A file that is no LMDB environment, or too short to hold both meta pages: LMDB says so.
        guard isMeta(0), let first = load(UInt32.self, at: 40) else { return }
        let operation = "opening the LMDB environment at \(path)"
        guard first >= 512, first <= 65536, first & (first - 1) == 0, isMeta(Int(first)), load(UInt32.self, at: Int(first) + 40) == first else {
            throw LMDBError(
                code: MDB_CORRUPTED, operation: operation,
                detail: """
                    its two meta pages do not agree on the page size (the first names \(first) bytes): one of them is damaged; \
                    restore the log from a backup
                    """)
        }
        guard let even = load(UInt64.self, at: 144), let odd = load(UInt64.self, at: Int(first) + 144) else { return }
        // The newest meta page's last page, which LMDB maps: a flipped high bit asks for more memory than there is.
        var file = stat()
        if fstat(descriptor, &file) == 0, let last = load(UInt64.self, at: (even > odd ? 0 : Int(first)) + 136),
            last >= UInt64(file.st_size) / UInt64(first)
        {
            let (pages, overflow) = last.addingReportingOverflow(1).partialValue.multipliedReportingOverflow(by: UInt64(first))
            let needed = overflow || last == .max ? "more bytes than a file can hold" : "\(pages)"
            throw LMDBError(
                code: MDB_CORRUPTED, operation: operation,
                detail: "data.mdb holds \(file.st_size) bytes, but its last commit uses \(needed): "
                    + "the file was cut short, as by a copy that did not finish, or its meta page is damaged; restore it from a backup, or copy it again from its source"
            )
        }
        if even == 0, odd == 0 { return }
        if even % 2 == 0, odd % 2 == 1, even == odd &+ 1 || odd == even &+ 1 { return }
        throw LMDBError(
            code: MDB_CORRUPTED, operation: operation,
            detail: """
                its two meta pages name transactions \(even) and \(odd), which do not follow one another: one of them is damaged, \
                and LMDB would open the larger; restore the log from a backup
                """)
    }
}
