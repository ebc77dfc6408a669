import Foundation
import ShelfCore

extension ListViewModel {
    /// What `key` does in the current mode (README, "The live view", lists the keys).
    /// - Returns: what the driver must do: a save to send, or quit.
    public mutating func press(_ key: Key) -> ViewEffect {
        switch mode {
        case .help:
            setMode(.browsing)
            return .none
        case .confirmRemove(let id):
            setMode(.browsing)
            guard key == .character("y") || key == .character("d"), let item = items[id] else {
                say("not removed")
                return .none
            }
            clearMessage()
            return saveFromList(.remove(id: id), expectItem: item.revision)
        case .input(var line):
            return pressInInput(key, line: &line)
        case .browsing:
            return pressBrowsing(key)
        }
    }

    private mutating func pressBrowsing(_ key: Key) -> ViewEffect {
        switch key {
        case .up, .character("k"): move(by: -1)
        case .down, .character("j"): move(by: 1)
        case .pageUp: move(by: -pageSize)
        case .pageDown: move(by: pageSize)
        case .home, .character("g"): move(by: -visible.count)
        case .end, .character("G"): move(by: visible.count)
        case .character("q"), .control("c"): return .quit
        case .character("?"): setMode(.help)
        case .character("r"):
            cycleReadFilter()
            say("showing \(readFilter == .all ? "all items" : "\(readFilter.rawValue) items")")
        case .character("/"):
            setMode(.input(InputLine(.search, fields: [.init("/", search)])))
        case .character("t"):
            setMode(.input(InputLine(.tag, fields: [.init("tag", tagFilter ?? "")])))
        case .escape:
            // Esc in the list clears the filters, one press for all.
            if !search.isEmpty || tagFilter != nil {
                clearFilters()
                say("filters cleared")
            }
        case .character(" "), .character("x"):
            guard let item = selectedItem else { return .none }
            clearMessage()
            return saveFromList(.setRead(id: item.id, isRead: !item.isRead), expectItem: nil)
        case .character("a"):
            guard isWritable else { return refuseReadOnly() }
            clearMessage()
            setMode(.input(InputLine(.add, fields: [.init("title")])))
        case .character("e"):
            guard let item = selectedItem else { return .none }
            guard isWritable else { return refuseReadOnly() }
            clearMessage()
            setMode(.input(InputLine(.edit(id: item.id, expectItem: item.revision), fields: [
                .init("title", item.title), .init("author", item.author ?? ""),
                .init("tags", item.tags.joined(separator: " ")), .init("note", item.note ?? "", allowsLineBreaks: true),
            ])))
        case .character("d"), .delete:
            guard let item = selectedItem else { return .none }
            guard isWritable else { return refuseReadOnly() }
            setMode(.confirmRemove(item.id))
            say("remove \(Self.describe(item))? y removes, any other key keeps it")
        default:
            break
        }
        return .none
    }

    private mutating func pressInInput(_ key: Key, line: inout InputLine) -> ViewEffect {
        if line.saving != nil {
            // A save is in flight: the text stays as sent until its answer; Esc closes the line.
            if key == .escape { setMode(.browsing) }
            return .none
        }
        switch key {
        case .escape:
            if line.purpose == .search { setSearch("") }
            setMode(.browsing)
            clearMessage()
            return .none
        case .enter:
            return submit(&line)
        case .control("j") where !line.fields[line.focus].allowsLineBreaks:
            // Ctrl-J (a line feed) is Enter, except where it types a line break.
            return submit(&line)
        case .control("c"):
            setMode(.browsing)
            return .none
        default:
            guard line.edit(key) else { return .none }
            setMode(.input(line))
            if line.purpose == .search { setSearch(line.text) }
            return .none
        }
    }

    private mutating func submit(_ line: inout InputLine) -> ViewEffect {
        switch line.purpose {
        case .search:
            setMode(.browsing)
            say(visible.isEmpty ? "nothing matches \u{201C}\(search)\u{201D}" : "\(visible.count) matching")
            return .none
        case .tag:
            let tag = line.text.trimmingCharacters(in: .whitespaces).lowercased()
            setTag(tag.isEmpty ? nil : tag)
            setMode(.browsing)
            say(tag.isEmpty ? "tag filter cleared" : "tagged \(tag): \(visible.count)")
            return .none
        case .add:
            guard isWritable else {
                setMode(.input(line))
                return refuseReadOnly()
            }
            return send(&line, .add(title: line.text), expectItem: nil)
        case .edit(let id, let expectItem):
            guard isWritable else {
                setMode(.input(line))
                return refuseReadOnly()
            }
            guard items[id] != nil else {
                setMode(.input(line))
                say("someone else removed this item; Esc to close", isError: true)
                return .none
            }
            let fields = line.fields
            let tags = fields[2].text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            // Only the fields the user changed are sent, so a member someone else changed meanwhile and the user
            // left alone is not put back.
            let edit = ItemEdit(
                title: fields[0].isChanged ? fields[0].text : nil,
                author: fields[1].isChanged ? Self.field(fields[1].text) : .keep,
                note: fields[3].isChanged ? Self.field(fields[3].text) : .keep,
                tags: fields[2].isChanged ? .replace(tags) : .adjust(add: [], remove: []))
            return send(&line, .update(id: id, edit), expectItem: expectItem)
        }
    }

    private mutating func send(_ line: inout InputLine, _ mutation: Mutation, expectItem: Revision?) -> ViewEffect {
        let token = takeToken()
        line.saving = token
        setMode(.input(line))
        say("saving…")
        return .save(SaveRequest(token: token, generation: generation, mutation: mutation, expectItem: expectItem))
    }

    /// An optional member's text: blank clears it.
    private static func field(_ text: String) -> ItemEdit.Field {
        text.trimmingCharacters(in: .whitespaces).isEmpty ? .clear : .set(text)
    }
}
