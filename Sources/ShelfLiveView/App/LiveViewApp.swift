import Foundation
import Glibc
import ShelfCommandLine
import ShelfCore

/// `shelf ui` (and `shelf` with no command on a terminal): the full-screen live view on the process's terminal.
///
/// Raw mode and the alternate screen are entered at the start and restored exactly (the settings saved first) on
/// every way out: `q`, Ctrl-C, SIGINT, SIGTERM, and around a suspension (Ctrl-Z or SIGTSTP: restored, then
/// stopped; on `fg` entered again and redrawn). SIGWINCH redraws at the new size.
public enum LiveViewApp {
    /// Why the view cannot start on this terminal, if it cannot: `nil` when it can.
    public static func refusal(environment: [String: String]) -> String? {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            return "the live view needs a terminal (standard input and output); use shelf list or shelf watch"
        }
        let term = environment["TERM"] ?? ""
        if term.isEmpty || term == "dumb" {
            return "the live view needs a terminal that can move the cursor (TERM is \(term.isEmpty ? "not set" : "dumb")); use shelf list or shelf watch"
        }
        return nil
    }

    /// Runs the view over `repository` until it is quit; `title` names the server in the header.
    /// - Returns: the exit status, 0.
    public static func run(repository: any ListRepository, title: String, environment: [String: String]) async -> Int32 {
        guard let reader = KeyReader(fd: STDIN_FILENO) else { return 1 }
        let color = environment["NO_COLOR"].map(\.isEmpty) ?? true
        let screen = ScreenWriter(fd: STDOUT_FILENO, color: color, renderer: FrameRenderer(title: title))
        let signals = SignalEvents([SIGINT, SIGTERM, SIGWINCH, SIGTSTP, SIGCONT, SIGHUP])
        screen.enter()
        let driver = LiveViewDriver(repository: repository) { screen.show($0) }
        await driver.resize(listRows: FrameRenderer.listRows(height: screen.measure().height))
        let running = Task { await driver.run() }

        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        let keys = Task {
            for await key in reader.keys { sink.yield(.key(key)) }
            sink.yield(.inputEnded)
        }
        let numbers = signals.signals
        let received = Task {
            for await number in numbers { sink.yield(.signal(number)) }
        }
        loop: for await event in events {
            switch event {
            case .key(.control("c")), .inputEnded:
                break loop
            case .key(.control("z")):
                await suspend(screen)
            case .key(let key):
                if !(await driver.press(key)) { break loop }
            case .signal(SIGWINCH):
                await driver.resize(listRows: FrameRenderer.listRows(height: screen.measure().height))
            case .signal(SIGTSTP):
                await suspend(screen)
            case .signal(SIGCONT):
                // Continued after a stop the view did not see coming (SIGSTOP from outside): raw mode again.
                screen.enter()
                await driver.resize(listRows: FrameRenderer.listRows(height: screen.measure().height))
            case .signal:
                break loop
            }
        }
        running.cancel()
        reader.stop()
        keys.cancel()
        received.cancel()
        await screen.leave()
        screen.stop()
        signals.restoreDefaults()
        return 0
    }

    private enum Event: Sendable {
        case key(Key)
        case signal(Int32)
        case inputEnded
    }

    /// Restores the terminal, stops the process as Ctrl-Z would, and enters the view again once continued.
    private static func suspend(_ screen: ScreenWriter) async {
        await screen.leave()
        // SIGSTOP, not SIGTSTP: this process ignores SIGTSTP so that it could restore the terminal first. Sent to
        // this thread (raise), which then stops before it returns: kill(getpid()) may be taken by another thread,
        // and this one would enter the view again before the process stops.
        raise(SIGSTOP)
        screen.enter()
    }
}
