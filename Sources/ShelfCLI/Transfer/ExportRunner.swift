import ShelfClient
import ShelfCommandLine
import ShelfCore

/// `shelf export`: one `list`, so every item comes from the same revision, written to standard output in `format`;
/// the count and that revision go to standard error, which keeps standard output the file alone.
struct ExportRunner {
    let client: ShelfClient
    let query: ItemQuery
    let format: ExportFormat
    let output: Output

    func run() async throws(ClientError) {
        let (revision, items) = try await client.list(query)
        var chunk = format.header
        for item in items {
            chunk += format.entry(item)
            // Written in pieces: a large list is not held twice, as items and as one string.
            if chunk.utf8.count >= 1 << 16 {
                output.out(chunk)
                chunk = ""
            }
        }
        if !chunk.isEmpty { output.out(chunk) }
        output.err("shelf: exported \(items.count) item\(items.count == 1 ? "" : "s") at revision \(revision)\n")
    }
}
