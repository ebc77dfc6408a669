import ShelfSockets
import Testing

struct HostPortTests {
    @Test(arguments: [
        ("127.0.0.1:7453", "127.0.0.1", UInt16(7453)),
        ("[::1]:7453", "::1", 7453),
        ("localhost:0", "localhost", 0),
        ("example.org:65535", "example.org", 65535),
        ("[fe80::1:2]:80", "fe80::1:2", 80),
        ("0.0.0.0:00080", "0.0.0.0", 80),
    ])
    func validAddressesParseIntoHostAndPort(text: String, host: String, port: UInt16) throws {
        let parsed = try HostPort(parsing: text)
        #expect(parsed == HostPort(host: host, port: port))
    }

    @Test(arguments: [
        "", "127.0.0.1", "127.0.0.1:", ":7453", "127.0.0.1:65536", "127.0.0.1:99999999", "127.0.0.1:-1",
        "127.0.0.1:+80", "127.0.0.1:8o", "::1:7453", "[::1]", "[::1]7453", "[]:80", "[::1:80", "::1]:80",
        "[127.0.0.1]:80", "local host:80", "host:80 ", "a[b:80", "[[::1]]:80", "host\u{0}:80", "ho\tst:80",
    ])
    func malformedAddressesAreRejected(text: String) {
        #expect(throws: SocketError.invalidAddress(text)) { try HostPort(parsing: text) }
    }

    @Test(arguments: ["127.0.0.1:7453", "[::1]:7453", "localhost:0", "[2001:db8::5]:1"])
    func descriptionRoundTripsThroughParsing(text: String) throws {
        #expect(try HostPort(parsing: text).description == text)
    }

    @Test func descriptionBracketsIPv6Hosts() {
        #expect(HostPort(host: "::1", port: 5).description == "[::1]:5")
        #expect(HostPort(host: "10.0.0.1", port: 5).description == "10.0.0.1:5")
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.255.0.9", true), ("::1", true), ("localhost", true), ("LocalHost", true),
        ("::ffff:127.0.0.1", true), ("0:0:0:0:0:0:0:1", true),
        ("128.0.0.1", false), ("0.0.0.0", false), ("::", false), ("10.0.0.1", false), ("::2", false),
        ("localhost.example", false), ("example.org", false), ("::ffff:10.0.0.1", false),
    ])
    func loopbackHostsAreRecognised(host: String, isLoopback: Bool) {
        #expect(HostPort(host: host, port: 1).isLoopback == isLoopback)
    }
}
