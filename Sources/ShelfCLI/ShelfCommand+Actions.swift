import ShelfCommandLine
import ShelfCore

/// The commands' own operands and options: which command takes which, and the `Action` they make.
extension ShelfCommand {
    /// The options that shape an item or a list (`add`, `edit`, `list`), as given; which command may take which is
    /// checked once the command is known.
    struct ItemOptions {
        /// Every such option given, in order, by name (`tag` once per `--tag`).
        var given: [String] = []
        /// The flags among them: `read`, `unread`, `no-author`, `no-url`, `no-note`, `dry-run`.
        var flags: [String] = []
        var values: [String: String] = [:]
        var tags: [String] = []
        var untags: [String] = []
        var sort: ItemQuery.Sort?
        var limit: Int?

        mutating func take(_ name: String, _ value: String) throws(UsageError) {
            given.append(name)
            switch name {
            case "tag": tags.append(value)
            case "untag": untags.append(value)
            case "sort":
                guard let sort = ItemQuery.Sort(wire: value) else {
                    let keys = ItemQuery.Sort.Key.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError("--sort takes one of \(keys), with a leading - for descending, not \"\(value)\"")
                }
                self.sort = sort
            case "limit":
                guard value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let limit = Int(value),
                      (1...ItemQuery.maxLimit).contains(limit)
                else { throw UsageError("--limit takes a whole number from 1 to \(ItemQuery.maxLimit), not \"\(value)\"") }
                self.limit = limit
            default:
                if values[name] != nil { throw UsageError("--\(name) given twice") }
                values[name] = value
            }
        }

        /// `--NAME TEXT` or `--no-NAME`, for `edit`.
        func field(_ name: String) throws(UsageError) -> ItemEdit.Field {
            let cleared = flags.contains("no-\(name)")
            if cleared, values[name] != nil { throw UsageError("use one of --\(name) and --no-\(name)") }
            if cleared { return .clear }
            return values[name].map(ItemEdit.Field.set) ?? .keep
        }
    }

    /// Which command takes which item option.
    private static let optionsTaken: [String: Set<String>] = [
        "add": ["author", "url", "tag", "note"],
        "edit": ["title", "author", "no-author", "url", "no-url", "note", "no-note", "tag", "untag"],
        "list": ["read", "unread", "tag", "sort", "limit"],
        "export": ["read", "unread", "tag", "sort", "format"],
        "import": ["format", "dry-run"],
    ]

    /// A revision given to `option`: digits only, as `shelf info` prints it.
    static func revision(_ text: String, option: String) throws(UsageError) -> Revision {
        // Digits only: `+3`, ` 3` and `3.0` are not revisions (Revision(text) would take `+3`).
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let revision = Revision(text) else {
            throw UsageError("--\(option) takes a revision (a whole number, as `shelf \(option == "expect" ? "info" : "show")` shows), not \"\(text)\"")
        }
        return revision
    }

    static func action(_ name: String, _ operands: [String], options: ItemOptions) throws(UsageError) -> Action {
        let canonical = ["ls": "list"][name] ?? name
        let taken = optionsTaken[canonical] ?? []
        if let option = options.given.first(where: { !taken.contains($0) }) {
            if option == "read" || option == "unread" { throw UsageError("--\(option) goes with the list and export commands only") }
            let takers = optionsTaken.keys.sorted().filter { optionsTaken[$0]?.contains(option) == true }
            throw UsageError("--\(option) goes with \(takers.joined(separator: " and ")) only")
        }
        switch name {
        case "add":
            guard !operands.isEmpty else { throw UsageError("add needs a TITLE") }
            let details = ItemDetails(
                author: options.values["author"], url: options.values["url"], tags: options.tags, note: options.values["note"])
            return .add(title: operands.joined(separator: " "), details: details)
        case "list", "ls":
            if operands.count > 1 { throw UsageError("\(name) takes at most one QUERY (quote a query of several words)") }
            if options.flags.filter({ $0 == "read" || $0 == "unread" }).count > 1 { throw UsageError("use one of --read and --unread") }
            let filter = options.flags.lazy.compactMap(ListFilter.init(rawValue:)).first ?? .all
            return .list(ItemQuery(filter: filter, text: operands.first, tags: options.tags, sort: options.sort ?? .added, limit: options.limit))
        case "export", "import":
            return try transferAction(name, operands, options: options)
        case "read", "unread":
            return .setRead(ids: try ids(operands, name), isRead: name == "read")
        case "toggle":
            return .toggle(ids: try ids(operands, name))
        case "rename":
            guard operands.count >= 2 else { throw UsageError("rename needs an ID and a TITLE") }
            return .rename(id: operands[0], title: operands.dropFirst().joined(separator: " "))
        case "edit":
            try expect(operands, count: 1, name)
            let edit = ItemEdit(
                title: options.values["title"], author: try options.field("author"), url: try options.field("url"),
                note: try options.field("note"), tags: .adjust(add: options.tags, remove: options.untags))
            if edit.isEmpty {
                throw UsageError("edit needs something to change: --title, --author, --url, --note (or --no-author, --no-url, --no-note), --tag, --untag")
            }
            return .edit(id: operands[0], edit)
        case "tag", "untag":
            guard operands.count >= 2 else { throw UsageError("\(name) needs an ID and a TAG") }
            let tags = Array(operands.dropFirst())
            return .edit(id: operands[0], ItemEdit(tags: .adjust(add: name == "tag" ? tags : [], remove: name == "untag" ? tags : [])))
        case "note":
            guard let id = operands.first else { throw UsageError("note needs an ID") }
            guard operands.count > 1 else { return .editNote(id: id) }
            return .edit(id: id, ItemEdit(note: .set(operands.dropFirst().joined(separator: " "))))
        case "rm", "remove":
            return .remove(ids: try ids(operands, name))
        case "show", "get":
            try expect(operands, count: 1, name)
            return .show(id: operands[0])
        case "info":
            try expect(operands, count: 0, name)
            return .info
        case "ping":
            try expect(operands, count: 0, name)
            return .ping
        case "watch":
            try expect(operands, count: 0, name)
            return .watch
        case "ui":
            try expect(operands, count: 0, name)
            return .ui
        case "help":
            if operands.count > 1 { throw UsageError("help takes at most one COMMAND") }
            return .help(topic: operands.first)
        case "version":
            try expect(operands, count: 0, name)
            return .version
        default:
            throw UsageError("unknown command \"\(name)\"")
        }
    }

    private static func ids(_ operands: [String], _ name: String) throws(UsageError) -> [String] {
        guard !operands.isEmpty else { throw UsageError("\(name) needs at least one ID") }
        return operands
    }

    private static func expect(_ operands: [String], count: Int, _ name: String) throws(UsageError) {
        guard operands.count == count else {
            throw UsageError(count == 0 ? "\(name) takes no arguments" : "\(name) needs exactly one ID")
        }
    }
}
