import Glibc

/// The local time of day as `HH:MM:SS`, for the start of `shelf watch`'s change lines on a terminal.
enum LocalTime {
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "--:--:--" }
        return format(hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
    }

    static func format(hour: Int, minute: Int, second: Int) -> String {
        [hour, minute, second].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
    }
}
