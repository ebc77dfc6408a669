import Glibc

/// Restores the terminal if the process dies of a fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT: a
/// crash, a Swift runtime trap) while the view is on screen, then lets the signal do what it did before (the
/// runtime's backtrace, the core dump). The handler makes only async-signal-safe calls (`tcsetattr`, `write`,
/// `sigaction`) on memory set up beforehand.
enum CrashRestore {
    static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT]

    /// The settings to restore and the fd, read by the handler; `armed` says they hold.
    private nonisolated(unsafe) static var saved = termios()
    private nonisolated(unsafe) static var fd: Int32 = -1
    private nonisolated(unsafe) static var armed: Int32 = 0
    /// The actions found before, by signal number, put back before the signal is raised again.
    private nonisolated(unsafe) static let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)

    /// From now on, a fault restores `settings` on `fd` first. Called on the screen's thread as it enters.
    static func arm(_ settings: termios, fd: Int32) {
        armed = 0
        saved = settings
        self.fd = fd
        armed = 1
        guard !installed else { return }
        installed = true
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = { number, _, _ in CrashRestore.handle(number) }
            action.sa_flags = SA_SIGINFO
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, previous + Int(number))
        }
    }

    /// The terminal was restored the ordinary way: nothing to do on a fault.
    static func disarm() {
        armed = 0
    }

    private nonisolated(unsafe) static var installed = false

    private static func handle(_ number: Int32) {
        if armed == 1 {
            armed = 0
            _ = ScreenWriter.leaveBytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            _ = tcsetattr(fd, TCSANOW, &saved)
        }
        // The earlier action takes the signal, raised again, as soon as this handler returns (a fault would
        // also happen again; a signal sent by kill would not).
        sigaction(number, previous + Int(number), nil)
        raise(number)
    }
}
