/// The pages of the log's table of streams that one slice of `send`'s read changes, as the
/// look-ahead knows them (`PrefetchedState.tablePage`), against a limit.
///
/// An LMDB commit holds each page it changes in memory until it ends, and each stream it appends
/// to changes the page of its entry in the table of streams. Sessions named in sequence fall on
/// the same few pages, so counting streams (`StreamBudget`) overstates what their commits hold;
/// sessions with random ids fall on a page each, and a commit of 3,072 of them held 14 MB of
/// such pages. So a slice counts each page once, each stream whose page the look-ahead does not
/// know as a page of its own, and a page more for every 64 streams admitted (a stream met again
/// in the slice counts again there), for the pages their entries fill (decisions.md, "A commit's pages of the table of streams").
struct SlicePages {
    private var pages: Set<Int> = []
    /// The hashes of the streams whose page is not known.
    private var unknown: Set<Int> = []
    /// The streams admitted, each as often as it was.
    private var streams = 0
    /// The page counted last: a session's neighbours come in a row.
    private var last: Int?

    /// The pages counted.
    var count: Int { pages.count + unknown.count + streams / 64 }

    /// Whether a stream whose entry falls on `page` (`nil`: not known; `hash`: its name's) fits
    /// within `limit` pages beside those counted; if it does, it is counted. The first always fits.
    mutating func admits(page: Int?, hash: Int, within limit: Int) -> Bool {
        let adds: Bool =
            if let page { page != last && !pages.contains(page) } else { !unknown.contains(hash) }
        let total = count + (adds ? 1 : 0) + ((streams + 1) / 64 - streams / 64)
        guard total <= limit || streams == 0 else { return false }
        if let page {
            if adds { pages.insert(page) }
            last = page
        } else {
            unknown.insert(hash)
        }
        streams += 1
        return true
    }
}
