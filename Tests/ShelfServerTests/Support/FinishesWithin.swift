import ShelfTestSupport

/// Whether `operation` finishes within `seconds` (`result(within:of:)` leaves an operation that ignores
/// cancellation behind, so this returns either way). Use it only where a hang is the failure being tested for.
func finishesWithin(seconds: Int, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
    (try? await result(within: .seconds(seconds)) { await operation() }) != nil
}
