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
        switch mutation {
        case .add(let raw):
            return validTitle(raw).flatMap { title in
                checkExpect(expect).map { _ in
                    let item = Item(
                        id: newID(), title: title, isRead: false, addedAt: Timestamp.truncated(now()), revision: next)
                    return changed(.added(item), item: item, at: next)
                }
            }
        case .setRead(let id, let isRead):
            return existing(id, expect: expect).map { item in
                if item.isRead == isRead { return unchanged(item) }
                var updated = item
                updated.isRead = isRead
                updated.revision = next
                return changed(.updated(updated), item: updated, at: next)
            }
        case .toggle(let id):
            return existing(id, expect: expect).map { item in
                var updated = item
                updated.isRead.toggle()
                updated.revision = next
                return changed(.updated(updated), item: updated, at: next)
            }
        case .rename(let id, let raw):
            return validTitle(raw).flatMap { title in
                existing(id, expect: expect).map { item in
                    if item.title == title { return unchanged(item) }
                    var updated = item
                    updated.title = title
                    updated.revision = next
                    return changed(.updated(updated), item: updated, at: next)
                }
            }
        case .remove(let id):
            return existing(id, expect: expect).map { _ in
                MutationResult(revision: next, item: nil, id: id, change: RevisionedChange(revision: next, change: .removed(id)))
            }
        }
    }

    private func validTitle(_ raw: String) -> Result<String, ReadingListError> {
        Title.validate(raw).mapError { .invalidTitle($0) }
    }

    private func checkExpect(_ expect: Revision?) -> Result<Void, ReadingListError> {
        if let expect, expect != speculative.revision { return .failure(.conflict(current: speculative.revision)) }
        return .success(())
    }

    private func existing(_ id: UUID, expect: Revision?) -> Result<Item, ReadingListError> {
        checkExpect(expect).flatMap {
            guard let item = speculative.item(id, accepted: accepted.items) else { return .failure(.notFound(id)) }
            return .success(item)
        }
    }

    private func changed(_ change: ListChange, item: Item, at revision: Revision) -> MutationResult {
        MutationResult(revision: revision, item: item, id: item.id, change: RevisionedChange(revision: revision, change: change))
    }

    private func unchanged(_ item: Item) -> MutationResult {
        MutationResult(revision: speculative.revision, item: item, id: item.id, change: nil)
    }
}
