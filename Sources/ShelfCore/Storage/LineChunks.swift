import Dispatch
import Foundation

/// Splits a buffer of LF-terminated lines into a few chunks at line boundaries and maps each line on its own
/// thread (`DispatchQueue.concurrentPerform`, not the cooperative pool), keeping line order: loading a
/// million-line snapshot uses every core.
enum LineChunks {
    /// One line: its bytes without the LF, and its number from 1 within the whole buffer.
    struct Line {
        let bytes: ArraySlice<UInt8>
        let number: Int
    }

    /// Maps every complete line in `bytes[start...]` (a last line without LF is left out; see `unterminatedTail`)
    /// in order. The first error thrown by `transform` (for the earliest line) is rethrown.
    static func map<T: Sendable>(
        _ bytes: [UInt8], from start: Int, firstLineNumber: Int,
        _ transform: @Sendable (Line) throws(StorageError) -> T
    ) throws(StorageError) -> [T] {
        let cuts = boundaries(bytes, from: start, parts: max(1, ProcessInfo.processInfo.activeProcessorCount))
        let parts = cuts.count - 1
        // Line numbers at each chunk's start, counted up front so chunks can number their lines alone.
        var counted = [firstLineNumber]
        for part in 0..<max(0, parts - 1) {
            counted.append(counted[part] + count(bytes, cuts[part], cuts[part + 1]))
        }
        let numbers = counted
        let results = ChunkResults<T>(parts: parts)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            var out: [T] = []
            var number = numbers[part]
            var lineStart = cuts[part]
            var index = lineStart
            do throws(StorageError) {
                while index < cuts[part + 1] {
                    if bytes[index] == 0x0A {
                        out.append(try transform(Line(bytes: bytes[lineStart..<index], number: number)))
                        number += 1
                        lineStart = index + 1
                    }
                    index += 1
                }
                results.set(part, .success(out))
            } catch {
                results.set(part, .failure(error))
            }
        }
        return try results.joined()
    }

    /// The offset just past the last LF at or after `start` (where an unterminated last line begins).
    static func endOfLastLine(_ bytes: [UInt8], from start: Int) -> Int {
        var index = bytes.count
        while index > start, bytes[index - 1] != 0x0A { index -= 1 }
        return index
    }

    /// Chunk boundaries: `start`, cuts just after an LF, and the end of the last complete line.
    private static func boundaries(_ bytes: [UInt8], from start: Int, parts: Int) -> [Int] {
        let end = endOfLastLine(bytes, from: start)
        var cuts = [start]
        let size = (end - start) / parts
        for part in 1..<parts {
            var cut = start + part * size
            guard let last = cuts.last, cut > last else { continue }
            while cut < end, bytes[cut - 1] != 0x0A { cut += 1 }
            if cut < end { cuts.append(cut) }
        }
        cuts.append(end)
        return cuts
    }

    private static func count(_ bytes: [UInt8], _ from: Int, _ to: Int) -> Int {
        var lines = 0
        for index in from..<to where bytes[index] == 0x0A { lines += 1 }
        return lines
    }
}

/// Results of the chunks: one slot per chunk in separately allocated memory, each written by exactly one
/// `concurrentPerform` iteration and read only after all of them returned — hence `@unchecked Sendable`.
private final class ChunkResults<T: Sendable>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Result<[T], StorageError>?>
    private let count: Int

    init(parts: Int) {
        count = parts
        slots = .allocate(capacity: parts)
        slots.initialize(repeating: nil, count: parts)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    func set(_ part: Int, _ result: Result<[T], StorageError>) {
        slots[part] = result
    }

    func joined() throws(StorageError) -> [T] {
        var all: [T] = []
        for part in 0..<count {
            guard let slot = slots[part] else { continue }
            all.append(contentsOf: try slot.get())
        }
        return all
    }
}
