/// A table of text for a terminal: a header and rows of cells, each column as wide as its widest
/// cell, two spaces between columns, the last column unpadded. Cells are measured as given, so
/// callers escape them first (`TerminalText`).
struct TextTable {
    let header: [String]
    /// The columns whose cells are right-aligned (numbers).
    let rightAligned: Set<Int>
    private(set) var rows: [[String]] = []

    init(header: [String], rightAligned: Set<Int>) {
        self.header = header
        self.rightAligned = rightAligned
    }

    mutating func add(_ row: [String]) { rows.append(row) }

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
