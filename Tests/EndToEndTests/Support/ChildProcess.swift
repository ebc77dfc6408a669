import Foundation
import ShelfTestSupport
import Synchronization
import Testing

/// One executable run as a child process (Foundation `Process`), its standard output and error collected by two
/// reader threads. Every wait takes a timeout; nothing here sleeps to wait or blocks the cooperative pool.
final class ChildProcess: Sendable {
    /// How a process ended and what it printed.
    struct Outcome: Sendable, Equatable {
        /// The exit status, or the signal number when `signaled`.
        var status: Int32
        /// True when a signal ended the process.
        var signaled: Bool
        var stdout: String
        var stderr: String
    }

    private struct State {
        var stdout = Data()
        var stderr = Data()
        var openPipes = 2
        var exit: (status: Int32, signaled: Bool)?
        /// Bumped on every change; a waiter only parks when nothing changed since it looked.
        var version = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    /// The command line, for messages.
    let commandLine: String
    private let process: Process
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let state = Mutex(State())
    /// Stop the reader of standard output, or of standard error, before its next read (`pauseReading(_:)`).
    private let outputGate = ReadGate()
    private let errorGate = ReadGate()

    private init(process: Process, commandLine: String) {
        self.process = process
        self.commandLine = commandLine
    }

    /// A standard stream of the child.
    enum Stream {
        case output
        case error
    }

    /// Starts `executable` with exactly `arguments` and `environment`; standard input is /dev/null. With
    /// `abandoning`, nobody reads that stream of the child: its pipe's reading end is closed at once, so the child's
    /// writes there fail with `EPIPE` (as under `shelf list | head -1` or `shelfd 2>&1 | head`). With
    /// `pausingOutputAfter`, standard output stops being read after the read that brought the first line for which
    /// it holds (`pauseReading(_:)`, decided on the reader's thread, so at most that read's 64 KiB come past it).
    /// - Throws: what `Process.run()` throws (e.g. the executable is missing).
    static func launch(
        _ executable: URL, _ arguments: [String], environment: [String: String], abandoning: Stream? = nil,
        pausingOutputAfter pauseLine: (@Sendable (Substring) -> Bool)? = nil
    ) throws -> ChildProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let child = ChildProcess(
            process: process, commandLine: ([executable.lastPathComponent] + arguments).joined(separator: " "))
        child.outputGate.pause(afterLine: pauseLine)
        process.standardOutput = child.stdoutPipe
        process.standardError = child.stderrPipe
        // The handler runs on a thread of its own once waitpid has reaped the child.
        process.terminationHandler = { [weak child] ended in
            child?.update { $0.exit = (ended.terminationStatus, ended.terminationReason == .uncaughtSignal) }
            // Nothing is held back from a child that is gone: its pipes are read to their end.
            child?.resumeReading(.output)
            child?.resumeReading(.error)
        }
        try process.run()
        // Process.run() closed our copies of the write ends, so each reader sees EOF when the child is gone.
        for (stream, pipe, buffer) in [(Stream.output, child.stdoutPipe, \State.stdout), (.error, child.stderrPipe, \.stderr)] {
            if stream == abandoning {
                try? pipe.fileHandleForReading.close()
                child.update { $0.openPipes -= 1 }
            } else {
                child.startReader(pipe.fileHandleForReading.fileDescriptor, into: buffer)
            }
        }
        return child
    }

    /// The child's process id.
    var pid: Int32 { process.processIdentifier }

    /// Stops reading `stream` after the read under way, if any (up to 64 KiB more may come): once its pipe is full
    /// (64 KiB), the child's writes there block, as under a pager nobody scrolls.
    func pauseReading(_ stream: Stream) {
        (stream == .output ? outputGate : errorGate).pause()
    }

    /// Reads `stream` again after `pauseReading(_:)`.
    func resumeReading(_ stream: Stream) {
        (stream == .output ? outputGate : errorGate).resume()
    }

    /// The child's resident set size (`VmRSS` in /proc/PID/status), in KiB; `nil` where that cannot be read.
    var residentKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.dropFirst("VmRSS:".count).filter(\.isNumber))
        }
        return nil
    }

    /// What the child printed on standard output so far.
    var stdoutSoFar: String { state.withLock { String(decoding: $0.stdout, as: UTF8.self) } }

    /// What the child printed on standard error so far.
    var stderrSoFar: String { state.withLock { String(decoding: $0.stderr, as: UTF8.self) } }

    /// Sends `signal` to the child, by its pid, unless it has already been reaped (the pid may be reused then).
    func send(_ signal: Int32) {
        state.withLock { state in
            if state.exit == nil { _ = kill(process.processIdentifier, signal) }
        }
    }

    /// Waits until the child has exited and closed both pipes.
    /// - Returns: the outcome, or `nil` when that did not happen within `timeout`.
    func waitForExit(timeout: Duration) async -> Outcome? {
        await wait(timeout: timeout) { state in
            guard let exit = state.exit, state.openPipes == 0 else { return nil }
            return Outcome(
                status: exit.status, signaled: exit.signaled,
                stdout: String(decoding: state.stdout, as: UTF8.self),
                stderr: String(decoding: state.stderr, as: UTF8.self))
        }
    }

    /// Waits for the first complete line of `stream` (standard output by default) that starts with `prefix`.
    /// - Returns: the line without its newline, or `nil` when the child exits or `timeout` passes first.
    func waitForLine(startingWith prefix: String, in stream: Stream = .output, timeout: Duration) async -> String? {
        await waitForLine(in: stream, timeout: timeout) { $0.hasPrefix(prefix) }
    }

    /// Waits for the first complete line of `stream` for which `matches` holds.
    /// - Returns: the line without its newline, or `nil` when the child exits or `timeout` passes first.
    func waitForLine(
        in stream: Stream = .output, timeout: Duration, where matches: @escaping @Sendable (Substring) -> Bool
    ) async -> String? {
        let found: String?? = await wait(timeout: timeout) { state in
            let text = String(decoding: stream == .output ? state.stdout : state.stderr, as: UTF8.self)
            let complete = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            if let line = complete.first(where: matches) { return .some(String(line)) }
            return state.exit != nil && state.openPipes == 0 ? .some(nil) : nil
        }
        return found ?? nil
    }

    /// Makes sure the child is gone: SIGTERM, then SIGKILL if it is still running after `grace`.
    /// - Returns: the outcome, or `nil` if even SIGKILL did not end it within 5 s.
    @discardableResult
    func terminate(grace: Duration = .seconds(5)) async -> Outcome? {
        resumeReading(.output)
        resumeReading(.error)
        send(SIGTERM)
        if let outcome = await waitForExit(timeout: grace) { return outcome }
        send(SIGKILL)
        return await waitForExit(timeout: .seconds(5))
    }

    // MARK: - Waiting

    /// Re-evaluates `condition` after every change until it returns a value or `timeout` passes.
    private func wait<T: Sendable>(timeout: Duration, until condition: @escaping @Sendable (State) -> T?) async -> T? {
        let outcome = try? await result(within: timeout) { () async -> T? in
            while !Task.isCancelled {
                let (value, version) = self.state.withLock { (condition($0), $0.version) }
                if let value { return value }
                await self.nextChange(after: version)
            }
            return nil
        }
        return outcome ?? nil
    }

    /// Returns once the state's version is past `version`, or the task is cancelled.
    private func nextChange(after version: Int) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.version != version || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Applies `change` and wakes every waiter.
    private func update(_ change: (inout State) -> Void) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            change(&state)
            state.version += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Reads `fd` to EOF on a thread of its own (blocking reads never run on the cooperative pool).
    private func startReader(_ fd: Int32, into buffer: WritableKeyPath<State, Data> & Sendable) {
        let gate = buffer == \State.stdout ? outputGate : errorGate
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                gate.pass()
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                let data = Data(chunk[0..<count])
                update { $0[keyPath: buffer].append(data) }
                if gate.awaitsLine {
                    gate.pauseIfLineCame(in: state.withLock { String(decoding: $0[keyPath: buffer], as: UTF8.self) })
                }
            }
            update { $0.openPipes -= 1 }
        }
    }
}

/// Holds a reader thread before its next read while paused (`ChildProcess.pauseReading(_:)`).
private final class ReadGate: Sendable {
    private struct State {
        var paused = false
        var waiting = false
        var pauseLine: (@Sendable (Substring) -> Bool)?
    }

    private let state = Mutex(State())
    private let opened = DispatchSemaphore(value: 0)

    func pause() {
        state.withLock { $0.paused = true }
    }

    /// Pauses once a complete line for which `line` holds has been read (`pauseIfLineCame(in:)`).
    func pause(afterLine line: (@Sendable (Substring) -> Bool)?) {
        state.withLock { $0.pauseLine = line }
    }

    var awaitsLine: Bool { state.withLock { $0.pauseLine != nil } }

    /// Pauses if a complete line of `text` is the one `pause(afterLine:)` waits for.
    func pauseIfLineCame(in text: String) {
        guard let line = state.withLock({ $0.pauseLine }) else { return }
        guard text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains(where: line) else { return }
        state.withLock { state in
            state.pauseLine = nil
            state.paused = true
        }
    }

    func resume() {
        let wake = state.withLock { state -> Bool in
            state.paused = false
            defer { state.waiting = false }
            return state.waiting
        }
        if wake { opened.signal() }
    }

    /// Returns at once unless paused; then once resumed (on the reader's own thread, never the cooperative pool).
    func pass() {
        while state.withLock({ state -> Bool in
            state.waiting = state.paused
            return state.paused
        }) {
            opened.wait()
        }
    }
}
