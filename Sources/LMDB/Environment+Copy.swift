import CLMDB

extension Environment {
    /// Writes a copy of the whole environment to `fileDescriptor`, as of one read transaction, while
    /// writers go on (`mdb_env_copyfd2`). `compacting` leaves out free pages and renumbers the rest
    /// (`MDB_CP_COMPACT`), so the copy is as small as the data.
    public func copy(to fileDescriptor: Int32, compacting: Bool) throws(LMDBError) {
        try check(mdb_env_copyfd2(handle, fileDescriptor, compacting ? UInt32(MDB_CP_COMPACT) : 0), "copying the environment")
    }
}
