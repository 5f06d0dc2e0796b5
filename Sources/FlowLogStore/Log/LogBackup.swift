/// A consistent copy of a live log, made while writers go on (`flowlog backup`). Backends that
/// cannot make one do without: the command line then points to `export` and `import`.
public protocol LogBackup: AnyObject {
    /// Writes a copy of the whole log, as of one moment, into `folder`, an empty folder that exists;
    /// the copy is itself a log of this backend, which `flowlog verify` checks.
    func backup(into folder: String) throws
}
