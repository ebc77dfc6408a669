import ShelfSockets

/// The event loop where connections are served, as a global actor: `Server`, every `Session` and the `ChangeFeed`
/// are isolated to it, so a connection's state is touched only on the loop thread, with no locks. Its executor is
/// the reactor's (`Reactor.shared`), the one `shelfd` gives its `ReadingList` too: a session's calls to the list
/// are then switched in place by the runtime (two actors of one serial executor), with no hop.
@globalActor public actor ServingLoop {
    /// The one instance `@ServingLoop` names.
    public static let shared = ServingLoop()

    /// The reactor's serial executor: jobs isolated to the loop run on its thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        Reactor.shared.executor.serial.asUnownedSerialExecutor()
    }

    /// Calls `body(target, argument)` isolated to the loop: at once when the caller runs on the loop thread (the
    /// list's publish, a timer, a readiness callback), otherwise in a task on the loop. `body` should capture
    /// nothing, so no closure context is allocated on the way.
    nonisolated static func run<Target: Sendable, Argument: Sendable>(
        _ target: Target, _ argument: Argument, _ body: @escaping @ServingLoop @Sendable (Target, Argument) -> Void
    ) {
        guard Reactor.shared.executor.serial.isIsolatingCurrentContext() == true else {
            Task { @ServingLoop in body(target, argument) }
            return
        }
        // Sound because of the check above: the loop's executor is serial and this thread runs it now, so nothing
        // else runs isolated to it until `body` returns. The two function types differ only in that promise, not
        // in how they are called (the cast `MainActor.assumeIsolated` makes).
        let onTheLoop = unsafeBitCast(body, to: (@Sendable (Target, Argument) -> Void).self)
        onTheLoop(target, argument)
    }
}
