import Foundation
import ShelfClient
import ShelfCore
import ShelfSockets
import ShelfWire

/// A `ListRepository` over `ShelfClient`: one connection at a time to `shelfd`, a new one at each `connect()`.
/// While watching it pings every `timeout`, so a server that stops answering (or a peer gone without a word) ends
/// the watch as a closed connection does.
public actor NetworkListRepository: ListRepository {
    private let address: HostPort
    private let token: @Sendable () throws -> String?
    private let timeout: Duration?
    private var client: ShelfClient?
    private var pinger: Task<Void, Never>?

    /// A repository for the server at `address`; `token` reads the token when connecting (`nil` for none);
    /// `timeout` bounds connecting and each reply, and spaces the pings (`nil`: no limit, no pings).
    public init(address: HostPort, timeout: Duration?, token: @escaping @Sendable () throws -> String?) {
        self.address = address
        self.timeout = timeout
        self.token = token
    }

    /// `ListRepository.connect()`.
    public func connect() async throws(RepositoryError) -> String? {
        await disconnect()
        let secret: String?
        do { secret = try token() } catch { throw .unavailable("\(error)") }
        do {
            let client = try await ShelfClient.connect(to: address, token: secret, timeout: timeout)
            self.client = client
            // The stored list's identity, which outlives restarts; from an older server, its run.
            let hello = try await client.hello()
            return hello.listID?.wireString ?? hello.run
        } catch {
            throw Self.repositoryError(error)
        }
    }

    /// `ListRepository.list()`.
    public func list() async throws(RepositoryError) -> (revision: Revision, items: [Item]) {
        let client = try current()
        do { return try await client.list() } catch { throw Self.repositoryError(error) }
    }

    /// `ListRepository.watch(since:)`.
    public func watch(since: Revision) async throws(RepositoryError) -> AsyncStream<RepositoryEvent> {
        let client = try current()
        do { _ = try await client.call(.watch(since: since)) } catch { throw Self.repositoryError(error) }
        if let timeout { startPinging(client, every: timeout) }
        let notifications = client.notifications
        return AsyncStream { sink in
            let relay = Task {
                for await notification in notifications {
                    switch notification.method {
                    case "changed":
                        if let change = ServerNotification.change(fromParams: notification.params) { sink.yield(.changed(change)) }
                    case "closing":
                        sink.yield(.closing(notification.params["message"]?.stringValue ?? "the server closed the connection"))
                    default:
                        continue
                    }
                }
                sink.finish()
            }
            sink.onTermination = { @Sendable _ in relay.cancel() }
        }
    }

    /// `ListRepository.apply(_:expectItem:)`.
    public func apply(_ mutation: Mutation, expectItem: Revision?) async throws(RepositoryError) -> SaveResult {
        let client = try current()
        do {
            let (revision, item) = try await client.apply(mutation, expectItem: expectItem)
            return SaveResult(revision: revision, itemID: item?.id ?? mutation.targetID)
        } catch {
            throw Self.repositoryError(error)
        }
    }

    /// `ListRepository.disconnect()`.
    public func disconnect() async {
        pinger?.cancel()
        pinger = nil
        if let client {
            self.client = nil
            await client.close()
        }
    }

    private func current() throws(RepositoryError) -> ShelfClient {
        guard let client else { throw .unavailable("not connected") }
        return client
    }

    /// A ping unanswered within the client's timeout fails the client, which ends the watch's notifications.
    private func startPinging(_ client: ShelfClient, every interval: Duration) {
        pinger?.cancel()
        pinger = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { return }
                do { try await client.ping() } catch {
                    await client.close()
                    return
                }
            }
        }
    }

    private static func repositoryError(_ error: ClientError) -> RepositoryError {
        switch error {
        case .server(let rpc) where rpc.knownCode == .tooManyConnections || rpc.knownCode == .unauthorized:
            .unavailable(rpc.message)
        case .server(let rpc): RepositoryError(rpc)
        default: .unavailable("\(error)")
        }
    }
}
