/// Damage to a log's storage found outside any one record: a page of the structure around the
/// records (an embedded log's B-tree pages, which its storage keeps no checksums of), named by
/// page number and database where those are known.
public struct FileDamage: Error, Equatable, Sendable, CustomStringConvertible {
    /// The damaged file.
    public let file: String
    public let page: Int?
    public let database: String?
    public let problem: String

    public init(file: String, page: Int?, database: String?, problem: String) {
        self.file = file
        self.page = page
        self.database = database
        self.problem = problem
    }

    public var description: String {
        let place = [page.map { "page \($0)" }, database.map { "database \($0)" }].compactMap { $0 }.joined(separator: ", ")
        return "The log's data file \(file) is damaged\(place.isEmpty ? "" : " (\(place))"): \(problem)."
    }
}
