import ShelfCommandLine
import ShelfCore

extension ShelfCommand {
    /// `export` and `import` with their options (`--format`, `--dry-run`, `--read`/`--unread` for export); `nil`
    /// for any other command.
    static func transferAction(
        _ name: String, _ operands: [String], flags: [String], format: String?
    ) throws(UsageError) -> Action? {
        switch name {
        case "export":
            if !operands.isEmpty { throw UsageError("export takes no arguments (it writes to standard output)") }
            if flags.contains("dry-run") { throw UsageError("--dry-run goes with the import command only") }
            let filters = flags.filter { $0 == "read" || $0 == "unread" }
            if filters.count > 1 { throw UsageError("use one of --read and --unread") }
            let chosen = try choice(format, default: ExportFormat.jsonl, "export")
            return .export(chosen, filters.first.flatMap(ListFilter.init(rawValue:)) ?? .all)
        case "import":
            if let flag = flags.first(where: { $0 != "dry-run" }) { throw UsageError("--\(flag) goes with the list and export commands only") }
            guard operands.count == 1 else { throw UsageError("import needs exactly one FILE (or - for standard input)") }
            let chosen = try choice(format, default: ImportFormat.auto, "import")
            return .importFile(path: operands[0], format: chosen, dryRun: flags.contains("dry-run"))
        default:
            return nil
        }
    }

    private static func choice<Format: RawRepresentable & CaseIterable>(
        _ text: String?, default value: Format, _ command: String
    ) throws(UsageError) -> Format where Format.RawValue == String {
        guard let text else { return value }
        guard let format = Format(rawValue: text) else {
            let names = Format.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("--format for \(command) is one of \(names), not \"\(text)\"")
        }
        return format
    }
}
