import Foundation
import ShelfCore

/// Runs a `ListViewModel` against a `ListRepository`: connects (and reconnects, with backoff, when the connection
/// ends), lists or resumes as the model decides, feeds it the watched changes, sends the saves its keys ask for
/// and hands their answers back. After every step it publishes the model, for the screen.
public actor LiveViewDriver {
    private var model = ListViewModel()
    private let repository: any ListRepository
    private let publish: @Sendable (ListViewModel) -> Void
    /// The longest wait between reconnection attempts.
    public static let maxBackoff: Duration = .seconds(5)

    /// A driver over `repository`; `publish` is called with the model after each change to it (keep it short:
    /// it runs on the actor).
    public init(repository: any ListRepository, publish: @escaping @Sendable (ListViewModel) -> Void) {
        self.repository = repository
        self.publish = publish
    }

    /// The model now.
    public var state: ListViewModel { model }

    /// Connects, watches and reconnects until the task is cancelled.
    public func run() async {
        var backoff: Duration = .milliseconds(100)
        while !Task.isCancelled {
            let session = model.connecting()
            publish(model)
            do {
                let identity = try await repository.connect()
                guard let start = model.connected(session: session, identity: identity) else { continue }
                publish(model)
                let stream = try await startWatch(start, identity: identity)
                backoff = .milliseconds(100)
                var reason = "lost the connection"
                for await event in stream {
                    switch event {
                    case .changed(let change):
                        if model.changed(session: session, change) { publish(model) }
                    case .closing(let message):
                        reason = message
                    }
                }
                model.disconnected(session: session, reason: reason)
            } catch {
                model.disconnected(session: session, reason: error.message)
            }
            publish(model)
            await repository.disconnect()
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, Self.maxBackoff)
        }
        await repository.disconnect()
    }

    /// Resumes from the model's revision, or lists and watches from the list's; lists again when a resume is
    /// refused as too old.
    private func startWatch(_ start: ListViewModel.Start, identity: String?) async throws(RepositoryError) -> AsyncStream<RepositoryEvent> {
        if case .resume(let since) = start {
            do { return try await repository.watch(since: since) } catch .compacted { /* lists below */ }
        }
        while true {
            let since = try await list(identity: identity)
            do { return try await repository.watch(since: since) } catch .compacted { continue }
        }
    }

    /// Lists; the model takes the reply only if nothing newer came meanwhile.
    /// - Returns: the revision to watch from: the list's, or the model's when it kept a newer state.
    private func list(identity: String?) async throws(RepositoryError) -> Revision {
        let generation = model.beginList()
        let (revision, items) = try await repository.list()
        if model.listed(generation: generation, revision: revision, items: items, identity: identity) { publish(model) }
        return model.revision ?? revision
    }

    /// A key: the model decides; a save it asks for is sent on a task of its own, so keys go on being taken.
    /// - Returns: false when the key quits the view.
    @discardableResult
    public func press(_ key: Key) -> Bool {
        let effect = model.press(key)
        publish(model)
        switch effect {
        case .none: break
        case .quit: return false
        case .save(let request):
            let repository = repository
            Task {
                let result: Result<SaveResult, RepositoryError>
                do throws(RepositoryError) {
                    result = .success(try await repository.apply(request.mutation, expectItem: request.expectItem))
                } catch {
                    result = .failure(error)
                }
                saved(request.token, result)
            }
        }
        return true
    }

    private func saved(_ token: UInt64, _ result: Result<SaveResult, RepositoryError>) {
        model.saved(token: token, result)
        publish(model)
    }

    /// The screen's list area is `rows` rows tall.
    public func resize(listRows rows: Int) {
        model.resize(listRows: rows)
        publish(model)
    }
}
