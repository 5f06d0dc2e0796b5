#if Network
    /// What a tracker's deliveries came to so far, as its runner recorded them (`projections run`,
    /// in whichever process): the composition root reads them from the tracker's journal at each
    /// scrape of `/metrics`, so the server needs no part in the delivering.
    public struct TrackerDeliveries: Equatable, Sendable {
        public let tracker: String
        public let delivered: Int
        public let retried: Int
        public let deadLettered: Int

        public init(tracker: String, delivered: Int, retried: Int, deadLettered: Int) {
            (self.tracker, self.delivered, self.retried, self.deadLettered) = (tracker, delivered, retried, deadLettered)
        }
    }
#endif
