/// Exit statuses of `shelfd` and `shelf` (README, "Exit codes"; the numbers are BSD sysexits.h's where one fits).
public enum ExitCode: Int32, Sendable {
    /// Success.
    case success = 0
    /// `shelf`: the server refused the request; `shelfd`: it could not start (port in use, bad store).
    case failure = 1
    /// The command line is wrong (EX_USAGE).
    case usage = 64
    /// The server cannot be reached, is full, went away or stopped answering (EX_UNAVAILABLE).
    case unavailable = 69
    /// `shelf`: a conditional change conflicted (`--expect`, `--expect-item`): nothing was written; look again and
    /// retry (EX_TEMPFAIL).
    case temporaryFailure = 75
    /// The server answered something that is not Shelf's protocol (EX_PROTOCOL).
    case protocolError = 76
}
