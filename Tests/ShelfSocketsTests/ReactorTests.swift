import CEpoll
import Foundation
@testable import ShelfSockets
import Testing
import ShelfTestSupport

struct ReactorTests {
    @Test func epollEventDataSurvivesThePackedLayout() {
        #if arch(x86_64)
        #expect(MemoryLayout<epoll_event>.size == 12)
        #endif
        let id: UInt64 = 0x1122_3344_5566_7788
        let event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: id))
        #expect(event.data.u64 == id)
        #expect(event.events == EPOLLIN.rawValue)
    }

    @Test("the reactor's thread is called shelf-reactor, for top -H, ps -L and perf")
    func reactorThreadIsNamed() async throws {
        let name = await Task(executorPreference: Reactor.shared.executor) {
            try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        }.value
        #expect(name == "shelf-reactor\n")
    }

    @Test func inputWakesOnlyTheReadDirection() {
        let registration = Registration(id: 1)
        registration.deliver(events: EPOLLIN.rawValue)
        #expect(registration.readable.isReady)
        #expect(!registration.writable.isReady)
    }

    @Test func outputWakesOnlyTheWriteDirection() {
        let registration = Registration(id: 1)
        registration.deliver(events: EPOLLOUT.rawValue)
        #expect(!registration.readable.isReady)
        #expect(registration.writable.isReady)
    }

    @Test(arguments: [EPOLLERR.rawValue, EPOLLHUP.rawValue])
    func errorsAndHangUpsWakeBothDirections(mask: UInt32) {
        let registration = Registration(id: 1)
        registration.deliver(events: mask)
        #expect(registration.readable.isReady)
        #expect(registration.writable.isReady)
    }

    @Test func aPrivateReactorDrivesAConnection() async throws {
        let reactor = try Reactor()
        let pair = try await LoopbackPair.make(reactor: reactor)
        defer { pair.close() }
        try await withDeadline {
            try await pair.client.write([1, 2, 3])
            #expect(try await pair.server.read(exactly: 3) == [1, 2, 3])
        }
    }
}
