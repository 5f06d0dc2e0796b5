extension CommandProcessor {
    /// Forgets the cached state of each of `streams` that another writer moved since it was cached.
    ///
    /// The cache is checked by the log only for commands it accepts: a command decided against a
    /// stale state and *rejected* (a modal shown that another process dismissed) never reaches the
    /// log. A long-lived processor (`flowlog serve`) calls this before each batch; it costs one
    /// version lookup per stream.
    public func forgetStaleStates(of streams: some Sequence<String>) throws {
        for stream in streams {
            guard let cached = cache[stream] else { continue }
            if try log.version(of: stream) != cached.version { cache.remove(stream) }
        }
    }
}
