import Synchronization

/// A response encoded when its request was carried out, handed to whoever writes it exactly once: taken, not
/// copied, so its buffer stays uniquely referenced (the LF goes on in place; a `list` reply is made with room for
/// it) and is freed as soon as the line is written.
final class EncodedOnce: Sendable {
    private let encoded: Mutex<Session.Encoded?>

    init(_ encoded: Session.Encoded) {
        self.encoded = Mutex(encoded)
    }

    /// The response; `nil` after the first call.
    func take() -> Session.Encoded? {
        encoded.withLock { $0.take() }
    }
}
