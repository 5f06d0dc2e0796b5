public import FlowLogBasics
public import FlowLogStore

/// One difference between two states, at a path in their JSON face (`cart.items[p1].quantity`).
public struct StateChange: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case added, removed, changed
    }

    public var path: String
    public var kind: Kind
    public var before: JSONValue?
    public var after: JSONValue?
}

/// What changed between two states, in the spirit of The Composable Architecture's `_printChanges`:
/// only the paths that differ, each with its old and new value. Items and orders are matched by their
/// ids, so removing a line shows as one removal rather than every later line shifting.
public enum StateDiff {
    public static func changes(from before: LogDecider.State, to after: LogDecider.State) -> [StateChange] {
        changes(from: tree(before), to: tree(after))
    }

    public static func changes(from before: JSONValue, to after: JSONValue) -> [StateChange] {
        var result: [StateChange] = []
        diff(before, after, path: "", into: &result)
        return result
    }

    /// `replayed` without the members `recorded` lacks where they hold a value that means what
    /// their absence meant (`LogDomain.stateMembersAddedLater`), in every object at every depth: so
    /// an expected state an older build printed is compared on what it knew, and a real difference
    /// (a cart in EUR) still shows.
    public static func matching(_ replayed: JSONValue, olderShape recorded: JSONValue) -> JSONValue {
        switch (replayed, recorded) {
        case (.object(let members), .object(let old)):
            let oldNames = Set(old.map(\.0))
            let oldByName = Dictionary(old, uniquingKeysWith: { $1 })
            return .object(
                members.compactMap { name, value in
                    if !oldNames.contains(name), LogDecider.stateMembersAddedLater[name]?.contains(value) == true { return nil }
                    return (name, oldByName[name].map { matching(value, olderShape: $0) } ?? value)
                })
        case (.array(let values), .array(let old)) where values.count == old.count:
            return .array(zip(values, old).map { matching($0, olderShape: $1) })
        default:
            return replayed
        }
    }

    /// The state's JSON face (SPEC §5) as a tree, without the stream and version.
    public static func tree(_ state: LogDecider.State) -> JSONValue {
        let text = FlowJSON.state(state, stream: "", version: 0)
        guard case .object(let members)? = try? JSONParser.parse(text) else { return .null }
        return .object(members.filter { $0.0 != "stream" && $0.0 != "version" })
    }

    /// One line a change: `~ cart.total: 2250 → 4249`, `+ cart.items[p2]: {…}`, `- cart.cartDiscount…`.
    public static func render(_ change: StateChange) -> String {
        switch change.kind {
        case .added: "+ \(change.path): \(text(change.after))"
        case .removed: "- \(change.path): \(text(change.before))"
        case .changed: "~ \(change.path): \(text(change.before)) → \(text(change.after))"
        }
    }

    public static func write(_ change: StateChange, into json: inout JSONWriter) {
        json.beginObject()
        json.key("path")
        json.string(change.path)
        json.key("op")
        json.string(change.kind.rawValue)
        if let before = change.before {
            json.key("before")
            json.value(before)
        }
        if let after = change.after {
            json.key("after")
            json.value(after)
        }
        json.endObject()
    }

    private static func text(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        var json = JSONWriter()
        json.value(value)
        return json.text
    }

    private static func diff(_ before: JSONValue, _ after: JSONValue, path: String, into result: inout [StateChange]) {
        switch (before, after) {
        case (.object(let old), .object(let new)):
            for (key, oldValue) in old {
                let child = path.isEmpty ? key : "\(path).\(key)"
                if let newValue = new.first(where: { $0.0 == key })?.1 {
                    diff(oldValue, newValue, path: child, into: &result)
                } else {
                    result.append(StateChange(path: child, kind: .removed, before: oldValue, after: nil))
                }
            }
            for (key, newValue) in new where !old.contains(where: { $0.0 == key }) {
                result.append(StateChange(path: path.isEmpty ? key : "\(path).\(key)", kind: .added, before: nil, after: newValue))
            }
        case (.array(let old), .array(let new)):
            if let oldKeys = identities(old), let newKeys = identities(new) {
                for (index, key) in oldKeys.enumerated() {
                    if let match = newKeys.firstIndex(of: key) {
                        diff(old[index], new[match], path: "\(path)[\(key)]", into: &result)
                    } else {
                        result.append(StateChange(path: "\(path)[\(key)]", kind: .removed, before: old[index], after: nil))
                    }
                }
                for (index, key) in newKeys.enumerated() where !oldKeys.contains(key) {
                    result.append(StateChange(path: "\(path)[\(key)]", kind: .added, before: nil, after: new[index]))
                }
            } else {
                for index in 0..<max(old.count, new.count) {
                    let child = "\(path)[\(index)]"
                    switch (index < old.count ? old[index] : nil, index < new.count ? new[index] : nil) {
                    case (let a?, let b?): diff(a, b, path: child, into: &result)
                    case (let a?, nil): result.append(StateChange(path: child, kind: .removed, before: a, after: nil))
                    case (nil, let b?): result.append(StateChange(path: child, kind: .added, before: nil, after: b))
                    case (nil, nil): break
                    }
                }
            }
        default:
            if before != after {
                if case .null = before {
                    result.append(StateChange(path: path, kind: .added, before: nil, after: after))
                } else if case .null = after {
                    result.append(StateChange(path: path, kind: .removed, before: before, after: nil))
                } else {
                    result.append(StateChange(path: path, kind: .changed, before: before, after: after))
                }
            }
        }
    }

    /// The ids of an array of items or orders (`productId`, `orderId`), or `nil` for other arrays.
    private static func identities(_ elements: [JSONValue]) -> [String]? {
        guard !elements.isEmpty else { return [] }
        var keys: [String] = []
        for element in elements {
            guard case .string(let id)? = element["productId"] ?? element["orderId"] else { return nil }
            keys.append(id)
        }
        return keys
    }
}
