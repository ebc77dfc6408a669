import Foundation
import ShelfClient
import ShelfCore
import ShelfWire
import Testing

/// `ShelfClient.enqueue(_:)` and `reply(to:)`: calls sent from one task before any reply is awaited, carried out in
/// that order.
@Suite struct ClientPipelineTests {
    @Test("enqueued adds go out in order, replies are taken in any order, and an error stays with its own call")
    func orderedWindow() async throws {
        try await withTestServer { server in
            let client = try await ShelfClient.connect(to: server.address)
            var tickets: [ShelfClient.Ticket] = []
            for n in 0..<300 {
                let title = n == 150 ? " " : "title \(n)"
                tickets.append(try await client.enqueue(.mutate(.add(title: title), expect: nil)))
            }
            // The last reply first: earlier ones are held until asked for.
            let last = try await client.reply(to: tickets[299])
            #expect(last.objectValue?["revision"] == .number(.init(299)))
            var revisions: [UInt64] = []
            for (n, ticket) in tickets.dropLast().enumerated() {
                do {
                    let result = try await client.reply(to: ticket)
                    revisions.append(result.objectValue?["revision"]?.numberValue?.uint64 ?? 0)
                } catch {
                    #expect(n == 150)
                    guard case .server(let rpc) = error as? ClientError else { throw error }
                    #expect(rpc.knownCode == .invalidTitle)
                }
            }
            #expect(revisions == Array(1...149) + Array(150...298))
            let titles = try await client.list().items.map(\.title)
            #expect(titles == (0..<300).filter { $0 != 150 }.map { "title \($0)" })
            await client.close()
        }
    }
}
