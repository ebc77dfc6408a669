import ShelfCommandLine
import ShelfCore

extension ShelfCommand {
    /// `export` (list's filters: QUERY, `--tag`, `--read`/`--unread`, `--sort`; and `--format`) and `import`
    /// (`--format`, `--dry-run`, one FILE or `-`). Which options each takes is checked before (`optionsTaken`).
    static func transferAction(_ name: String, _ operands: [String], options: ItemOptions) throws(UsageError) -> Action {
        let format = options.values["format"]
        if name == "import" {
            guard operands.count == 1 else { throw UsageError("import needs exactly one FILE (or - for standard input)") }
            let chosen = try choice(format, default: ImportFormat.auto, name)
            return .importFile(path: operands[0], format: chosen, dryRun: options.flags.contains("dry-run"))
        }
        if operands.count > 1 { throw UsageError("export takes at most one QUERY (quote a query of several words)") }
        let filters = options.flags.filter { $0 == "read" || $0 == "unread" }
        if filters.count > 1 { throw UsageError("use one of --read and --unread") }
        let query = ItemQuery(
            filter: filters.first.flatMap(ListFilter.init(rawValue:)) ?? .all, text: operands.first, tags: options.tags,
            sort: options.sort ?? .added)
        return .export(try choice(format, default: ExportFormat.jsonl, name), query)
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
