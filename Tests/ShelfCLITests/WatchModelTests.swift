import Foundation
import ShelfClient
import ShelfCore
import ShelfCommandLine
import ShelfJSON
import Synchronization
import Testing

@testable import ShelfCLI

/// `WatchModel`, `shelf watch`'s decisions, without sockets: how a new connection starts, which change is shown,
/// what is said (README, "shelf watch"; protocol/PROTOCOL.md §6, §12).
@Suite struct WatchModelTests {
    private static let server = "127.0.0.1:7453"

    /// A `hello` result as the server sends it.
    private static func hello(revision: Revision, run: String?, list: String? = nil) throws -> HelloResult {
        let runMember = run.map { #","run":"\#($0)""# } ?? ""
        let listMember = list.map { #","list":"\#($0)""# } ?? ""
        let text = #"{"server":"shelfd","version":"0.1.0","protocol":1,"revision":\#(revision),"auth":"none"\#(runMember)\#(listMember)}"#
        return try ResultDecoding.hello(try JSONParser.parse(Array(text.utf8)))
    }

    private static func item(_ n: Int, _ title: String, revision: Revision) -> Item {
        let id = UUID(uuidString: "00000000-0000-4000-8000-00000000000\(n)") ?? UUID()
        return Item(id: id, title: title, isRead: false, addedAt: Date(timeIntervalSince1970: 0), revision: revision)
    }

    /// A model that has shown a list of Dune at revision 5, from the run `a`.
    private static func showingDune() -> WatchModel {
        var model = WatchModel(server: server)
        model.listed(revision: 5, items: [item(1, "Dune", revision: 5)], identity: WatchIdentity(run: "a"))
        return model
    }

    @Test("the first connection lists, whatever the server")
    func firstConnectionLists() throws {
        #expect(WatchModel(server: Self.server).start(after: try Self.hello(revision: 9, run: "a")) == .list)
    }

    @Test("a new connection to the same run resumes from the last revision shown, not the server's")
    func sameRunResumes() throws {
        var model = Self.showingDune()
        #expect(model.start(after: try Self.hello(revision: 9, run: "a")) == .resume(since: 5))
        _ = model.changed(RevisionedChange(revision: 6, change: .added(Self.item(2, "Emma", revision: 6))))
        #expect(model.start(after: try Self.hello(revision: 9, run: "a")) == .resume(since: 6))
        #expect(model.saying(.resume(since: 6)) == nil)
    }

    @Test("after a restart (another run) on the same stored list, the watch resumes from the revision shown; another list is listed again")
    func sameListAcrossRestartsResumes() throws {
        let dune = "2b7e1516-28ae-4d2a-a6f7-15884f3c9e01"
        var model = WatchModel(server: Self.server)
        model.listed(revision: 5, items: [Self.item(1, "Dune", revision: 5)],
                     identity: WatchIdentity(try Self.hello(revision: 5, run: "a", list: dune)))
        #expect(model.start(after: try Self.hello(revision: 5, run: "b", list: dune)) == .resume(since: 5))
        #expect(model.start(after: try Self.hello(revision: 5, run: "b", list: "9d1c2e4a-7b3d-4c5e-8f60-1a2b3c4d5e6f"))
            == .relist(restartedSince: 5))
    }

    @Test("a new connection to another run lists again, and says the server restarted since the revision shown")
    func otherRunRelists() throws {
        let model = Self.showingDune()
        let start = model.start(after: try Self.hello(revision: 5, run: "b"))
        #expect(start == .relist(restartedSince: 5))
        #expect(model.saying(start) == "127.0.0.1:7453 restarted since revision 5; listing again")
        // A server that sends no run cannot be told apart from itself.
        var unnamed = WatchModel(server: Self.server)
        unnamed.listed(revision: 5, items: [], identity: WatchIdentity(try Self.hello(revision: 5, run: nil)))
        #expect(unnamed.start(after: try Self.hello(revision: 7, run: nil)) == .resume(since: 5))
        #expect(unnamed.start(after: try Self.hello(revision: 7, run: "a")) == .relist(restartedSince: 5))
    }

    @Test("a change at or below the last revision shown is not shown again; a removal names the title it took")
    func changes() {
        var model = Self.showingDune()
        let dune = Self.item(1, "Dune", revision: 5)
        #expect(model.changed(RevisionedChange(revision: 5, change: .updated(dune))) == nil)
        let emma = RevisionedChange(revision: 6, change: .added(Self.item(2, "Emma", revision: 6)))
        #expect(model.changed(emma) == WatchModel.ShownChange(change: emma, previous: nil))
        #expect(model.changed(emma) == nil)
        let removal = RevisionedChange(revision: 7, change: .removed(dune.id))
        #expect(model.changed(removal) == WatchModel.ShownChange(change: removal, previous: dune))
        let unknown = RevisionedChange(revision: 8, change: .removed(dune.id))
        #expect(model.changed(unknown) == WatchModel.ShownChange(change: unknown, previous: nil))
        var fresh = WatchModel(server: Self.server)
        #expect(fresh.changed(emma) == nil, "nothing is shown before the list")
    }

    @Test("falling behind says it lists again by itself, not what the server advises the user (list again and watch)")
    func fellBehind() {
        let message = Self.showingDune().fellBehind(since: 5000)
        #expect(message == "fell behind: the server no longer keeps the changes after revision 5000 for this watch; listing again")
        #expect(!message.contains("watch from there"))
    }

    @Test("a shutdown says the server is restarting, not that the connection was lost; other endings say why")
    func endings() {
        let model = Self.showingDune()
        #expect(model.saying(.closed(reason: "shutdown", message: "Closing: the server is shutting down"))
            == "shelfd at 127.0.0.1:7453 is shutting down; reconnecting when it is back")
        #expect(model.saying(.lost) == "lost the connection to 127.0.0.1:7453; reconnecting")
        #expect(model.saying(.closed(reason: "slow_consumer", message: "Closing: too slow"))
            == "the server closed the connection (Closing: too slow); reconnecting")
        #expect(model.saying(.unanswered(seconds: 3)) == "no reply from 127.0.0.1:7453 to a ping within 3 s; reconnecting")
    }

    /// The lines shown for `new` after `old` was shown at revision 5.
    private static func lines(from old: Item, to new: Item) -> [String] {
        var model = WatchModel(server: server)
        model.listed(revision: 5, items: [old], identity: WatchIdentity(run: "a"))
        return model.changed(RevisionedChange(revision: 6, change: .updated(new)))?.lines ?? []
    }

    @Test("a change says what it changed, one line per member, against the item as last shown")
    func changeLines() {
        let dune = Self.item(1, "Dune", revision: 5)
        var read = dune
        read.isRead = true
        #expect(Self.lines(from: dune, to: read) == ["~ 00000000 read: Dune"])
        #expect(Self.lines(from: read, to: dune) == ["~ 00000000 unread: Dune"])
        var renamed = dune
        renamed.title = "Dune Messiah"
        #expect(Self.lines(from: dune, to: renamed) == ["~ 00000000 title: Dune -> Dune Messiah"])
        var fantasy = dune
        fantasy.tags = ["fantasy", "old"]
        var scifi = dune
        scifi.tags = ["old", "scifi"]
        #expect(Self.lines(from: fantasy, to: scifi) == ["~ 00000000 tags: +scifi -fantasy"])
        var authored = dune
        authored.author = "Frank Herbert"
        #expect(Self.lines(from: dune, to: authored) == ["~ 00000000 author: (none) -> Frank Herbert"])
        var other = authored
        other.author = "Brian Herbert"
        other.url = "https://example.org"
        #expect(Self.lines(from: authored, to: other) == [
            "~ 00000000 author: Frank Herbert -> Brian Herbert", "~ 00000000 url: (none) -> https://example.org",
        ])
        var noted = dune
        noted.note = "Read it"
        #expect(Self.lines(from: dune, to: noted) == ["~ 00000000 note added: Dune"])
        var renoted = noted
        renoted.note = "Read it again"
        #expect(Self.lines(from: noted, to: renoted) == ["~ 00000000 note changed: Dune"])
        #expect(Self.lines(from: noted, to: dune) == ["~ 00000000 note removed: Dune"])
        var several = dune
        several.title = "Dune\u{1b}[2J"
        several.isRead = true
        #expect(Self.lines(from: dune, to: several) == [
            "~ 00000000 title: Dune -> Dune\\u{1b}[2J", "~ 00000000 read: Dune\\u{1b}[2J",
        ])
    }

    @Test("an added, a removed, an unchanged and a never-shown item get one line each")
    func otherLines() {
        var model = Self.showingDune()
        let dune = Self.item(1, "Dune", revision: 5)
        let emma = Self.item(2, "Emma", revision: 6)
        #expect(model.changed(RevisionedChange(revision: 6, change: .added(emma)))?.lines == ["+ 00000000 Emma"])
        #expect(model.changed(RevisionedChange(revision: 7, change: .updated(dune)))?.lines == ["~ 00000000 [ ] Dune"])
        #expect(model.changed(RevisionedChange(revision: 8, change: .removed(dune.id)))?.lines == ["- 00000000 Dune"])
        let unseen = Self.item(3, "Kindred", revision: 9)
        #expect(model.changed(RevisionedChange(revision: 9, change: .updated(unseen)))?.lines == ["~ 00000000 [ ] Kindred"])
        #expect(model.changed(RevisionedChange(revision: 10, change: .removed(unseen.id)))?.lines == ["- 00000000 Kindred"])
        #expect(LocalTime.format(hour: 9, minute: 5, second: 0) == "09:05:00")
    }

    @Test("the screen prints each change line after the clock's time when it has a clock, and without one as is")
    func timedLines() async throws {
        let printed = Mutex("")
        let output = Output(out: { text in printed.withLock { $0 += text } }, err: { _ in })
        var model = Self.showingDune()
        var read = Self.item(1, "Dune", revision: 6)
        read.isRead = true
        read.title = "Dune Messiah"
        let change = model.changed(RevisionedChange(revision: 6, change: .updated(read)))
        let shown = try #require(change)
        let timed = WatchScreen(output: output, json: false, clock: { "20:15:03" })
        await timed.show(shown)
        await timed.flush(within: .seconds(10))
        timed.close()
        #expect(printed.withLock { $0 } == "20:15:03 ~ 00000000 title: Dune -> Dune Messiah\n20:15:03 ~ 00000000 read: Dune Messiah\n")
        printed.withLock { $0 = "" }
        let plain = WatchScreen(output: output, json: false)
        await plain.show(shown)
        await plain.flush(within: .seconds(10))
        plain.close()
        #expect(printed.withLock { $0 } == "~ 00000000 title: Dune -> Dune Messiah\n~ 00000000 read: Dune Messiah\n")
    }
}
