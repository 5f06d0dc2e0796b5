/// A fold's place in one record: the next of its streams (in id order) not yet folded.
struct StreamCursor {
    let record: BatchRecordView
    private(set) var index: Int
    /// The stream at `index`, `nil` past the last.
    private(set) var id: UnsafeRawBufferPointer?

    init(_ record: BatchRecordView, index: Int) throws {
        (self.record, self.index) = (record, index - 1)
        try advance()
    }

    mutating func advance() throws {
        index += 1
        guard index < record.streamCount else {
            id = nil
            return
        }
        guard let found = record.streamID(at: index) else { throw PendingIndex.damage(at: record.key, "stream \(index + 1)'s entry lies outside it") }
        id = found
    }
}

/// The pending records' streams merged in id order, each stream's parts oldest record first: a
/// binary heap of the records' cursors, ordered by the stream each is at, then by the record.
///
/// A fold merges up to 64 records (`FoldPolicy.records`). Scanning every cursor for the smallest
/// stream, then again for the cursors at it, compared ids about 128 times a stream; a million new
/// sessions are a million streams to fold, and that scan was the appending thread's largest cost
/// of folding them. The heap compares about twice the logarithm of the records a stream.
struct RecordMerge {
    private var cursors: [StreamCursor]
    /// Indices into `cursors` of those not past their last stream, a min-heap by `precedes`.
    private var heap: [Int]

    init(_ cursors: [StreamCursor]) {
        self.cursors = cursors
        heap = cursors.indices.filter { cursors[$0].id != nil }
        for position in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(from: position) }
    }

    /// The smallest stream id any record is at; its bytes are the record's, valid while the
    /// record's transaction is.
    var smallest: UnsafeRawBufferPointer? { heap.first.flatMap { cursors[$0].id } }

    /// Hands `body` each record's cursor at the smallest stream, oldest record first, and moves
    /// each past it.
    mutating func forEachPart(_ body: (StreamCursor) throws -> Void) throws {
        guard let first = heap.first, let stream = cursors[first].id else { return }
        while let top = heap.first, let id = cursors[top].id, BatchRecordView.compare(id, stream) == 0 {
            try body(cursors[top])
            try cursors[top].advance()
            if cursors[top].id == nil {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            // A record's ids rise, so the cursor moved past every part of `stream` still to come.
            if !heap.isEmpty { siftDown(from: 0) }
        }
    }

    /// Whether the cursor at `a` comes before the one at `b`: the smaller stream, then the older record.
    private func precedes(_ a: Int, _ b: Int) -> Bool {
        guard let left = cursors[a].id, let right = cursors[b].id else { return cursors[a].id != nil }
        let order = BatchRecordView.compare(left, right)
        return order < 0 || (order == 0 && a < b)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var child = left
            if left + 1 < heap.count, precedes(heap[left + 1], heap[left]) { child = left + 1 }
            guard precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(parent, child)
            parent = child
        }
    }
}
