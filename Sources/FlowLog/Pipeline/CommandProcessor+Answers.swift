import Deciding
import FlowLogStore
import FlowLogSystem

/// The answers the processor words itself, beside the domain's own rejections: an envelope that
/// breaks its checks, a command id used before, a stream that moved past the expected version.
extension CommandProcessor {
    /// Identifier checks of the envelope, then the command's own field checks (SPEC §3, step 1).
    static func envelopeViolation(_ envelope: CommandEnvelope) -> Rejection? {
        if !Identifier.isValid(envelope.stream) { return Identifier.refusal(ofText: envelope.stream, role: "stream id") }
        if SystemStreams.isReserved(envelope.stream) {
            return Rejection(
                .invalidIdentifier,
                "The stream id \(envelope.stream) starts with \(SystemStreams.reservedPrefix), which names the log's own streams (its erasure audit trail); give the session another stream id."
            )
        }
        if let id = envelope.commandId, !Identifier.isValid(id) { return Identifier.refusal(ofText: id, role: "command id") }
        if let id = envelope.correlationId, !Identifier.isValid(id) { return Identifier.refusal(ofText: id, role: "correlation id") }
        return envelope.command.fieldViolation
    }

    /// The answer to a command whose id the stream accepted before: a duplicate when it is the same
    /// command (or the receipt, written before fingerprints, cannot tell), else a conflict.
    static func retry(_ envelope: CommandEnvelope, id: String, fingerprint: UInt64?, receipt: CommandReceipt) -> CommandOutcome {
        if let recorded = receipt.commandFingerprint, let fingerprint, recorded != fingerprint {
            return .rejected(stream: envelope.stream, idempotencyConflict(envelope, id: id, earlier: receipt))
        }
        return .accepted(Acceptance(stream: envelope.stream, receipt: receipt, duplicate: true, events: []))
    }

    static func idempotencyConflict(_ envelope: CommandEnvelope, id: String, earlier receipt: CommandReceipt) -> Rejection {
        let when =
            receipt.eventCount == 1
            ? "accepted at position \(receipt.firstPosition)"
            : "accepted at positions \(receipt.firstPosition)–\(receipt.firstPosition + receipt.eventCount - 1)"
        return Rejection(
            .idempotencyConflict,
            "Command id \(id) was used in stream \(envelope.stream) for another command (\(when)); nothing was appended. Give a new command a new id, or resend the original command unchanged to retry it."
        )
    }

    static func versionConflict(_ envelope: CommandEnvelope, actual: Int) -> Rejection {
        let expected = envelope.expectedVersion.map(String.init) ?? "its version when the command was decided"
        return Rejection(
            .versionConflict,
            "Stream \(envelope.stream) is at version \(actual), not \(expected); read its state again and resend with expectedVersion \(actual), or leave expectedVersion out."
        )
    }
}
