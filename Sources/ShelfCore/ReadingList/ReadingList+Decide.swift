import Foundation

extension ReadingList {
    /// Checks `mutation` against the speculative list and builds its change and answer; writes nothing.
    func decide(_ mutation: Mutation, expect: Revision?) -> Outcome {
        // 2^64 − 1 is never produced: a stored list at that revision could take no change, so the store refuses to
        // load one (SnapshotCodec, FileListStore.replay), and an acknowledged change must always load again.
        guard speculative.revision < .max - 1 else {
            return .failure(.storageFailed(.corrupt(path: "list", reason: "the revision counter is exhausted")))
        }
        let next = speculative.revision + 1
        // Plain control flow rather than `Result.map` closures: each closure formed here is isolated to the actor
        // and entered through a run-time isolation check, and this runs for every change.
        switch mutation {
        case .add(let raw):
            let title: String
            switch validTitle(raw) {
            case .success(let valid): title = valid
            case .failure(let error): return .failure(error)
            }
            if let conflict = conflict(expect) { return .failure(conflict) }
            let item = Item(id: newID(), title: title, isRead: false, addedAt: Timestamp.truncated(now()), revision: next)
            return .success(changed(.added(item), item: item, at: next))
        case .setRead(let id, let isRead):
            var item: Item
            switch existing(id, expect: expect) {
            case .success(let found): item = found
            case .failure(let error): return .failure(error)
            }
            if item.isRead == isRead { return .success(unchanged(item)) }
            item.isRead = isRead
            item.revision = next
            return .success(changed(.updated(item), item: item, at: next))
        case .toggle(let id):
            var item: Item
            switch existing(id, expect: expect) {
            case .success(let found): item = found
            case .failure(let error): return .failure(error)
            }
            item.isRead.toggle()
            item.revision = next
            return .success(changed(.updated(item), item: item, at: next))
        case .rename(let id, let raw):
            let title: String
            switch validTitle(raw) {
            case .success(let valid): title = valid
            case .failure(let error): return .failure(error)
            }
            var item: Item
            switch existing(id, expect: expect) {
            case .success(let found): item = found
            case .failure(let error): return .failure(error)
            }
            if item.title == title { return .success(unchanged(item)) }
            item.title = title
            item.revision = next
            return .success(changed(.updated(item), item: item, at: next))
        case .remove(let id):
            if case .failure(let error) = existing(id, expect: expect) { return .failure(error) }
            return .success(MutationResult(
                revision: next, item: nil, id: id, change: RevisionedChange(revision: next, change: .removed(id))))
        }
    }

    private func validTitle(_ raw: String) -> Result<String, ReadingListError> {
        switch Title.validate(raw) {
        case .success(let title): .success(title)
        case .failure(let problem): .failure(.invalidTitle(problem))
        }
    }

    /// The conflict when `expect` is set and the list is at another revision.
    private func conflict(_ expect: Revision?) -> ReadingListError? {
        if let expect, expect != speculative.revision { return .conflict(current: speculative.revision) }
        return nil
    }

    private func existing(_ id: UUID, expect: Revision?) -> Result<Item, ReadingListError> {
        if let conflict = conflict(expect) { return .failure(conflict) }
        guard let item = speculative.item(id, accepted: accepted.items) else { return .failure(.notFound(id)) }
        return .success(item)
    }

    private func changed(_ change: ListChange, item: Item, at revision: Revision) -> MutationResult {
        MutationResult(revision: revision, item: item, id: item.id, change: RevisionedChange(revision: revision, change: change))
    }

    private func unchanged(_ item: Item) -> MutationResult {
        MutationResult(revision: speculative.revision, item: item, id: item.id, change: nil)
    }
}
