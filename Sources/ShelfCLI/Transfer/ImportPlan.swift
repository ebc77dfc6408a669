import Foundation
import ShelfCore

/// What an import will do with each row, decided against the list as it was read (one `list`), before anything is
/// sent. The same file imported again, or again after an interruption, adds nothing twice:
///
/// - a row with an id (Shelf's own formats) whose id an item on the list has is skipped; so is one whose title and
///   author an item on the list has (compared ignoring case and runs of whitespace: `ImportCandidate.key`).
///   Otherwise it is added keeping its id, unless an earlier row of the file took that id: then a new one is drawn;
/// - a row without an id is skipped when an item on the list, or an earlier row of the file, has its title and
///   author.
///
/// So two items of the same title in one export both come back into an empty list, as their ids differ.
struct ImportPlan: Equatable {
    /// One row's fate.
    enum Step: Equatable {
        case add(line: Int, ImportCandidate)
        case skip(line: Int, ImportCandidate, reason: String)
        case refuse(line: Int, reason: String)
    }

    var steps: [Step]

    init(records: [ImportRecord], existing: [Item]) {
        let listIDs = Set(existing.map(\.id))
        var usedIDs = listIDs
        let keysBefore = Set(existing.map { ImportCandidate.key(title: $0.title, author: $0.author) })
        var keysAdded: [String: Int] = [:]
        steps = []
        steps.reserveCapacity(records.count)
        for record in records {
            var candidate: ImportCandidate
            switch record.outcome {
            case .failure(let problem):
                steps.append(.refuse(line: record.line, reason: problem.reason))
                continue
            case .success(let value):
                candidate = value
            }
            let key = candidate.key
            if let id = candidate.details.origin.id, listIDs.contains(id) {
                steps.append(.skip(line: record.line, candidate, reason: "already on the list (same id)"))
                continue
            }
            if keysBefore.contains(key) {
                steps.append(.skip(line: record.line, candidate, reason: "already on the list (same title and author)"))
                continue
            }
            if let id = candidate.details.origin.id {
                if !usedIDs.insert(id).inserted { candidate.details.origin.id = nil }
            } else if let earlier = keysAdded[key] {
                steps.append(.skip(line: record.line, candidate, reason: "the same title and author as line \(earlier)"))
                continue
            }
            if keysAdded[key] == nil { keysAdded[key] = record.line }
            steps.append(.add(line: record.line, candidate))
        }
    }

    /// How many rows each step kind has.
    var counts: (add: Int, skip: Int, refuse: Int) {
        var counts = (add: 0, skip: 0, refuse: 0)
        for step in steps {
            switch step {
            case .add: counts.add += 1
            case .skip: counts.skip += 1
            case .refuse: counts.refuse += 1
            }
        }
        return counts
    }
}
