import Foundation
import ShelfClient
import ShelfCore
import ShelfJSON
import ShelfServer
import ShelfWire
import Testing
import ShelfTestSupport

/// Live collaboration under load (protocol/PROTOCOL.md §3, §6, §7; shared/design.md, invariants 1, 3, 5, 7): many
/// editors at once on one real server, checked only through what the server acknowledged and what watchers saw.
@Suite struct ConcurrentEditorsTests {
    /// One request an editor sent and the reply it got.
    struct Exchange: Sendable {
        let editor: Int
        let operation: Int
        let mutation: Mutation
        let expect: Revision?
        let reply: JSONValue

        func isSame(as other: Exchange) -> Bool { editor == other.editor && operation == other.operation }

        var isSuccess: Bool { reply.member("result") != nil }
        var revision: Revision? { reply.integer("result", "revision").map { Revision($0) } }
        /// The item in a successful reply (all mutations but `remove`).
        var item: Item? { reply.member("result", "item").flatMap { Item(json: $0) } }

        var target: UUID? {
            switch mutation {
            case .add: nil
            case .setRead, .toggle, .rename, .remove, .update: mutation.targetID
            }
        }

        /// True for the mutations that write whenever they succeed (`add`, `toggle`, `remove`).
        var alwaysWrites: Bool {
            switch mutation {
            case .add, .toggle, .remove: true
            case .setRead, .rename, .update: false
            }
        }

        /// The change this reply announces, if it made one.
        var change: ListChange? {
            switch mutation {
            case .add: item.map { .added($0) }
            case .remove(let id): .removed(id)
            case .setRead, .toggle, .rename, .update: item.map { .updated($0) }
            }
        }
    }

    // MARK: - (a) many editors, two watchers, a restart

    /// The concurrency proof. Runs on a `FileListStore` in a temporary directory, so the restart at the end reads
    /// back exactly what was acknowledged. Every commit is fsynced, but the store's group commit writes the changes
    /// that queue up meanwhile together, so the 4,000 operations take ~13 s in a debug build. The seed is in every
    /// failure message; the interleaving of the editors is up to the scheduler.
    @Test("8 editors x 500 random operations with 2 watchers: revisions 1...R once each, replays equal the final list, and a restart shows the same list")
    func editorsAndWatchers() async throws {
        let seed: UInt64 = 0x5EED_0001
        let editors = 8
        let operations = 500
        let directory = FileManager.default.temporaryDirectory.appending(path: "shelf-editors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "reading-list.json").path

        try await withDeadline(seconds: 120) {
            let server = try await HistoryTestServer.start(store: FileListStore(path: path))
            let finalLine: String
            let finalRevision: Revision
            do {
                (finalLine, finalRevision) = try await Self.runEditors(
                    on: server, seed: seed, editors: editors, operations: operations)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()

            // A new store, list and server on the same file: the same list, byte for byte, at the same revision.
            let restarted = try await HistoryTestServer.start(store: FileListStore(path: path))
            do {
                let connection = try await restarted.connect()
                #expect(try await connection.exchange(#"{"id":"final","method":"list"}"#) == finalLine)
                #expect(try await connection.exchange(#"{"id":1,"method":"hello"}"#) == ExpectedLine.hello("1", revision: Int(finalRevision), list: restarted.list.identity))
                connection.close()
            } catch {
                await restarted.stop()
                throw error
            }
            await restarted.stop()
        }
    }

    /// Runs the editors and both watchers, checks everything, and returns the final `list` line and revision.
    private static func runEditors(
        on server: HistoryTestServer, seed: UInt64, editors: Int, operations: Int
    ) async throws -> (String, Revision) {
        let (midway, reachedMidway) = AsyncStream.makeStream(of: Void.self)
        let (lateWatching, lateStartedWatching) = AsyncStream.makeStream(of: Void.self)
        // Whatever fails, nobody waits for these forever.
        defer { reachedMidway.finish() }

        // Watcher 1, from the very start (revision 0).
        let early = try await server.connect()
        #expect(try await early.exchange(#"{"id":"w","method":"watch"}"#) == ExpectedLine.result(#""w""#, #"{"revision":0}"#))
        let earlyLines = Task { try await Self.lines(from: early, untilReplyTo: "end") }

        // Watcher 2 joins once editor 0 is halfway: it lists, then watches from the list's revision.
        let late = try await server.connect()
        let lateRun = Task { () throws -> (since: Revision, start: [Item], lines: [String]) in
            defer { lateStartedWatching.finish() }
            for await _ in midway { break }
            let listed = try await late.call(#"{"id":"l","method":"list"}"#)
            let (since, items) = try ResultDecoding.list(try #require(listed.member("result")))
            try await late.send(#"{"id":"w","method":"watch","params":{"since":\#(since)}}"# + "\n")
            lateStartedWatching.yield()
            return (since, items, try await Self.lines(from: late, untilReplyTo: "end"))
        }

        let signalMidway: @Sendable () -> Void = { _ = reachedMidway.yield() }
        let (exchanges, lists) = try await withThrowingTaskGroup(of: ([Exchange], Int).self) { group in
            for editor in 0..<editors {
                group.addTask {
                    try await Self.edit(
                        as: editor, seed: seed &+ UInt64(editor), operations: operations, server: server,
                        halfway: editor == 0 ? signalMidway : nil)
                }
            }
            var all: [Exchange] = []
            var lists = 0
            for try await (exchanges, listed) in group {
                all += exchanges
                lists += listed
            }
            return (all, lists)
        }
        #expect(exchanges.count + lists == editors * operations)

        for await _ in lateWatching { break }
        // unwatch's reply comes after every notification owed up to its revision: it ends each watcher's stream.
        try await early.send(#"{"id":"end","method":"unwatch"}"# + "\n")
        try await late.send(#"{"id":"end","method":"unwatch"}"# + "\n")
        let earlySeen = try await earlyLines.value
        let lateSeen = try await lateRun.value
        early.close()
        late.close()

        let reader = try await server.connect()
        let finalLine = try await reader.exchange(#"{"id":"final","method":"list"}"#)
        reader.close()
        let (finalRevision, finalItems) = try ResultDecoding.list(
            try #require(try JSONParser.parse(Array(finalLine.utf8)).member("result")))

        let changes = Self.changesByRevision(exchanges, finalRevision: finalRevision, finalItems: finalItems, seed: seed)
        Self.checkWatcher(
            "early watcher", earlySeen, since: 0, start: [], changes: changes, finalItems: finalItems, watchReply: false)
        Self.checkWatcher(
            "late watcher", lateSeen.lines, since: lateSeen.since, start: lateSeen.start, changes: changes,
            finalItems: finalItems, watchReply: true)
        #expect(lateSeen.since > 0 && lateSeen.since < finalRevision, "the late watcher joined midway, at \(lateSeen.since) of \(finalRevision)")
        return (finalLine, finalRevision)
    }

    /// One editor: `operations` random requests, one at a time, each on an id this editor has seen (its own adds,
    /// items in its replies and in its occasional `list`), a fifth of the mutations with `expect` set to the last
    /// revision it saw. Returns every acknowledged mutation (success or error), in order, and how many lists it read.
    private static func edit(
        as editor: Int, seed: UInt64, operations: Int, server: HistoryTestServer, halfway: (@Sendable () -> Void)?
    ) async throws -> ([Exchange], Int) {
        var random = SplitMix64(seed: seed)
        let connection = try await server.connect()
        defer { connection.close() }
        var seen: [UUID] = []
        var items: [UUID: Item] = [:]
        var lastRevision: Revision = 0
        var exchanges: [Exchange] = []
        var lists = 0

        func forget(_ id: UUID) {
            seen.removeAll { $0 == id }
            items[id] = nil
        }

        for operation in 0..<operations {
            if operation == operations / 2 { halfway?() }
            let roll = random.next(upperBound: 100 as UInt64)
            let mutation: Mutation
            if seen.isEmpty || roll < 30 {
                mutation = .add(title: "e\(editor)-\(operation)")
            } else if roll < 34 {
                let listed = try await connection.call(#"{"id":"list","method":"list"}"#)
                let (revision, listedItems) = try ResultDecoding.list(try #require(listed.member("result")))
                seen = listedItems.map(\.id)
                items = Dictionary(listedItems.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
                lastRevision = revision
                lists += 1
                continue
            } else {
                let id = seen[Int(random.next(upperBound: UInt64(seen.count)))]
                switch roll {
                case ..<50:
                    mutation = .setRead(id: id, isRead: random.next(upperBound: 2 as UInt64) == 0)
                case ..<64:
                    mutation = .toggle(id: id)
                case ..<86:
                    // Now and then the title this editor last saw, which is a no-op unless someone renamed it since.
                    let same = random.next(upperBound: 4 as UInt64) == 0
                    mutation = .rename(id: id, title: same ? (items[id]?.title ?? "?") : "e\(editor)-\(operation)")
                default:
                    mutation = .remove(id: id)
                }
            }
            let expect: Revision? = random.next(upperBound: 5 as UInt64) == 0 ? lastRevision : nil
            let (method, params) = MethodCall.mutate(mutation, expect: expect).request
            var line = JSONWriter.encode(RPCRequest(id: .number(JSONNumber(operation)), method: method, params: params).json)
            line.append(0x0A)
            try await connection.send(bytes: line)
            let reply = try await connection.readJSON()
            let exchange = Exchange(editor: editor, operation: operation, mutation: mutation, expect: expect, reply: reply)
            exchanges.append(exchange)

            if let revision = exchange.revision {
                lastRevision = revision
                if case .remove(let id) = mutation {
                    forget(id)
                } else if let item = exchange.item {
                    if items[item.id] == nil { seen.append(item.id) }
                    items[item.id] = item
                }
                continue
            }
            switch reply.integer("error", "code") {
            case 2:
                let target = try #require(exchange.target)
                #expect(reply.member("error", "data", "id") == .string(target.wireString))
                forget(target)
            case 3:
                let current = try #require(reply.integer("error", "data", "revision"))
                #expect(expect != nil && Revision(current) != expect, "conflict without a stale expect: \(reply)")
                lastRevision = Revision(current)
            default:
                Issue.record("editor \(editor) (seed \(seed)), operation \(operation) \(mutation) expect \(String(describing: expect)): unexpected reply \(reply)")
            }
        }
        return (exchanges, lists)
    }

    /// Works out, from the acknowledged replies alone, the one change each revision 1...R made, and checks them:
    /// every revision was acknowledged as a change, no two writing requests share a revision, each change is what its
    /// request asked for, no-ops show the item as it was, and replaying the changes in revision order gives
    /// `finalItems` exactly.
    ///
    /// A mark or rename that changed nothing answers the current revision and the item as it is; when the item's own
    /// last change was that very revision, its reply is identical to a change's reply. Such twins are one change: a
    /// revision may carry several replies only if at most one of them is an always-writing request and all of them
    /// show the same item.
    /// - Returns: the change of each revision, at its index (index 0 unused).
    private static func changesByRevision(
        _ exchanges: [Exchange], finalRevision: Revision, finalItems: [Item], seed: UInt64
    ) -> [ListChange?] {
        let context = "seed \(seed)"
        let count = Int(finalRevision)
        var candidates = [[Exchange]](repeating: [], count: count + 1)
        var noOps = [[Exchange]](repeating: [], count: count + 1)
        var removed = Set<UUID>()
        for exchange in exchanges {
            guard exchange.isSuccess else { continue }
            guard let revision = exchange.revision, revision >= 1, revision <= finalRevision else {
                Issue.record("\(context): revision outside 1...\(finalRevision): \(exchange.reply)")
                continue
            }
            if case .remove(let id) = exchange.mutation { removed.insert(id) }
            if !exchange.alwaysWrites, let item = exchange.item, item.revision < revision {
                noOps[Int(revision)].append(exchange)
                #expect(exchange.expect == nil || exchange.expect == revision, "\(context): \(exchange.reply)")
            } else {
                candidates[Int(revision)].append(exchange)
            }
        }
        // A not_found is only right for an id that some editor removed.
        for exchange in exchanges where exchange.reply.integer("error", "code") == 2 {
            #expect(exchange.target.map { removed.contains($0) } == true, "\(context): not_found for an id never removed: \(exchange.reply)")
        }

        var changes = [ListChange?](repeating: nil, count: count + 1)
        var state = ItemCollection()
        var changesCounted = 0
        for revision in stride(from: 1, through: count, by: 1) {
            let group = candidates[revision]
            // The change is the always-writing request if there is one, else a mark or rename that changes the item
            // as it was; the rest of the group are twins.
            let changing = group.first { exchange in
                guard let id = exchange.target, let before = state[id] else { return false }
                return Self.updated(before, by: exchange.mutation) != before
            }
            guard let chosen = group.first(where: \.alwaysWrites) ?? changing ?? group.first, let change = chosen.change else {
                Issue.record("\(context): no acknowledged request made revision \(revision)")
                continue
            }
            changesCounted += 1
            #expect(group.filter(\.alwaysWrites).count == 1 || !chosen.alwaysWrites, "\(context): two writes share revision \(revision)")
            if group.count > 1 {
                // The others are no-op twins: never writes, same item as the change.
                for twin in group where !twin.isSame(as: chosen) {
                    #expect(!twin.alwaysWrites && twin.item != nil && twin.item == chosen.item,
                            "\(context): revision \(revision) acknowledged twice: \(chosen.reply) and \(twin.reply)")
                }
            }
            let before = state[change.itemID]
            Self.checkChange(chosen, change, before: before, revision: revision, context: context)
            let fits = state.apply(change)
            #expect(fits, "\(context): revision \(revision)'s change does not fit the list: \(chosen.reply)")
            changes[revision] = change
            for twin in group where !twin.isSame(as: chosen) {
                #expect(twin.expect == nil || twin.expect == Revision(revision), "\(context): \(twin.reply)")
                let after = twin.target.flatMap { state[$0] }
                #expect(after != nil && after.map { Self.updated($0, by: twin.mutation) } == after,
                        "\(context): revision \(revision)'s twin would change the list: \(twin.reply)")
            }
            for noOp in noOps[revision] {
                #expect(noOp.item == noOp.item.flatMap { state[$0.id] }, "\(context): no-op at revision \(revision) shows \(noOp.reply)")
            }
        }
        #expect(changesCounted == count)
        #expect(state.items == finalItems, "\(context): replaying the acknowledged changes gives another list")
        return changes
    }

    /// Checks that `change` is what `exchange`'s request asks of the item as it was before (`before`).
    private static func checkChange(_ exchange: Exchange, _ change: ListChange, before: Item?, revision: Int, context: String) {
        let what = "\(context): revision \(revision), \(exchange.mutation) expect \(String(describing: exchange.expect)) -> \(exchange.reply)"
        if let expect = exchange.expect {
            #expect(expect == Revision(revision - 1), "\(what): applied with a stale expect")
        }
        switch (exchange.mutation, change) {
        case (.add(let title, _), .added(let item)):
            #expect(before == nil && item.title == title && !item.isRead && item.revision == Revision(revision), "\(what)")
        case (.remove(let id), .removed(let removed)):
            #expect(before != nil && id == removed, "\(what)")
        case (_, .updated(let item)):
            guard let before else {
                Issue.record("\(what): updates an item that is not in the list")
                return
            }
            var wanted = Self.updated(before, by: exchange.mutation)
            #expect(wanted != before, "\(what): counted as a change but changes nothing")
            wanted.revision = Revision(revision)
            // readAt comes from the server's clock: set exactly when the item is read.
            #expect((item.readAt != nil) == item.isRead, "\(what): readAt and isRead disagree")
            wanted.readAt = item.isRead ? (before.isRead && wanted.isRead ? before.readAt : item.readAt) : nil
            #expect(item == wanted, "\(what)")
        default:
            Issue.record("\(what): the reply does not match the request")
        }
    }

    /// `before` as a mark, toggle or rename request leaves it (its revision unchanged); other requests return it as is.
    private static func updated(_ before: Item, by mutation: Mutation) -> Item {
        var item = before
        switch mutation {
        case .setRead(_, let isRead): item.isRead = isRead
        case .toggle: item.isRead.toggle()
        case .rename(_, let title): item.title = title
        case .add, .remove, .update: break
        }
        return item
    }

    /// Checks one watcher's lines: `changed` notifications for exactly `since`+1...R, in order, each the very
    /// change acknowledged at that revision and written exactly as the server encodes it, replaying onto `start`
    /// into `finalItems`; with `watchReply`, the `watch` reply (id "w") sits between the backlog and the live
    /// changes; the last line is the `unwatch` reply at R.
    private static func checkWatcher(
        _ name: String, _ lines: [String], since: Revision, start: [Item], changes: [ListChange?], finalItems: [Item],
        watchReply: Bool
    ) {
        let finalRevision = Revision(changes.count - 1)
        var state: ItemCollection
        switch ItemCollection.make(start) {
        case .success(let collection): state = collection
        case .failure(let duplicate):
            Issue.record("\(name): the list has \(duplicate.id) twice")
            return
        }
        var revisions: [Revision] = []
        var watchRevision: Revision?
        for (index, line) in lines.enumerated() {
            guard let value = try? JSONParser.parse(Array(line.utf8)) else {
                Issue.record("\(name): line \(index + 1) is not JSON: \(line.prefix(300))")
                return
            }
            if index == lines.count - 1 {
                #expect(line == ExpectedLine.result(#""end""#, #"{"revision":\#(finalRevision)}"#), "\(name)")
                break
            }
            if value.member("id") == .string("w") {
                #expect(watchReply && watchRevision == nil, "\(name): unexpected watch reply \(line)")
                watchRevision = value.integer("result", "revision").map { Revision($0) }
                #expect(watchRevision == revisions.last ?? since, "\(name): the watch reply follows exactly its backlog")
                continue
            }
            guard value.member("method") == .string("changed"), let params = value.member("params")?.objectValue,
                  let change = ServerNotification.change(fromParams: params)
            else {
                Issue.record("\(name): line \(index + 1) is not a changed notification: \(line.prefix(300))")
                return
            }
            #expect(line + "\n" == String(decoding: ServerNotification.changed(change).line, as: UTF8.self), "\(name)")
            revisions.append(change.revision)
            if change.revision < Revision(changes.count) {
                #expect(changes[Int(change.revision)] == change.change, "\(name): revision \(change.revision) is not the acknowledged change")
            }
            let fits = state.apply(change.change)
            #expect(fits, "\(name): revision \(change.revision) does not fit")
        }
        #expect(!watchReply || watchRevision != nil, "\(name): no watch reply")
        let wanted = since < finalRevision ? Array(since + 1...finalRevision) : []
        #expect(revisions == wanted, "\(name): got \(revisions.count) revisions from \(revisions.first ?? 0) to \(revisions.last ?? 0), want \(since + 1)...\(finalRevision)")
        #expect(state.items == finalItems, "\(name): replaying the notifications gives another list")
    }

    /// Reads lines until (and including) the reply with id `id`.
    private static func lines(from connection: LineConnection, untilReplyTo id: String) async throws -> [String] {
        var lines: [String] = []
        let marker = #""id":"\#(id)""#
        while true {
            let line = try await connection.nextLine()
            lines.append(line)
            if line.hasPrefix(#"{"jsonrpc":"2.0",\#(marker)"#) { return lines }
        }
    }

    // MARK: - (b) conditional writes under contention

    @Test("10 clients rename one item with expect: one wins per revision, the rest get conflict 3 with the revision, and retrying applies all 10")
    func conditionalWritesUnderContention() async throws {
        let clients = 10
        try await withTestServer(seconds: 30) { server in
            let setup = try await server.connect()
            #expect(try await setup.exchange(#"{"id":1,"method":"add","params":{"title":"Dune"}}"#)
                == ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "Dune", revision: 1)))
            let id = ExpectedLine.wireID(1)
            // Every client reads before anyone writes, so the first round is a real race: all expect revision 1.
            let firstRead = ArrivalBarrier(count: clients)
            let attempts = try await withThrowingTaskGroup(of: (Int, [(expect: Int, reply: String)]).self) { group in
                for client in 0..<clients {
                    group.addTask {
                        let connection = try await server.connect()
                        defer { connection.close() }
                        var attempts: [(expect: Int, reply: String)] = []
                        while attempts.count < 100 {
                            let read = try await connection.call(#"{"id":"get","method":"get","params":{"id":"\#(id)"}}"#)
                            let revision = try #require(read.integer("result", "revision"))
                            if attempts.isEmpty { await firstRead.arriveAndWait() }
                            let reply = try await connection.exchange(
                                #"{"id":"rename","method":"rename","params":{"id":"\#(id)","title":"v\#(client)","expect":\#(revision)}}"#)
                            attempts.append((revision, reply))
                            if reply.contains(#""result":"#) { break }
                        }
                        return (client, attempts)
                    }
                }
                var all: [Int: [(expect: Int, reply: String)]] = [:]
                for try await (client, tries) in group { all[client] = tries }
                return all
            }

            var winners: [(revision: Int, client: Int)] = []
            var conflicts = 0
            for client in 0..<clients {
                let tries = try #require(attempts[client])
                for (index, attempt) in tries.enumerated() {
                    let applied = ExpectedLine.item(
                        #""rename""#, revision: attempt.expect + 1,
                        item: ExpectedLine.itemJSON(1, "v\(client)", revision: attempt.expect + 1))
                    if index == tries.count - 1 {
                        #expect(attempt.reply == applied, "client \(client)'s last try is applied at expect + 1")
                        winners.append((attempt.expect + 1, client))
                    } else {
                        let current = try #require(
                            try JSONParser.parse(Array(attempt.reply.utf8)).integer("error", "data", "revision"))
                        #expect(current > attempt.expect, "client \(client): \(attempt.reply)")
                        #expect(attempt.reply == ExpectedLine.error(
                            #""rename""#, code: 3, message: "The list changed (now at revision \(current)); reload and try again",
                            reason: "conflict", extra: #""revision":\#(current)"#))
                        conflicts += 1
                    }
                }
            }
            // One success per revision 2...11 (so per expect 1...10), every client exactly once.
            #expect(winners.map(\.revision).sorted() == Array(2...(clients + 1)))
            #expect(Set(winners.map(\.client)).count == clients)
            let firstRound = (0..<clients).compactMap { attempts[$0]?.first }
            #expect(firstRound.allSatisfy { $0.expect == 1 })
            #expect(firstRound.filter { $0.reply.contains(#""result":"#) }.count == 1, "exactly one first-round rename wins")
            #expect(conflicts >= clients - 1)
            let last = try #require(winners.max { $0.revision < $1.revision })
            #expect(try await setup.exchange(#"{"id":2,"method":"get","params":{"id":"\#(id)"}}"#)
                == ExpectedLine.item("2", revision: clients + 1, item: ExpectedLine.itemJSON(1, "v\(last.client)", revision: clients + 1)))
            setup.close()
        }
    }
}
