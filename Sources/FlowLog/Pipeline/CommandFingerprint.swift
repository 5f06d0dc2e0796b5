import FlowLogBasics
public import FlowLogStore

/// What a command was, as 64 bits: xxHash64 of its wire form without the envelope (its type and
/// fields, in declaration order, an absent optional field left out). The log keeps it with the
/// command's receipt; a later command with the same id is a retry (a duplicate) when the
/// fingerprints agree and an `idempotencyConflict` when they differ. The envelope is left out on
/// purpose: a retry that re-read the stream's version or carries another correlation id is still
/// the same command.
public enum CommandFingerprint {
    public static func of(_ command: LogDecider.Command) -> UInt64 {
        var json = JSONWriter()
        WireCommand.encode(CommandEnvelope(command: command), into: &json)
        return XXHash64.hash(json.bytes)
    }
}
