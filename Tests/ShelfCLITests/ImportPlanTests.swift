import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

/// What an import adds and skips (`ImportPlan`): the idempotency rules.
@Suite struct ImportPlanTests {
    static let idA = UUID(uuidString: "00000000-0000-4000-8000-00000000000a") ?? UUID()
    static let idB = UUID(uuidString: "00000000-0000-4000-8000-00000000000b") ?? UUID()

    private func item(_ title: String, author: String? = nil, id: UUID = UUID()) -> Item {
        Item(id: id, title: title, isRead: false, addedAt: Date(timeIntervalSince1970: 0), revision: 1, author: author)
    }

    private func record(_ line: Int, _ title: String, author: String? = nil, id: UUID? = nil) -> ImportRecord {
        ImportRecord(line: line, ImportCandidate.checked(title: title, details: ItemDetails(author: author, origin: .init(id: id))))
    }

    private func kinds(_ plan: ImportPlan) -> [String] {
        plan.steps.map { step in
            switch step {
            case .add(let line, _): "add \(line)"
            case .skip(let line, _, _): "skip \(line)"
            case .refuse(let line, _): "refuse \(line)"
            }
        }
    }

    @Test("title and author already on the list, ignoring case and runs of spaces, are skipped")
    func skipsPresent() {
        let plan = ImportPlan(
            records: [record(1, "the  LEFT hand", author: "Ursula K. Le Guin"), record(2, "The Left Hand"), record(3, "New")],
            existing: [item("The Left Hand", author: "ursula k.  le guin")])
        #expect(kinds(plan) == ["skip 1", "add 2", "add 3"])
    }

    @Test("without ids, a repeat within the file is skipped and names the earlier line")
    func skipsRepeatInFile() {
        let plan = ImportPlan(records: [record(1, "Dune"), record(2, " dune ")], existing: [])
        #expect(kinds(plan) == ["add 1", "skip 2"])
        guard case .skip(_, _, let reason) = plan.steps[1] else { return }
        #expect(reason == "the same title and author as line 1")
    }

    @Test("with ids: the same id on the list is skipped; two items of one title in one export both go in")
    func ids() {
        let plan = ImportPlan(
            records: [record(1, "Dune", id: Self.idA), record(2, "Dune", id: Self.idB), record(3, "Other", id: Self.idA)],
            existing: [])
        #expect(kinds(plan) == ["add 1", "add 2", "add 3"])
        guard case .add(_, let third) = plan.steps[2] else { return }
        #expect(third.details.origin.id == nil)
        let again = ImportPlan(
            records: [record(1, "Dune", id: Self.idA), record(2, "Dune", id: Self.idB)],
            existing: [item("Dune", id: Self.idA), item("Dune renamed since", id: Self.idB)])
        #expect(kinds(again) == ["skip 1", "skip 2"])
    }

    @Test("refused rows stay refused and are counted")
    func refused() {
        let plan = ImportPlan(records: [record(4, " "), record(5, "ok")], existing: [])
        #expect(kinds(plan) == ["refuse 4", "add 5"])
        #expect(plan.counts == (add: 1, skip: 0, refuse: 1))
    }
}
