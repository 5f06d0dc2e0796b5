#if Network
    import Deciding
    import PostgresNIO

    /// The typed columns the domain declared for the storage read model (`StreamState.columns`,
    /// `KeptRow.columns`), as SQL: their types, the arrays an `unnest` insert binds, and the values a
    /// row gives back. The tables keep the names analysts query; the backend only spells them.
    enum ReadModelSQL {
        static func sqlType<Row>(_ type: ReadModelColumn<Row>.ValueType) -> String {
            switch type {
            case .text: "text"
            case .bigint: "bigint"
            case .integer: "integer"
            case .boolean: "boolean"
            }
        }

        /// `, name type NOT NULL` for each column, after a `CREATE TABLE`'s own columns: nothing for a
        /// domain that declares none (a list keeps no rows beside its events).
        static func definitions<Row>(_ columns: [(name: StaticString, type: ReadModelColumn<Row>.ValueType)]) -> String {
            columns.map { ", \($0.name) \(sqlType($0.type)) NOT NULL" }.joined()
        }

        /// Binds one array per column (`values[row][column]`), in the columns' order.
        static func bindArrays<Row>(
            _ types: [ReadModelColumn<Row>.ValueType], _ values: [[ReadModelColumn<Row>.Value]],
            into bindings: inout PostgresBindings
        ) throws {
            for (index, type) in types.enumerated() {
                switch type {
                case .text:
                    bindings.append(
                        values.map { row -> String in
                            if case .text(let v) = row[index] { return v }
                            return ""
                        })
                case .bigint:
                    bindings.append(
                        values.map { row -> Int64 in
                            if case .bigint(let v) = row[index] { return Int64(v) }
                            return 0
                        })
                case .integer:
                    bindings.append(
                        values.map { row -> Int32 in
                            if case .integer(let v) = row[index] { return Int32(v) }
                            return 0
                        })
                case .boolean:
                    bindings.append(
                        values.map { row -> Bool in
                            if case .boolean(let v) = row[index] { return v }
                            return false
                        })
                }
            }
        }

        /// The `::type[]` cast of each column's bound array, after `first` binds already made.
        static func unnestArguments<Row>(_ types: [ReadModelColumn<Row>.ValueType], after first: Int) -> [String] {
            types.enumerated().map { "$\(first + $0.offset + 1)::\(sqlType($0.element))[]" }
        }

        /// The values of `cells`, read as the column types say.
        static func values<Row>(_ cells: some Sequence<PostgresCell>, _ types: [ReadModelColumn<Row>.ValueType]) throws -> [ReadModelColumn<Row>
            .Value]
        {
            try zip(cells, types).map { cell, type in
                switch type {
                case .text: .text(try cell.decode(String.self))
                case .bigint: .bigint(Int(try cell.decode(Int64.self)))
                case .integer: .integer(Int(try cell.decode(Int32.self)))
                case .boolean: .boolean(try cell.decode(Bool.self))
                }
            }
        }
    }
#endif
