import Glibc
import ShelfSockets
import Testing

struct SocketErrorTests {
    @Test func failedCallsDescribeTheCallAndErrno() {
        let error = SocketError.failed(call: "accept", errno: EMFILE)
        #expect(error.description == "accept() failed: Too many open files (errno 24)")
    }

    @Test func everyCaseHasADescription() {
        let all: [SocketError] = [
            .closed, .peerClosed, .addressResolution(host: "h", message: "m"), .invalidAddress("x"),
        ]
        for error in all { #expect(!error.description.isEmpty) }
        #expect(SocketError.addressResolution(host: "h", message: "m").description.contains("'h'"))
    }
}
