import Foundation
import ShelfCore
import ShelfLiveView
import Testing

/// `LiveViewDriver` with `ListViewModel` over an in-process `ReadingList` (a memory store that fails on demand):
/// saves, refusals, conflicts and reconnection, without sockets or a terminal.
@Suite struct LiveViewDriverTests {
    @Test("an add typed and saved appears through the watch and the line closes")
    func addAppears() async throws {
        let rig = try await Rig.make(initial: ["Dune"])
        defer { rig.stop() }
        try await rig.until("listed") { $0.revision == 1 && $0.isWritable }
        await rig.driver.press(.character("a"))
        await rig.type("Solaris")
        await rig.driver.press(.enter)
        let state = try await rig.until("added") { $0.mode == .browsing && $0.visible.count == 2 }
        #expect(state.visible.map(\.title) == ["Dune", "Solaris"])
        #expect(state.selection == CountingIDs.id(2))
    }

    @Test("a failed save keeps the list as it was, shows the message and keeps the typed text; a retry works")
    func storageFailureKeepsInput() async throws {
        let rig = try await Rig.make(initial: ["Dune"])
        defer { rig.stop() }
        try await rig.until("listed") { $0.isWritable }
        rig.store.failWrites = true
        await rig.driver.press(.character("a"))
        await rig.type("Solaris")
        await rig.driver.press(.enter)
        let failed = try await rig.until("refused") { $0.message?.isError == true }
        #expect(failed.message?.text == "not saved: Could not save that change (your text is kept)")
        guard case .input(let line) = failed.mode else { Issue.record("line closed"); return }
        #expect(line.text == "Solaris")
        #expect(failed.visible.map(\.title) == ["Dune"])
        #expect(failed.revision == 1)

        rig.store.failWrites = false
        await rig.driver.press(.enter)
        try await rig.until("saved on retry") { $0.mode == .browsing && $0.visible.count == 2 }
    }

    @Test("an invalid title is refused with the server's reason and the text stays")
    func invalidTitleKeepsInput() async throws {
        let rig = try await Rig.make()
        defer { rig.stop() }
        try await rig.until("listed") { $0.isWritable }
        await rig.driver.press(.character("a"))
        await rig.type("   ")
        await rig.driver.press(.enter)
        let failed = try await rig.until("refused") { $0.message?.isError == true }
        #expect(failed.message?.text == "not saved: Enter a title (your text is kept)")
        guard case .input(let line) = failed.mode else { Issue.record("line closed"); return }
        #expect(line.text == "   ")
    }

    @Test("an edit of an item someone else changed meanwhile is a conflict: their version shows, the text stays")
    func editConflict() async throws {
        let rig = try await Rig.make(initial: ["Dune"])
        defer { rig.stop() }
        try await rig.until("listed") { $0.isWritable }
        await rig.driver.press(.character("e"))
        await rig.driver.press(.control("u"))
        await rig.type("Dune Messiah")
        _ = try await rig.list.apply(.update(id: CountingIDs.id(1), ItemEdit(title: "Dune (1965)", author: .set("Herbert"))))
        try await rig.until("their change shown") { $0.visible.first?.title == "Dune (1965)" }
        await rig.driver.press(.enter)
        let conflict = try await rig.until("conflict") { $0.message?.text.hasPrefix("someone else changed this item: now") == true }
        #expect(conflict.message?.text.contains("\u{201C}Dune (1965)\u{201D} by Herbert") == true)
        guard case .input(let line) = conflict.mode else { Issue.record("line closed"); return }
        #expect(line.text == "Dune Messiah")
        #expect(line.purpose == .edit(id: CountingIDs.id(1), expectItem: 2))
        #expect(conflict.visible.first?.title == "Dune (1965)")

        await rig.driver.press(.enter)
        let saved = try await rig.until("saved over theirs") { $0.visible.first?.title == "Dune Messiah" }
        #expect(saved.visible.first?.author == "Herbert")
    }

    @Test("another writer's change appears unprompted, with the selection kept on its item")
    func othersChangesAppear() async throws {
        let rig = try await Rig.make(initial: ["A", "B"])
        defer { rig.stop() }
        try await rig.until("listed") { $0.isWritable }
        await rig.driver.press(.down)
        _ = try await rig.list.apply(.remove(id: CountingIDs.id(1)))
        _ = try await rig.list.apply(.add(title: "C"))
        let state = try await rig.until("changes shown") { $0.revision == 4 }
        #expect(state.visible.map(\.title) == ["B", "C"])
        #expect(state.selection == CountingIDs.id(2))
    }

    @Test("when the list goes away the view is read-only and reconnecting; it resumes from its revision when back")
    func reconnects() async throws {
        let rig = try await Rig.make(initial: ["A"])
        defer { rig.stop() }
        try await rig.until("listed") { $0.isWritable }
        await rig.repository.goAway()
        let away = try await rig.until("reconnecting") { if case .reconnecting = $0.connection { true } else { false } }
        #expect(away.visible.map(\.title) == ["A"])
        await rig.driver.press(.character("x"))
        #expect(await rig.driver.state.message?.text.hasPrefix("reconnecting…") == true)
        _ = try await rig.list.apply(.add(title: "B"))
        rig.repository.comeBack(identity: "in-process")
        let back = try await rig.until("resumed") { $0.isWritable && $0.revision == 2 }
        #expect(back.visible.map(\.title) == ["A", "B"])
    }
}
