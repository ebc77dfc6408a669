import Foundation
import ShelfCore

/// The live view's state and every decision it makes, with no I/O: which items are shown and which is selected
/// (by id, never by row), what a key does, which async result is taken and which is stale, what a failed save
/// leaves. `LiveViewDriver` makes the calls a decision asks for (`ViewEffect`) and hands their results back; the
/// screen only renders this state (`FrameRenderer`).
///
/// The list changes only through a list reply or a watched change, never through a save's reply: the server
/// sends a watcher its own change before the reply (protocol/PROTOCOL.md §6), so a save that fails, or whose reply
/// is late, cannot leave the screen showing something the list has not accepted.
public struct ListViewModel: Sendable {
    /// Every item, in the list's order, as of `revision`.
    public private(set) var items = ItemCollection()
    /// The revision `items` is at; `nil` before the first list.
    public private(set) var revision: Revision?
    /// The server run `revision` belongs to (`ListRepository.connect()`).
    public private(set) var identity: String?
    /// The items the filters let through, in the list's order: the rows.
    public var visible: ListRows { ListRows(slots: rowSlots, table: table) }
    /// `items` as the filters read them.
    private var table = ItemTable([])
    /// The rows: slots of `table`, ascending.
    private var rowSlots: [Int] = []
    /// The rows before each step that grew the search, with the search they were for, latest last: Backspace back
    /// to one of them takes its rows instead of searching the list again. Emptied whenever the list or the other
    /// filters change, which would make them stale.
    private var narrowings: [(search: String, rows: [Int])] = []
    /// The most steps `narrowings` keeps (each holds up to one number per item).
    static let maxNarrowings = 32
    /// The selected item's id.
    public private(set) var selection: UUID?
    /// The first row shown, kept so the selection stays on screen.
    public private(set) var top = 0
    /// Rows the list area has (set by the screen on resize); paging moves by this much.
    public private(set) var pageSize = 20
    /// `/`'s text: the same search as `shelf list QUERY` (`ItemQuery.matches`); empty for none.
    public private(set) var search = ""
    /// `r` cycles it.
    public private(set) var readFilter = ListFilter.all
    /// `t`'s tag; `nil` for none.
    public private(set) var tagFilter: String?
    /// What the keys do now: browsing, typing in the input line, confirming a removal, the keys shown.
    public private(set) var mode = Mode.browsing
    /// The last thing said, if any.
    public private(set) var message: Message?
    /// The connection, as the status line shows it.
    public private(set) var connection = ConnectionStatus.connecting
    /// Bumped by a new connection, a list started, and every change taken: a list reply from an older generation
    /// is dropped (shared/design.md, invariant 4).
    public private(set) var generation: UInt64 = 0
    /// Bumped by every new connection: events of an older connection's watch are dropped.
    public private(set) var session: UInt64 = 0
    /// Saves made from the list (toggle, remove) and not yet answered, by token.
    private var pendingSaves: [UInt64: Mutation] = [:]
    private var nextToken: UInt64 = 1
    /// The selection's row, for when its item leaves the rows: the selection moves to the row now there.
    private var selectionRow = 0
    /// An item this view added, to select once the watch brings it (its reply may come first).
    private var pendingSelection: UUID?

    /// What the keys do now.
    public enum Mode: Sendable, Equatable {
        case browsing
        /// Typing in the input line.
        case input(InputLine)
        /// `d` asks before removing this item.
        case confirmRemove(UUID)
        /// `?`: the keys.
        case help
    }

    /// A line of the status area.
    public struct Message: Sendable, Equatable {
        /// What is said.
        public var text: String
        /// A refusal or failure, shown as one.
        public var isError: Bool

        /// A message saying `text`.
        public init(_ text: String, isError: Bool = false) {
            self.text = text
            self.isError = isError
        }
    }

    /// The connection, as the status line shows it.
    public enum ConnectionStatus: Sendable, Equatable {
        case connecting
        case connected
        /// Gone, for this reason; the view is read-only until it is back.
        case reconnecting(String)
    }

    /// How a new connection starts (`connected(session:identity:)`).
    public enum Start: Sendable, Equatable {
        /// List, then watch from the list's revision.
        case list
        /// The same server run: watch from the revision shown.
        case resume(since: Revision)
    }

    /// An empty view, connecting.
    public init() {}

    /// Whether changes can be sent now.
    public var isWritable: Bool { connection == .connected && revision != nil }

    /// The selected item, if it is shown.
    public var selectedItem: Item? {
        selectedRow.map { table.items[rowSlots[$0]] }
    }

    /// The selection's row in `visible` (kept with the selection, so a keypress never searches the rows).
    public var selectedRow: Int? {
        selection == nil || selectionRow >= rowSlots.count ? nil : selectionRow
    }

    /// How many of `items` are read (counted when listed, then kept with each change).
    public private(set) var readCount = 0

    /// The query the rows pass.
    public var query: ItemQuery {
        ItemQuery(filter: readFilter, text: search.isEmpty ? nil : search, tags: tagFilter.map { [$0] } ?? [])
    }

    // MARK: Connection and list

    /// A new connection is being opened.
    /// - Returns: its session number, for `connected` and the watch's events.
    public mutating func connecting() -> UInt64 {
        session += 1
        generation += 1
        if case .reconnecting = connection { return session }
        if revision != nil { connection = .reconnecting("reconnecting") } else { connection = .connecting }
        return session
    }

    /// The connection of `session` is open, to the server run `identity`: how to start.
    /// - Returns: `nil` for a stale session.
    public mutating func connected(session: UInt64, identity: String?) -> Start? {
        guard session == self.session else { return nil }
        connection = .connected
        if let revision, identity == self.identity { return .resume(since: revision) }
        return .list
    }

    /// A list is asked for.
    /// - Returns: the generation its reply must carry.
    public mutating func beginList() -> UInt64 {
        generation += 1
        return generation
    }

    /// A list reply, started in `generation`: taken only if nothing newer came since (a change, a reconnect,
    /// another list).
    /// - Returns: whether it was taken.
    @discardableResult
    public mutating func listed(generation: UInt64, revision: Revision, items: [Item], identity: String?) -> Bool {
        guard generation == self.generation else { return false }
        var collection = ItemCollection()
        for item in items { collection.append(item) }
        self.items = collection
        self.revision = revision
        self.identity = identity
        rebuildTable()
        return true
    }

    /// A watched change from the connection `session`. One at or below `revision` was taken already (a resumed
    /// watch may send it again) and is skipped.
    /// - Returns: whether it was taken.
    @discardableResult
    public mutating func changed(session: UInt64, _ change: RevisionedChange) -> Bool {
        guard session == self.session, let revision, change.revision > revision else { return false }
        generation += 1
        let before = items[change.change.itemID]
        switch change.change {
        case .added(let item): if !items.append(item) { items.replace(item) }
        case .updated(let item): if !items.replace(item) { items.append(item) }
        case .removed(let id): items.remove(id: id)
        }
        self.revision = change.revision
        updateRows(before: before, after: items[change.change.itemID])
        if table.needsCompaction { rebuildTable() }
        if let pending = pendingSelection, change.change.itemID == pending {
            pendingSelection = nil
            select(pending)
        }
        refreshEditConflict(change)
        return true
    }

    /// The connection of `session` ended, for `reason`: read-only until the next one is open.
    public mutating func disconnected(session: UInt64, reason: String) {
        guard session == self.session else { return }
        connection = .reconnecting(reason)
    }

    /// The screen has `rows` rows for the list.
    public mutating func resize(listRows rows: Int) {
        pageSize = max(1, rows)
        keepSelectionOnScreen()
    }

    // MARK: Saves

    /// A save's answer (`ViewEffect.save`), matched by its token. It never changes the list (the watch does): a
    /// success closes the input line it came from; a failure keeps the line and its text and says why.
    public mutating func saved(token: UInt64, _ result: Result<SaveResult, RepositoryError>) {
        if let mutation = pendingSaves.removeValue(forKey: token) {
            if case .failure(let error) = result { message = Message(failureText(error, for: mutation), isError: true) }
            return
        }
        guard case .input(var line) = mode, line.saving == token else {
            // The line was cancelled while saving: say only what went wrong.
            if case .failure(let error) = result { message = Message(error.message, isError: true) }
            return
        }
        line.saving = nil
        switch result {
        case .success(let saved):
            mode = .browsing
            if case .add = line.purpose, let id = saved.itemID {
                if row(of: id) != nil { select(id) } else { pendingSelection = id }
            }
            message = Message("\(line.purpose == .add ? "added" : "saved") (revision \(saved.revision))")
        case .failure(.conflict(_, let itemRevision)):
            guard case .edit(let id, _) = line.purpose, let current = items[id] else {
                message = Message("nothing was saved: the item changed meanwhile", isError: true)
                mode = .input(line)
                return
            }
            // Their version is on screen (the watch brought it first); the user's text stays, and Enter now
            // saves it over theirs, knowingly.
            line.purpose = .edit(id: id, expectItem: itemRevision ?? current.revision)
            mode = .input(line)
            message = Message("someone else changed this item: now \(Self.describe(current)); your text is kept — Enter saves it over theirs, Esc keeps theirs", isError: true)
        case .failure(let error):
            mode = .input(line)
            message = Message("not saved: \(error.message) (your text is kept)", isError: true)
        }
    }

    /// A short description of `item` for messages: its title, author and tags.
    static func describe(_ item: Item) -> String {
        var text = "\u{201C}\(item.title)\u{201D}"
        if let author = item.author { text += " by \(author)" }
        if !item.tags.isEmpty { text += " [\(item.tags.joined(separator: ", "))]" }
        return text
    }

    private func failureText(_ error: RepositoryError, for mutation: Mutation) -> String {
        let what = switch mutation {
        case .remove: "not removed"
        default: "not changed"
        }
        return "\(what): \(error.message)"
    }

    /// An edit under way whose item another change touched: the message says so before the user saves (not
    /// while the edit's own save is out: its change comes back before its reply).
    private mutating func refreshEditConflict(_ change: RevisionedChange) {
        guard case .input(let line) = mode, line.saving == nil, case .edit(let id, _) = line.purpose,
              change.change.itemID == id
        else { return }
        if case .removed = change.change {
            message = Message("someone else removed this item; Esc to close", isError: true)
        } else if let current = items[id] {
            message = Message("someone else changed this item meanwhile: now \(Self.describe(current))", isError: true)
        }
    }

    /// Starts a save of `mutation` from the list.
    mutating func saveFromList(_ mutation: Mutation, expectItem: Revision?) -> ViewEffect {
        guard isWritable else { return refuseReadOnly() }
        let token = takeToken()
        pendingSaves[token] = mutation
        return .save(SaveRequest(token: token, generation: generation, mutation: mutation, expectItem: expectItem))
    }

    mutating func takeToken() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }

    mutating func refuseReadOnly() -> ViewEffect {
        message = Message("reconnecting… the list is read-only until the server is back", isError: true)
        return .none
    }

    // MARK: Rows and selection

    /// Builds the table afresh from `items` (dropping removed slots and stale keys), counts the read items, and
    /// recomputes the rows.
    private mutating func rebuildTable() {
        table = ItemTable(items)
        readCount = items.reduce(0) { $0 + ($1.isRead ? 1 : 0) }
        refilter()
    }

    /// Recomputes the rows from the table and the filters, keeping the selection on its item, or on the row it was
    /// at when its item left the rows.
    /// - Parameter narrowing: the new filters let through only rows already shown (more search text typed), so
    ///   only those are checked.
    mutating func refilter(narrowing: Bool = false) {
        if !narrowing { narrowings.removeAll() }
        rowSlots = table.rows(passing: query, among: narrowing ? rowSlots : nil)
        reselect()
    }

    /// The row of the item `id`, if it is a row.
    private func row(of id: UUID) -> Int? {
        table.slot(of: id).flatMap { ListRows.row(ofSlot: $0, in: rowSlots) }
    }

    /// Keeps the selection on its item if it is still a row, else moves it to the row it was at.
    private mutating func reselect() {
        if let selection, selectionRow < rowSlots.count, table.items[rowSlots[selectionRow]].id == selection {
            // Still where it was.
        } else if let selection, let row = row(of: selection) {
            selectionRow = row
        } else if rowSlots.isEmpty {
            selection = nil
            selectionRow = 0
        } else {
            selectionRow = min(selectionRow, rowSlots.count - 1)
            selection = table.items[rowSlots[selectionRow]].id
        }
        keepSelectionOnScreen()
    }

    /// The rows after one item changed from `before` to `after` (`nil`: absent), without running the query over
    /// every item: a change touches one row, found by binary search, and a list of 100,000 must not be filtered
    /// again on each.
    private mutating func updateRows(before: Item?, after: Item?) {
        readCount += (after?.isRead == true ? 1 : 0) - (before?.isRead == true ? 1 : 0)
        narrowings.removeAll()
        let slot: Int
        if let after {
            slot = table.upsert(after)
        } else if let id = before?.id, let removed = table.remove(id) {
            slot = removed
        } else {
            return
        }
        let row = ListRows.insertionPoint(ofSlot: slot, in: rowSlots)
        let wasShown = row < rowSlots.count && rowSlots[row] == slot
        let isShown = table.matches(slot, ItemTable.Filter(query))
        switch (wasShown, isShown) {
        case (true, false): rowSlots.remove(at: row)
        case (false, true): rowSlots.insert(slot, at: row)
        default: break
        }
        reselect()
    }

    mutating func select(_ id: UUID) {
        guard let row = row(of: id) else { return }
        selection = id
        selectionRow = row
        keepSelectionOnScreen()
    }

    /// Moves the selection by `delta` rows, clamped.
    mutating func move(by delta: Int) {
        guard !rowSlots.isEmpty else { return }
        let current = selectedRow ?? 0
        let row = max(0, min(rowSlots.count - 1, current + delta))
        selection = table.items[rowSlots[row]].id
        selectionRow = row
        keepSelectionOnScreen()
    }

    private mutating func keepSelectionOnScreen() {
        let row = selectedRow ?? 0
        if row < top { top = row }
        if row >= top + pageSize { top = row - pageSize + 1 }
        top = max(0, min(top, max(0, rowSlots.count - pageSize)))
    }

    mutating func setSearch(_ text: String) {
        guard text != search else { return }
        if text.hasPrefix(search) {
            // Text that only grows the search can only drop rows (the text must occur in a field), and the other
            // filters are as they were.
            narrowings.append((search, rowSlots))
            if narrowings.count > Self.maxNarrowings { narrowings.removeFirst() }
            search = text
            refilter(narrowing: true)
        } else if let index = narrowings.lastIndex(where: { $0.search == text }) {
            // Back to a search this one grew from (Backspace): its rows are still right.
            rowSlots = narrowings[index].rows
            narrowings.removeSubrange(index...)
            search = text
            reselect()
        } else {
            search = text
            refilter()
        }
    }

    mutating func setTag(_ tag: String?) {
        tagFilter = tag
        refilter()
    }

    /// No search and no tag filter, in one pass over the list.
    mutating func clearFilters() {
        search = ""
        tagFilter = nil
        refilter()
    }

    mutating func cycleReadFilter() {
        readFilter = switch readFilter {
        case .all: .unread
        case .unread: .read
        case .read: .all
        }
        refilter()
    }

    mutating func setMode(_ mode: Mode) {
        self.mode = mode
    }

    mutating func say(_ text: String, isError: Bool = false) {
        message = Message(text, isError: isError)
    }

    mutating func clearMessage() {
        message = nil
    }
}

/// Something a decision asks the driver to do.
public enum ViewEffect: Sendable, Equatable {
    /// Nothing.
    case none
    /// Send a change; its answer goes to `ListViewModel.saved(token:_:)`.
    case save(SaveRequest)
    /// End the view.
    case quit
}

/// A change to send, with what its answer is matched by.
public struct SaveRequest: Sendable, Equatable {
    /// Matches the answer to the save (`ListViewModel.saved(token:_:)`).
    public let token: UInt64
    /// The generation the save was decided in.
    public let generation: UInt64
    /// The change.
    public let mutation: Mutation
    /// The item's revision the change is conditional on; `nil` for none.
    public let expectItem: Revision?
}
