import Foundation
import ShelfCore
import Synchronization

/// Owns the terminal's output and settings, on a thread of its own (a write to a terminal that is not read can
/// block): it enters and leaves the view (raw mode, alternate screen, bracketed paste), and draws the latest model
/// as the diff against the frame last drawn, in one write. Models published faster than it draws are coalesced:
/// only the latest is drawn.
final class ScreenWriter: Sendable {
    private enum Request {
        /// Save the settings, go raw, switch to the alternate screen; draw everything next.
        case enter
        /// Back to the settings saved and the normal screen.
        case leave(CheckedContinuation<Void, Never>)
    }

    private struct State {
        var model: ListViewModel?
        var size = (width: 80, height: 24)
        var dirty = false
        var requests: [Request] = []
        var stopped = false
    }

    private let fd: Int32
    private let color: Bool
    private let renderer: FrameRenderer
    private let state = Mutex(State())
    private let work = DispatchSemaphore(value: 0)

    /// What entering the view writes: alternate screen, bracketed paste on, autowrap off (a row drawn to the last
    /// column must not scroll the screen).
    static let enterBytes = Array("\u{1b}[?1049h\u{1b}[?2004h\u{1b}[?7l".utf8)
    /// What leaving writes: every mode set on entering, undone, and the cursor shown.
    static let leaveBytes = Array("\u{1b}[0m\u{1b}[?7h\u{1b}[?2004l\u{1b}[?25h\u{1b}[?1049l".utf8)

    /// A writer to the terminal on `fd`; `color` false draws without colours (`NO_COLOR`).
    init(fd: Int32, color: Bool, renderer: FrameRenderer) {
        self.fd = fd
        self.color = color
        self.renderer = renderer
        Thread.detachNewThread { [self] in run() }
    }

    /// Enters the view (again after a suspension: the settings are saved afresh, as the shell may have changed
    /// them meanwhile; when the view is still entered, raw mode is applied again and everything redrawn).
    func enter() {
        state.withLock { $0.requests.append(.enter) }
        work.signal()
    }

    /// Leaves the view; returns once the terminal is restored.
    func leave() async {
        await withCheckedContinuation { continuation in
            state.withLock { $0.requests.append(.leave(continuation)) }
            work.signal()
        }
    }

    /// Draws `model` when the thread gets to it.
    func show(_ model: ListViewModel) {
        state.withLock { state in
            state.model = model
            state.dirty = true
        }
        work.signal()
    }

    /// The terminal's size now; the next frame is drawn at it.
    func measure() -> (width: Int, height: Int) {
        let size = TTY.size(fd)
        state.withLock { state in
            state.size = size
            state.dirty = true
        }
        work.signal()
        return size
    }

    /// Ends the thread once it has done what is asked.
    func stop() {
        state.withLock { $0.stopped = true }
        work.signal()
    }

    private func run() {
        var saved: termios?
        var last: Frame?
        var entered = false
        while true {
            work.wait()
            let (requests, model, size, dirty, stopped) = state.withLock { state in
                defer {
                    state.requests.removeAll()
                    state.dirty = false
                }
                return (state.requests, state.model, state.size, state.dirty, state.stopped)
            }
            for request in requests {
                switch request {
                case .enter:
                    // Entered already (continued after a stop it did not see coming): raw mode again, over the
                    // settings saved before, not over its own.
                    if !entered { saved = TTY.settings(fd) ?? saved }
                    if let saved {
                        CrashRestore.arm(saved, fd: fd)
                        TTY.apply(TTY.raw(saved), to: fd)
                    }
                    TTY.write(Self.enterBytes, to: fd)
                    last = nil
                    entered = true
                case .leave(let done):
                    if entered {
                        TTY.write(Self.leaveBytes, to: fd)
                        if let saved { TTY.apply(saved, to: fd) }
                        CrashRestore.disarm()
                    }
                    entered = false
                    done.resume()
                }
            }
            if entered, let model, dirty || last == nil {
                let frame = renderer.frame(model, width: size.width, height: size.height)
                if frame != last {
                    TTY.write(FrameDiff.bytes(from: last, to: frame, color: color), to: fd)
                    last = frame
                }
            }
            if stopped { return }
        }
    }
}
