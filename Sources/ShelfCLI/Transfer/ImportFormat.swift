import Foundation

/// The formats `shelf import` reads (README, "Import and export").
public enum ImportFormat: String, CaseIterable, Equatable, Sendable {
    /// Decide from the content (`detect`).
    case auto
    /// One item per line, the wire's Item as `shelf export` writes it.
    case jsonl
    /// Shelf's CSV (`ShelfCSV`).
    case csv
    /// Goodreads' "Export Library" CSV (`GoodreadsCSV`).
    case goodreads
    /// One title per line.
    case text

    /// The format of `text`: a Goodreads header, JSON lines, CSV with Shelf's header, else text; judged by the first
    /// line that is not blank.
    static func detect(_ text: String) -> ImportFormat {
        // Line by line from the start: a large file is not split whole to find its first line.
        var rest = text[...]
        var found: Substring?
        while found == nil, !rest.isEmpty {
            let end = rest.firstIndex(where: \.isNewline) ?? rest.endIndex
            if !rest[..<end].allSatisfy(\.isWhitespace) { found = rest[..<end] }
            rest = end == rest.endIndex ? "" : rest[rest.index(after: end)...]
        }
        guard let first = found else { return .text }
        let line = first.trimmingCharacters(in: .whitespaces)
        if line.hasPrefix("{") { return .jsonl }
        guard let header = try? CSVTable.records(line).first?.fields else { return .text }
        if GoodreadsCSV.isHeader(header) { return .goodreads }
        if ShelfCSV.isHeader(header.map { $0.trimmingCharacters(in: .whitespaces) }), header.count > 1 { return .csv }
        return .text
    }

    /// The rows of `text` read in this format (`auto` detects it first).
    /// - Throws: `ImportFailure` when the file as a whole is not in the format (malformed CSV, a header that is not
    ///   the format's).
    func records(_ text: String) throws(ImportFailure) -> [ImportRecord] {
        switch self {
        case .auto: return try Self.detect(text).records(text)
        case .text: return TextLines.records(text)
        case .jsonl: return JSONLines.records(text)
        case .csv: return try ShelfCSV.records(try Self.table(text))
        case .goodreads: return try GoodreadsCSV.records(try Self.table(text))
        }
    }

    private static func table(_ text: String) throws(ImportFailure) -> [CSVTable.Record] {
        do {
            return try CSVTable.records(text)
        } catch {
            throw ImportFailure("not CSV: \(error)")
        }
    }

    /// The text of a file's bytes: UTF-8, a byte order mark dropped.
    /// - Throws: `ImportFailure` for a binary file (a NUL byte) or one that is not UTF-8, naming `source`.
    static func text(of bytes: [UInt8], source: String) throws(ImportFailure) -> String {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if let nul = body.firstIndex(of: 0) {
            throw ImportFailure("\(source) looks binary (a NUL byte at offset \(nul)); nothing was imported")
        }
        guard let text = String(validating: body, as: UTF8.self) else {
            throw ImportFailure("\(source) is not UTF-8 text; nothing was imported (convert it with iconv -t UTF-8)")
        }
        return text
    }
}
