import Foundation

/// Comma-separated values as RFC 4180 describes them: records end at CRLF, a field holding a comma, a quote or a
/// line break is enclosed in double quotes, and a quote inside one is doubled (`""`).
///
/// The reader is lenient where real files are (Goodreads' and spreadsheets' exports): a record may also end at a
/// lone LF, the last one needs no line end, and a quote inside an unquoted field (`="0441172717"`) is an ordinary
/// character. Foundation has no CSV parser.
enum CSVTable {
    /// One record and the line of the file it starts on (1-based), for messages about it.
    struct Record: Equatable {
        var line: Int
        var fields: [String]
    }

    /// The file is not CSV the reader can take: a quoted field that never ends, or text after a closing quote.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "line \(line): \(reason)" }
    }

    /// The records of `text`, in order; a blank line (nothing between two line ends) is no record.
    static func records(_ text: String) throws(Malformed) -> [Record] {
        var records: [Record] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1
        var recordLine = 1
        var quoted = false
        var afterQuote = false
        var quoteLine = 0
        let bytes = Array(text.utf8)
        var index = 0
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            afterQuote = false
        }
        func endRecord() {
            endField()
            if !(fields.count == 1 && fields[0].isEmpty) { records.append(Record(line: recordLine, fields: fields)) }
            fields.removeAll(keepingCapacity: true)
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                        afterQuote = true
                    }
                } else {
                    if byte == 0x0A { line += 1 }
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: ","):
                endField()
            case 0x0D where index < bytes.count && bytes[index] == 0x0A:
                break
            case 0x0A:
                endRecord()
                line += 1
                recordLine = line
            case UInt8(ascii: "\"") where field.isEmpty && !afterQuote:
                quoted = true
                quoteLine = line
            default:
                if afterQuote {
                    throw Malformed(line: line, reason: "text after a closing quote (a quote inside a quoted field is written \"\")")
                }
                field.append(byte)
            }
        }
        if quoted { throw Malformed(line: quoteLine, reason: "a quoted field that starts here never ends") }
        if !field.isEmpty || !fields.isEmpty || afterQuote { endRecord() }
        return records
    }

    /// One record as RFC 4180 writes it, CRLF included: each field quoted when it holds a comma, a quote, CR or LF
    /// (or is empty space at an end, which some readers trim), quotes doubled.
    static func line(_ fields: [String]) -> String {
        var text = ""
        for (index, field) in fields.enumerated() {
            if index > 0 { text += "," }
            text += quotedIfNeeded(field)
        }
        return text + "\r\n"
    }

    private static func quotedIfNeeded(_ field: String) -> String {
        let needsQuotes = field.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
            || field.first == " " || field.last == " "
        guard needsQuotes else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
