import Foundation
import ShelfCore
import ShelfLiveView
import Testing

/// `ListViewModel`'s decisions without sockets or a terminal: generations, selection by id, filters, keys.
@Suite struct ListViewModelTests {
    /// A model connected to run `a` and showing `items` at `revision`.
    private static func showing(_ items: [Item], revision: Revision) -> (ListViewModel, session: UInt64) {
        var model = ListViewModel()
        let session = model.connecting()
        _ = model.connected(session: session, identity: "a")
        let generation = model.beginList()
        model.listed(generation: generation, revision: revision, items: items, identity: "a")
        return (model, session)
    }

    @Test("a slow list reply that arrives after a newer change is dropped: the screen does not roll back")
    func staleListIsDropped() {
        var (model, session) = Self.showing([item(1, "Dune", revision: 1)], revision: 1)
        let slow = model.beginList()
        let change = model.changed(session: session, RevisionedChange(revision: 2, change: .added(item(2, "Solaris", revision: 2))))
        #expect(change)

        let taken = model.listed(generation: slow, revision: 1, items: [item(1, "Dune", revision: 1)], identity: "a")

        #expect(!taken)
        #expect(model.revision == 2)
        #expect(model.visible.map(\.title) == ["Dune", "Solaris"])
    }

    @Test("a change at or below the revision shown, or from an older connection, is skipped")
    func staleChangesAreSkipped() {
        var (model, session) = Self.showing([item(1, "Dune", revision: 1)], revision: 1)
        let again = model.changed(session: session, RevisionedChange(revision: 1, change: .removed(CountingIDs.id(1))))
        #expect(!again)
        let newer = model.connecting()
        let older = model.changed(session: session, RevisionedChange(revision: 2, change: .removed(CountingIDs.id(1))))
        #expect(!older)
        let start = model.connected(session: newer, identity: "a")
        #expect(start == .resume(since: 1))
        #expect(model.visible.map(\.title) == ["Dune"])
    }

    @Test("the selection stays on its item by id when rows move, and moves to the row it was at when it goes")
    func selectionFollowsTheItem() {
        var (model, session) = Self.showing(
            [item(1, "A", revision: 1), item(2, "B", revision: 2), item(3, "C", revision: 3)], revision: 3)
        _ = model.press(.down)
        #expect(model.selection == CountingIDs.id(2))

        model.changed(session: session, RevisionedChange(revision: 4, change: .removed(CountingIDs.id(1))))
        #expect(model.selection == CountingIDs.id(2))
        #expect(model.selectedRow == 0)

        model.changed(session: session, RevisionedChange(revision: 5, change: .removed(CountingIDs.id(2))))
        #expect(model.selection == CountingIDs.id(3))
    }

    @Test("under a filter, a change moves only its own row: out when it stops matching, in at its place in the list's order")
    func changesUnderAFilter() {
        var (model, session) = Self.showing(
            [item(1, "A", revision: 1), item(2, "B", revision: 2), item(3, "C", revision: 3)], revision: 3)
        _ = model.press(.character("r"))
        #expect(model.visible.map(\.title) == ["A", "B", "C"])
        _ = model.press(.end)
        model.changed(session: session, RevisionedChange(revision: 4, change: .updated(item(2, "B", revision: 4, isRead: true))))
        #expect(model.visible.map(\.title) == ["A", "C"])
        #expect(model.readCount == 1)
        #expect(model.selection == CountingIDs.id(3))
        model.changed(session: session, RevisionedChange(revision: 5, change: .updated(item(2, "B", revision: 5))))
        #expect(model.visible.map(\.title) == ["A", "B", "C"])
        #expect(model.selectedRow == 2)
        model.changed(session: session, RevisionedChange(revision: 6, change: .added(item(4, "D", revision: 6, isRead: true))))
        model.changed(session: session, RevisionedChange(revision: 7, change: .added(item(5, "E", revision: 7))))
        #expect(model.visible.map(\.title) == ["A", "B", "C", "E"])
        #expect(model.readCount == 1)
    }

    @Test("more search text checks only the rows shown, and finds what a search from scratch finds")
    func narrowingSearch() {
        var (model, _) = Self.showing([
            item(1, "Dune", revision: 1), item(2, "Dunes", revision: 2), item(3, "Dusk", revision: 3),
        ], revision: 3)
        _ = model.press(.character("/"))
        for character in "du" { _ = model.press(.character(character)) }
        #expect(model.visible.count == 3)
        for character in "nes" { _ = model.press(.character(character)) }
        #expect(model.visible.map(\.title) == ["Dunes"])
        _ = model.press(.backspace)
        _ = model.press(.backspace)
        #expect(model.visible.map(\.title) == ["Dune", "Dunes"])
    }

    @Test("a new connection resumes within the same run and lists again in another")
    func resumeOrRelist() {
        var (model, session) = Self.showing([item(1, "A", revision: 4)], revision: 4)
        model.disconnected(session: session, reason: "gone")
        #expect(model.connection == .reconnecting("gone"))
        #expect(!model.isWritable)
        let same = model.connecting()
        let resumed = model.connected(session: same, identity: "a")
        #expect(resumed == .resume(since: 4))
        let other = model.connecting()
        let relisted = model.connected(session: other, identity: "b")
        #expect(relisted == .list)
    }

    @Test("while reconnecting the view is read-only: a toggle is refused with a message, moving still works")
    func readOnlyWhileReconnecting() {
        var (model, session) = Self.showing([item(1, "A", revision: 1), item(2, "B", revision: 2)], revision: 2)
        model.disconnected(session: session, reason: "gone")
        let effect = model.press(.character("x"))
        #expect(effect == .none)
        #expect(model.message?.text.hasPrefix("reconnecting…") == true)
        _ = model.press(.character("j"))
        #expect(model.selection == CountingIDs.id(2))
    }

    @Test("/ filters as it is typed with the server's search; r cycles all, unread, read; t filters by tag")
    func filters() {
        var (model, _) = Self.showing([
            item(1, "Dune", revision: 1, tags: ["sf"]), item(2, "Émile", revision: 2, isRead: true),
            item(3, "Dunes of Mars", revision: 3),
        ], revision: 3)
        _ = model.press(.character("/"))
        for character in "dune" { _ = model.press(.character(character)) }
        #expect(model.visible.map(\.title) == ["Dune", "Dunes of Mars"])
        _ = model.press(.enter)
        _ = model.press(.character("t"))
        for character in "SF" { _ = model.press(.character(character)) }
        _ = model.press(.enter)
        #expect(model.visible.map(\.title) == ["Dune"])
        _ = model.press(.escape)
        #expect(model.visible.count == 3)
        _ = model.press(.character("/"))
        for character in "emile" { _ = model.press(.character(character)) }
        #expect(model.visible.map(\.title) == ["Émile"])
        _ = model.press(.escape)
        _ = model.press(.character("r"))
        #expect(model.visible.map(\.title) == ["Dune", "Dunes of Mars"])
        _ = model.press(.character("r"))
        #expect(model.visible.map(\.title) == ["Émile"])
        _ = model.press(.character("r"))
        #expect(model.visible.count == 3)
    }

    @Test("Backspace back from a grown search shows the shorter search's rows, and still right after a change came in")
    func backspaceAfterNarrowing() {
        var (model, session) = Self.showing([
            item(1, "Dune", revision: 1), item(2, "Dunes of Mars", revision: 2), item(3, "Solaris", revision: 3),
        ], revision: 3)
        _ = model.press(.character("/"))
        for character in "dunes" { _ = model.press(.character(character)) }
        #expect(model.visible.map(\.title) == ["Dunes of Mars"])
        _ = model.press(.backspace)
        #expect(model.visible.map(\.title) == ["Dune", "Dunes of Mars"])
        _ = model.press(.character("s"))
        model.changed(session: session, RevisionedChange(revision: 4, change: .added(item(4, "Dune Messiah", revision: 4))))
        #expect(model.visible.map(\.title) == ["Dunes of Mars"])
        _ = model.press(.backspace)
        #expect(model.visible.map(\.title) == ["Dune", "Dunes of Mars", "Dune Messiah"])
        _ = model.press(.control("u"))
        #expect(model.visible.count == 4)
    }

    @Test("many removals compact the table: rows, selection and search stay right")
    func compaction() {
        let items = (1...3000).map { item($0, "Book \($0)", revision: Revision($0)) }
        var (model, session) = Self.showing(items, revision: 3000)
        _ = model.press(.end)
        for n in 1...2500 {
            model.changed(session: session, RevisionedChange(revision: Revision(3000 + n), change: .removed(CountingIDs.id(n))))
        }
        #expect(model.visible.count == 500)
        #expect(model.visible.first?.title == "Book 2501")
        #expect(model.selectedItem?.title == "Book 3000")
        #expect(model.readCount == 0)
        model.changed(session: session, RevisionedChange(revision: 5501, change: .updated(item(2990, "Book 2990", revision: 5501, isRead: true))))
        #expect(model.readCount == 1)
        _ = model.press(.character("/"))
        for character in "book 299" { _ = model.press(.character(character)) }
        #expect(model.visible.map(\.title) == (2990...2999).map { "Book \($0)" })
        #expect(model.selectedItem?.title == "Book 2999")
    }

    @Test("Enter on the add line asks for one add; a refusal keeps the line and its text, and says why")
    func refusedAddKeepsInput() throws {
        var (model, _) = Self.showing([], revision: 0)
        _ = model.press(.character("a"))
        for character in "Dune" { _ = model.press(.character(character)) }
        let effect = model.press(.enter)
        guard case .save(let request) = effect else { Issue.record("no save: \(effect)"); return }
        #expect(request.mutation == .add(title: "Dune"))

        model.saved(token: request.token, .failure(.refused("Could not save that change")))

        guard case .input(let line) = model.mode else { Issue.record("line closed: \(model.mode)"); return }
        #expect(line.text == "Dune")
        #expect(line.saving == nil)
        #expect(model.message == .init("not saved: Could not save that change (your text is kept)", isError: true))
        #expect(model.visible.isEmpty)
    }

    @Test("an edit sends only the fields changed; its own change coming back is not taken for someone else's")
    func editSendsChangedFields() {
        var (model, session) = Self.showing([item(1, "Dune", revision: 1, tags: ["sf"])], revision: 1)
        _ = model.press(.character("e"))
        _ = model.press(.tab)
        for character in "Herbert" { _ = model.press(.character(character)) }
        guard case .save(let request) = model.press(.enter) else { Issue.record("no save"); return }
        #expect(request.mutation == .update(id: CountingIDs.id(1), ItemEdit(author: .set("Herbert"))))
        #expect(request.expectItem == 1)

        var edited = item(1, "Dune", revision: 2, tags: ["sf"])
        edited.author = "Herbert"
        model.changed(session: session, RevisionedChange(revision: 2, change: .updated(edited)))
        #expect(model.message == .init("saving…"))
        model.saved(token: request.token, .success(SaveResult(revision: 2, itemID: edited.id)))
        #expect(model.mode == .browsing)
        #expect(model.message == .init("saved (revision 2)"))
        #expect(model.visible.first?.author == "Herbert")
    }

    @Test("d asks first; only y removes, conditional on the item's revision")
    func removeAsks() {
        var (model, _) = Self.showing([item(1, "A", revision: 3)], revision: 3)
        let asked = model.press(.character("d"))
        let kept = model.press(.character("n"))
        #expect(asked == .none && kept == .none)
        #expect(model.mode == .browsing)
        _ = model.press(.character("d"))
        guard case .save(let request) = model.press(.character("y")) else { Issue.record("no save"); return }
        #expect(request.mutation == .remove(id: CountingIDs.id(1)))
        #expect(request.expectItem == 3)
    }

    @Test("PgDn, End and Home move by pages and to the ends, keeping the selection on screen")
    func paging() {
        var (model, _) = Self.showing((1...50).map { item($0, "T\($0)", revision: Revision($0)) }, revision: 50)
        model.resize(listRows: 10)
        _ = model.press(.pageDown)
        #expect(model.selectedRow == 10)
        #expect(model.top == 1)
        _ = model.press(.end)
        #expect(model.selectedRow == 49)
        #expect(model.top == 40)
        _ = model.press(.home)
        #expect(model.selectedRow == 0)
        #expect(model.top == 0)
    }
}
