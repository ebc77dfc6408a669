import Foundation
import Glibc
import Synchronization

/// A pseudo-terminal (`/dev/ptmx`, what posix_openpt opens on Linux) to run `shelf ui` in: the test writes keys to its master side and reads what
/// the program draws, through `ScreenGrid`, a small emulator of the sequences the live view writes. Every wait
/// takes a deadline and is woken by the bytes arriving, never by polling a clock.
final class PseudoTerminal: Sendable {
    private struct State {
        var grid: ScreenGrid
        var raw: [UInt8] = []
        var closed = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        var version = 0
    }

    let master: Int32
    /// The terminal side, kept open by the test to read its settings before and after.
    let slave: Int32
    private let state: Mutex<State>
    /// `TIOCSPTLCK` and `TIOCGPTN` (linux/asm-generic/ioctls.h: _IOW('T', 0x31, int), _IOR('T', 0x30, unsigned)).
    private static let setLock: UInt = 0x4004_5431
    private static let getNumber: UInt = 0x8004_5430

    /// A terminal of `width` x `height`.
    init(width: Int = 80, height: Int = 24) throws {
        // Glibc's module does not export posix_openpt, grantpt, unlockpt or ptsname (they need _XOPEN_SOURCE), so
        // this does what they do on Linux: open the multiplexer, unlock the terminal (TIOCSPTLCK), ask its number
        // (TIOCGPTN); devpts gives it the caller's ownership already, which is all grantpt does there.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, Self.setLock, &unlock) == 0, ioctl(master, Self.getNumber, &number) == 0 else {
            throw EndToEndFailure(description: "no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let name = "/dev/pts/\(number)"
        let slave = open(name, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw EndToEndFailure(description: "cannot open \(name)") }
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        self.master = master
        self.slave = slave
        state = Mutex(State(grid: ScreenGrid(width: width, height: height)))
        Thread.detachNewThread { [self] in readLoop() }
    }

    /// Gives the terminal a new size (as a terminal emulator does when its window is resized); the program is
    /// told by SIGWINCH, which the test sends (the program has no controlling terminal here).
    func resize(width: Int, height: Int) {
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        state.withLock { $0.grid = ScreenGrid(width: width, height: height) }
    }

    /// The terminal's settings now, as bytes (to compare before and after).
    var settings: [UInt8] {
        var settings = termios()
        guard tcgetattr(slave, &settings) == 0 else { return [] }
        return withUnsafeBytes(of: &settings) { Array($0) }
    }

    /// Types `text` (bytes as given: `\r` is Enter, `\u{1b}` Esc).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// The screen's rows now, trailing spaces cut.
    var rows: [String] { state.withLock { $0.grid.rows } }

    /// Everything the program wrote.
    var output: [UInt8] { state.withLock { $0.raw } }

    /// Waits until `condition` holds for the screen's rows.
    /// - Returns: false when `timeout` passed first (or the terminal closed).
    func waitForScreen(timeout: Duration = .seconds(10), _ condition: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        await waitFor(timeout: timeout) { condition($0.grid.rows) }
    }

    /// Waits until `condition` holds for everything the program wrote so far.
    /// - Returns: false when `timeout` passed first (or the terminal closed).
    func waitForOutput(timeout: Duration = .seconds(10), _ condition: @escaping @Sendable ([UInt8]) -> Bool) async -> Bool {
        await waitFor(timeout: timeout) { condition($0.raw) }
    }

    private func waitFor(timeout: Duration, _ condition: @escaping @Sendable (State) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        let timer = Task {
            try? await Task.sleep(until: deadline)
            wakeAll()
        }
        defer { timer.cancel() }
        while true {
            let (met, version, closed) = state.withLock { (condition($0), $0.version, $0.closed) }
            if met { return true }
            if closed || ContinuousClock.now >= deadline { return false }
            await withCheckedContinuation { continuation in
                let parked = state.withLock { state -> Bool in
                    guard state.version == version, !state.closed else { return false }
                    state.waiters[state.nextWaiter] = continuation
                    state.nextWaiter += 1
                    return true
                }
                if !parked { continuation.resume() }
            }
        }
    }

    /// The first row that contains `text`, if any.
    func row(containing text: String) -> String? {
        rows.first { $0.contains(text) }
    }

    func close() {
        Glibc.close(slave)
        Glibc.close(master)
    }

    private func wakeAll() {
        let waiters = state.withLock { state in
            defer { state.waiters.removeAll() }
            state.version += 1
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(master, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            state.withLock { state in
                state.raw += buffer[0..<count]
                state.grid.feed(buffer[0..<count])
            }
            wakeAll()
        }
        state.withLock { $0.closed = true }
        wakeAll()
    }
}

/// The screen a terminal would show for the sequences the live view writes: cursor moves (`CSI row;col H`), clear
/// (`CSI 2 J`), text in cells (wide characters take two); colours and modes are ignored.
struct ScreenGrid: Sendable {
    let width: Int
    let height: Int
    private var cells: [[String]]
    private var row = 0
    private var column = 0
    private var pending: [UInt8] = []

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        cells = Array(repeating: Array(repeating: " ", count: width), count: height)
    }

    /// The rows, trailing spaces cut.
    var rows: [String] {
        cells.map { String($0.joined().reversed().drop(while: { $0 == " " }).reversed()) }
    }

    mutating func feed(_ bytes: some Sequence<UInt8>) {
        pending += bytes
        var index = 0
        while index < pending.count {
            if pending[index] == 0x1B {
                guard let end = sequenceEnd(from: index) else { break }
                apply(Array(pending[index...end]))
                index = end + 1
                continue
            }
            // A whole UTF-8 character, or wait for the rest.
            let length = pending[index] < 0x80 ? 1 : pending[index] >= 0xF0 ? 4 : pending[index] >= 0xE0 ? 3 : 2
            guard index + length <= pending.count else { break }
            put(String(decoding: pending[index..<(index + length)], as: UTF8.self))
            index += length
        }
        pending.removeFirst(index)
    }

    private func sequenceEnd(from start: Int) -> Int? {
        guard start + 1 < pending.count else { return nil }
        guard pending[start + 1] == UInt8(ascii: "[") else { return start + 1 }
        var index = start + 2
        while index < pending.count {
            if (0x40...0x7E).contains(pending[index]) { return index }
            index += 1
        }
        return nil
    }

    private mutating func apply(_ sequence: [UInt8]) {
        guard sequence.count > 2, let final = sequence.last else { return }
        let parameters = String(decoding: sequence[2..<(sequence.count - 1)], as: UTF8.self)
        switch final {
        case UInt8(ascii: "H"):
            let numbers = parameters.split(separator: ";").compactMap { Int($0) }
            row = max(0, min(height - 1, (numbers.first ?? 1) - 1))
            column = max(0, min(width - 1, (numbers.count > 1 ? numbers[1] : 1) - 1))
        case UInt8(ascii: "J") where parameters == "2":
            cells = Array(repeating: Array(repeating: " ", count: width), count: height)
        default:
            break
        }
    }

    private mutating func put(_ text: String) {
        guard let scalar = text.unicodeScalars.first, scalar.value >= 0x20 else { return }
        if scalar.properties.generalCategory == .nonspacingMark || scalar.value == 0x200D || scalar.value == 0xFE0F {
            if column > 0 { cells[row][column - 1] += text }
            return
        }
        let wide = scalar.properties.isEmojiPresentation || (0x1100...0x115F).contains(scalar.value)
            || (0x2E80...0xA4CF).contains(scalar.value) || (0xAC00...0xD7A3).contains(scalar.value)
            || (0xFF00...0xFF60).contains(scalar.value)
        guard column < width else { return }
        cells[row][column] = text
        column += 1
        if wide, column < width {
            cells[row][column] = ""
            column += 1
        }
    }
}
