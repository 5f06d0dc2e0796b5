/// A table of text for a terminal: a header and rows of cells, each column as wide as its widest
/// cell, two spaces between columns, the last column unpadded. Cells are measured as given, so
/// callers escape them first (`TerminalText`).
struct TextTable {
    let header: [String]
    /// The columns whose cells are right-aligned (numbers).
    let rightAligned: Set<Int>
    private(set) var rows: [[String]] = []

    /// `minimumWidths`: columns as wide as this at least, for a table shown while it grows, whose
    /// later cells should fit under the header (a time's 27 characters).
    init(header: [String], rightAligned: Set<Int>, minimumWidths: [Int] = []) {
        self.header = header
        self.rightAligned = rightAligned
        self.widths = header.indices.map { max($0 < minimumWidths.count ? minimumWidths[$0] : 0, header[$0].count) }
    }

    /// The widest cell of each column so far (`takeLines`).
    private var widths: [Int] = []

    mutating func add(_ row: [String]) { rows.append(row) }

    /// The rows added since the last call, padded to the widest cells seen so far (with the header
    /// first, where asked), for a table that grows while it is shown (`log --follow`): lines
    /// already written are not drawn again, so a wider cell shifts only the lines after it.
    mutating func takeLines(withHeader: Bool) -> [String] {
        let shown = withHeader ? [header] + rows : rows
        for row in rows { for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) } }
        rows.removeAll()
        return shown.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column] : TextPadding.pad(row[column], widths[column], right: rightAligned.contains(column))
            }.joined(separator: "  ")
        }
    }

    /// The header and the rows; `empty` alone when there are no rows.
    func lines(empty: String) -> [String] {
        guard !rows.isEmpty else { return [empty] }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max()! }
        return all.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column] : TextPadding.pad(row[column], widths[column], right: rightAligned.contains(column))
            }.joined(separator: "  ")
        }
    }
}
