import FlowLogSystem

/// SIGINT and SIGTERM as a request to stop, for commands that run until interrupted
/// (`log --follow`): once `hold()` is called the signals no longer kill the process but wait,
/// pending, until the command sees `requested` between two batches, finishes what it was writing
/// and exits 0, as `tail -f` users expect of Ctrl-C.
enum Interruption {
    private static var signals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    static func hold() {
        var set = signals
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Blocks SIGINT and SIGTERM in the calling thread only, for threads started meanwhile to
    /// inherit; returns the mask to give back to `restore`.
    static func blockInThisThread() -> sigset_t {
        var set = signals
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &set, &previous)
        return previous
    }

    static func restore(_ mask: sigset_t) {
        var mask = mask
        pthread_sigmask(SIG_SETMASK, &mask, nil)
    }

    static var requested: Bool {
        var pending = sigset_t()
        sigpending(&pending)
        return sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1
    }
}
