package import FlowDomain

/// What the pipeline needs to know of a state to keep it well, beyond `Decider`: the domain's
/// costs, in the binding, so that the pipeline's cache and its readying of loaded states name no
/// cart.
package enum StateUpkeep {
    /// Orders from which a loaded state's order ids are indexed: a shorter history is scanned
    /// faster than its ids are hashed, and without a set to keep.
    static let indexedOrders = 256

    /// Makes a state that will decide many commands cheap to decide against (its order ids indexed
    /// for the `duplicateOrder` check, where there are many).
    package static func readyForDeciding(_ state: inout LogDecider.State) {
        if state.orders.orders.count >= indexedOrders { state.orders.indexIds() }
    }

    /// Bytes a state holds in the cache, roughly: its fixed part with its share of the cache's
    /// tables, the room of its cart lines and of its orders, and each order's id in the index when
    /// the history is long enough to have one, and the hashes of dropped ids. Measured against the
    /// allocator: a session with ten cart lines and its latest order holds about 1,600 bytes, and
    /// this says 1,656 (with 8 bytes for each dropped order besides).
    package static func estimatedCost(of state: LogDecider.State) -> Int {
        let orders = state.orders.orders
        return 320 + state.cart.lines.capacity * MemoryLayout<CartLine>.stride + orders.capacity * (MemoryLayout<Order>.stride + 8)
            + state.navigation.stack.capacity + (orders.count >= indexedOrders ? orders.count * 64 : 0)
            + state.orders.droppedCount * 8
    }

    /// See `StreamState.keepOnlyLatestKeptRow`: such a history's duplicate-order check answers
    /// for its latest order only, so it is never decided against.
    package static func keepOnlyLatestKeptRow(_ state: inout LogDecider.State) { state.orders.keepOnlyLatest() }

    /// As `keepOnlyLatestKeptRow`, for the processor's cache: the dropped orders' id hashes stay,
    /// so that only a payment whose id they cannot rule out reloads the stream.
    package static func slimForCache(_ state: inout LogDecider.State) { state.orders.keepOnlyLatest(rememberingIds: true) }

    /// Kept rows up to which the processor's cache keeps a state whole (`StateCache`): 16 orders
    /// are under 1 KB, and a session with a few orders is the common case.
    package static let rowsKeptWhole = 16

    /// Whether the cache keeps this state without its older kept rows (where the log keeps them apart).
    package static func isSlimmedForCache(_ state: LogDecider.State) -> Bool { LogDecider.keptRowCount(of: state) > rowsKeptWhole }

    /// Whether the state holds every row it counts, so that any command may be decided against it.
    package static func holdsAllKeptRows(_ state: LogDecider.State) -> Bool {
        LogDecider.keptRows(of: state).count == LogDecider.keptRowCount(of: state)
    }

    /// An event to decode records into, whatever it is.
    static let placeholderEvent: LogDecider.Event = .navigation(.modalDismissed)
}
