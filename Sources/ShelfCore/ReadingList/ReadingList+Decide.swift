import Foundation

extension ReadingList {
    /// Checks `mutation` against the speculative list and builds its change and answer; writes nothing.
    /// - Parameters:
    ///   - expect: the list's revision the change requires (protocol/PROTOCOL.md §7).
    ///   - expectItem: the target item's revision the change requires (§7): changes to other items never conflict.
    func decide(_ mutation: Mutation, expect: Revision?, expectItem: Revision? = nil) -> Outcome {
        // 2^64 − 1 is never produced: a stored list at that revision could take no change, so the store refuses to
        // load one (SnapshotCodec, FileListStore.replay), and an acknowledged change must always load again.
        guard speculative.revision < .max - 1 else {
            let error = StorageError.revisionsExhausted
            // Told like a failed save: nothing else would say why every change now fails.
            storageFailureHandler?(StorageFailure(error: error, revision: accepted.revision))
            return .failure(.storageFailed(error))
        }
        do {
            return .success(try result(of: mutation, expect: expect, expectItem: expectItem, at: speculative.revision + 1))
        } catch {
            return .failure(error)
        }
    }

    /// What `mutation` does at revision `next`. Typed throws and plain control flow rather than `Result.map`
    /// closures: each closure formed here would be isolated to the actor and entered through a run-time isolation
    /// check, and this runs for every change.
    private func result(
        of mutation: Mutation, expect: Revision?, expectItem: Revision?, at next: Revision
    ) throws(ReadingListError) -> MutationResult {
        switch mutation {
        case .add(let raw, let details):
            let title = try validTitle(raw)
            var author: String?, url: String?, note: String?, tags: [String] = []
            if !details.isEmpty {
                author = try field(ItemField.validateAuthor(details.author ?? ""))
                url = try field(ItemField.validateURL(details.url ?? ""))
                // In the order of protocol/PROTOCOL.md §7: author, url, note, tags.
                note = try field(ItemField.validateNote(details.note ?? ""))
                tags = try field(ItemField.validateTags(details.tags))
            }
            try checkExpect(expect)
            let origin = details.origin
            let id: UUID
            if let kept = origin.id {
                if speculative.item(kept, accepted: accepted.items) != nil { throw .idTaken(kept) }
                keptIDs = true
                id = kept
            } else {
                id = freshID()
            }
            let isRead = origin.isRead ?? (origin.readAt != nil)
            let item = Item(
                id: id, title: title, isRead: isRead, addedAt: origin.addedAt ?? Timestamp.truncated(now()), revision: next,
                author: author, url: url, tags: tags, note: note,
                readAt: isRead ? origin.readAt ?? Timestamp.truncated(now()) : nil)
            return MutationResult(change: .added(item), revision: next)
        case .setRead(let id, let isRead):
            var item = try existing(id, expect: expect, expectItem: expectItem)
            if item.isRead == isRead { return unchanged(item) }
            setRead(&item, isRead)
            item.revision = next
            return MutationResult(change: .updated(item), revision: next)
        case .toggle(let id):
            var item = try existing(id, expect: expect, expectItem: expectItem)
            setRead(&item, !item.isRead)
            item.revision = next
            return MutationResult(change: .updated(item), revision: next)
        case .rename(let id, let raw):
            let title = try validTitle(raw)
            var item = try existing(id, expect: expect, expectItem: expectItem)
            // Byte for byte, not `==`: Swift compares strings by canonical equivalence, and a rename from
            // "Cafe\u{301}" to "Caf\u{E9}" (the same text, normalised) must be stored as sent.
            if item.title.utf8.elementsEqual(title.utf8) { return unchanged(item) }
            item.title = title
            item.revision = next
            return MutationResult(change: .updated(item), revision: next)
        case .update(let id, let edit):
            let title = try edit.title.map { raw throws(ReadingListError) in try validTitle(raw) }
            let author = try edited(edit.author, ItemField.validateAuthor)
            let url = try edited(edit.url, ItemField.validateURL)
            let note = try edited(edit.note, ItemField.validateNote)
            // Every tag is checked before the item is looked up (§7: member rules come before `expect` and
            // existence); only the count of the merged set depends on the item.
            let tags = try validatedTags(edit.tags)
            let old = try existing(id, expect: expect, expectItem: expectItem)
            var item = old
            if let title { item.title = title }
            if let author { item.author = author }
            if let url { item.url = url }
            if let note { item.note = note }
            item.tags = try mergedTags(old.tags, tags)
            if Self.sameText(item, old) { return unchanged(old) }
            item.revision = next
            return MutationResult(change: .updated(item), revision: next)
        case .remove(let id):
            _ = try existing(id, expect: expect, expectItem: expectItem)
            return MutationResult(change: .removed(id), revision: next)
        }
    }

    /// The next drawn id that no item has: once an add has kept an id of its own (`keptIDs`), a generator that
    /// draws in sequence (tests) could draw it again. Random UUIDs never collide, so until then nothing is looked up.
    private func freshID() -> UUID {
        var id = nextID()
        while keptIDs, speculative.item(id, accepted: accepted.items) != nil { id = nextID() }
        return id
    }

    /// Sets the read state and `readAt`: the clock's time when it becomes read, none when it becomes unread.
    private func setRead(_ item: inout Item, _ isRead: Bool) {
        item.isRead = isRead
        item.readAt = isRead ? Timestamp.truncated(now()) : nil
    }

    /// Whether two versions of an item hold the same text byte for byte (see `rename`).
    private static func sameText(_ a: Item, _ b: Item) -> Bool {
        a.title.utf8.elementsEqual(b.title.utf8) && same(a.author, b.author) && same(a.url, b.url)
            && same(a.note, b.note) && a.tags.count == b.tags.count
            && zip(a.tags, b.tags).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
    }

    private static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a.utf8.elementsEqual(b.utf8)
        default: false
        }
    }

    /// The new value of an optional text member: `nil` to keep it, `.some(nil)` to clear it.
    private func edited(
        _ field: ItemEdit.Field, _ validate: (String) -> Result<String?, ItemField.Problem>
    ) throws(ReadingListError) -> String?? {
        switch field {
        case .keep: return nil
        case .clear: return .some(nil)
        case .set(let raw): return .some(try self.field(validate(raw)))
        }
    }

    /// The tags of `edit` in stored form: a whole set (at most `ItemField.maxTags`), or the tags to add and to
    /// remove, each validated but not counted (removing any number is fine; adding is counted once merged). A tag to
    /// remove is not held to the byte limit, so a tag stored before it can still be removed.
    private func validatedTags(_ edit: ItemEdit.Tags) throws(ReadingListError) -> ItemEdit.Tags {
        switch edit {
        case .replace(let raw):
            return .replace(try field(ItemField.validateTags(raw)))
        case .adjust(let add, let remove):
            let added = try field(ItemField.validateTagNames(add))
            let removed = try field(ItemField.validateTagNames(remove, checkingBytes: false))
            return .adjust(add: Array(added), remove: Array(removed))
        }
    }

    /// The item's tags after a validated edit (`validatedTags`): adds, then removes.
    /// - Throws: `tooManyTags` when the result holds more than `ItemField.maxTags`.
    private func mergedTags(_ tags: [String], _ edit: ItemEdit.Tags) throws(ReadingListError) -> [String] {
        switch edit {
        case .replace(let tags):
            return tags
        case .adjust(let add, let remove):
            if add.isEmpty, remove.isEmpty { return tags }
            var result = Set(tags).union(add)
            result.subtract(remove)
            if result.count > ItemField.maxTags { throw .invalidField(.tooManyTags(count: result.count)) }
            return ItemField.sorted(result)
        }
    }

    private func field<Value>(_ result: Result<Value, ItemField.Problem>) throws(ReadingListError) -> Value {
        switch result {
        case .success(let value): return value
        case .failure(let problem): throw .invalidField(problem)
        }
    }

    private func validTitle(_ raw: String) throws(ReadingListError) -> String {
        switch Title.validate(raw) {
        case .success(let title): return title
        case .failure(let problem): throw .invalidTitle(problem)
        }
    }

    /// Throws the conflict when `expect` is set and the list is at another revision.
    private func checkExpect(_ expect: Revision?) throws(ReadingListError) {
        if let expect, expect != speculative.revision { throw .conflict(current: speculative.revision) }
    }

    /// The item `id`, after the list's and the item's expected revisions are checked.
    private func existing(_ id: UUID, expect: Revision?, expectItem: Revision?) throws(ReadingListError) -> Item {
        try checkExpect(expect)
        guard let item = speculative.item(id, accepted: accepted.items) else { throw .notFound(id) }
        if let expectItem, expectItem != item.revision {
            throw .conflict(current: speculative.revision, itemRevision: item.revision)
        }
        return item
    }

    private func unchanged(_ item: Item) -> MutationResult {
        MutationResult(unchanged: item, revision: speculative.revision)
    }
}
