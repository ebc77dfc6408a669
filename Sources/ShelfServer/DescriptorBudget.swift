import Glibc

/// Keeps the server clear of EMFILE: raises the soft limit on open files towards the hard one (as Redis does for
/// `maxclients`), and caps the connections served so that `reserve` descriptors stay free for the store, the
/// reactor and the runtime's own threads — running out of them in the middle of those is what must never happen.
enum DescriptorBudget {
    /// Descriptors kept free for everything but the connections served; a quarter of them may be held by refused
    /// connections closing gracefully (`Server.maxLingeringRefusals`).
    static let reserve = 32

    /// The connections that can be served under the open-file limit, at most `wanted` (and at least 1).
    /// - Returns: the cap, and the limit it came from.
    static func connections(wanted: Int) -> (cap: Int, limit: Int) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (wanted, -1) }
        let needed = rlim_t(wanted + reserve)
        if limit.rlim_cur < needed {
            var raised = limit
            raised.rlim_cur = min(needed, limit.rlim_max)
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let available = limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(clamping: limit.rlim_cur)
        return (max(1, min(wanted, available - reserve)), available == Int.max ? -1 : available)
    }
}

/// One descriptor held open (on `/dev/null`) so that there is one to give up when `accept` fails with `EMFILE`: the
/// classic way to answer and close a connection the process has no descriptor for.
struct ReserveDescriptor: ~Copyable {
    private var fd: Int32 = -1

    /// Opens the reserve if it is not open; stays without one when that fails (out of descriptors).
    mutating func reopen() {
        guard fd < 0 else { return }
        fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    /// Closes the reserve, freeing its descriptor.
    /// - Returns: whether it was open.
    @discardableResult
    mutating func release() -> Bool {
        guard fd >= 0 else { return false }
        _ = close(fd)
        fd = -1
        return true
    }

    deinit {
        if fd >= 0 { _ = close(fd) }
    }
}
