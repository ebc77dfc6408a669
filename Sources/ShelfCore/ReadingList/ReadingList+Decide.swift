import Foundation

extension ReadingList {
    /// Checks `mutation` against the speculative list and builds its change and answer; writes nothing.
    func decide(_ mutation: Mutation, expect: Revision?) -> Outcome {
        // 2^64 − 1 is never produced: a stored list at that revision could take no change, so the store refuses to
        // load one (SnapshotCodec, FileListStore.replay), and an acknowledged change must always load again.
        guard speculative.revision < .max - 1 else {
            let error = StorageError.revisionsExhausted
            // Told like a failed save: nothing else would say why every change now fails.
            storageFailureHandler?(StorageFailure(error: error, revision: accepted.revision))
            return .failure(.storageFailed(error))
        }
        do {
            return .success(try result(of: mutation, expect: expect, at: speculative.revision + 1))
        } catch {
            return .failure(error)
        }
    }

    /// What `mutation` does at revision `next`. Typed throws and plain control flow rather than `Result.map`
    /// closures: each closure formed here would be isolated to the actor and entered through a run-time isolation
    /// check, and this runs for every change.
    private func result(of mutation: Mutation, expect: Revision?, at next: Revision) throws(ReadingListError) -> MutationResult {
        switch mutation {
        case .add(let raw):
            let title = try validTitle(raw)
            try checkExpect(expect)
            let item = Item(id: nextID(), title: title, isRead: false, addedAt: Timestamp.truncated(now()), revision: next)
            return changed(.added(item), item: item, at: next)
        case .setRead(let id, let isRead):
            var item = try existing(id, expect: expect)
            if item.isRead == isRead { return unchanged(item) }
            item.isRead = isRead
            item.revision = next
            return changed(.updated(item), item: item, at: next)
        case .toggle(let id):
            var item = try existing(id, expect: expect)
            item.isRead.toggle()
            item.revision = next
            return changed(.updated(item), item: item, at: next)
        case .rename(let id, let raw):
            let title = try validTitle(raw)
            var item = try existing(id, expect: expect)
            // Byte for byte, not `==`: Swift compares strings by canonical equivalence, and a rename from
            // "Cafe\u{301}" to "Caf\u{E9}" (the same text, normalised) must be stored as sent.
            if item.title.utf8.elementsEqual(title.utf8) { return unchanged(item) }
            item.title = title
            item.revision = next
            return changed(.updated(item), item: item, at: next)
        case .remove(let id):
            _ = try existing(id, expect: expect)
            return MutationResult(revision: next, item: nil, id: id, change: RevisionedChange(revision: next, change: .removed(id)))
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

    private func existing(_ id: UUID, expect: Revision?) throws(ReadingListError) -> Item {
        try checkExpect(expect)
        guard let item = speculative.item(id, accepted: accepted.items) else { throw .notFound(id) }
        return item
    }

    private func changed(_ change: ListChange, item: Item, at revision: Revision) -> MutationResult {
        MutationResult(revision: revision, item: item, id: item.id, change: RevisionedChange(revision: revision, change: change))
    }

    private func unchanged(_ item: Item) -> MutationResult {
        MutationResult(revision: speculative.revision, item: item, id: item.id, change: nil)
    }
}
