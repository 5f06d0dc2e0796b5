#if Network
    import FlowLogProjections
    import FlowLogServer

    extension Composition {
        /// What each tracker that posts to a vendor delivered, retried and dead-lettered, as its
        /// runner recorded it in `folder` (a tracker that writes to a file has no counters): the
        /// figures of `/metrics`, `serve`'s and a runner's own.
        static func trackerDeliveries(in folder: String) -> [TrackerDeliveries] {
            trackerNames.compactMap { name in
                let tracker = String(name.dropFirst("tracker.".count))
                return DeliveryJournal(folder: folder, tracker: tracker).recordedStats().map {
                    TrackerDeliveries(tracker: tracker, delivered: $0.delivered, retried: $0.retried, deadLettered: $0.deadLettered)
                }
            }
        }
    }
#endif
