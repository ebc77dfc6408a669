import Glibc

/// Repeats a system call while it fails with EINTR (a signal arrived before it finished; nothing was done, so it is
/// safe to repeat — unlike EIO); returns its final result, with errno intact after -1.
@inline(__always)
func retryingEINTR<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result == -1, errno == EINTR { continue }
        return result
    }
}
