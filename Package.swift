// swift-tools-version: 6.2
import PackageDescription

// Layers (dependencies point down only; see ../shared/design.md):
//   shelfd, shelf            executables: call ShelfdCLI / ShelfCLI and exit
//   shelf-bench              load generator for scripts/bench (any line protocol: shelfd, redis-server)
//   ShelfdCLI, ShelfCLI      each command's line: options, help, what it prints, its exit statuses
//   ShelfCommandLine         what both share: argument scanning, signals, output streams, exit codes, token files
//   ShelfServer, ShelfClient sessions, listener, limits | connection, request ids
//   ShelfWire                JSON, line framing, JSON-RPC 2.0 messages and method shapes
//   ShelfCore                values, validation, the ReadingList actor, ListStore + adapters
//   ShelfJSON                strict JSON values, parser and writer (the wire and the file formats)
//   ShelfSockets (+ CEpoll)  non-blocking sockets on one epoll reactor thread
let package = Package(
    name: "Shelf",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "shelfd", targets: ["shelfd"]),
        .executable(name: "shelf", targets: ["shelf"]),
        .executable(name: "shelf-bench", targets: ["shelf-bench"]),
    ],
    dependencies: [],
    targets: [
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        .target(name: "ShelfSockets", dependencies: ["CEpoll"]),
        .target(name: "ShelfJSON"),
        // Release builds skip the run-time exclusivity checks in ShelfCore: they were 3-4% of shelfd's CPU per
        // pipelined `add` (swift_beginAccess on the ReadingList actor's stored properties, touched only on its
        // executor). Debug builds, and so every test run, keep them.
        .target(
            name: "ShelfCore", dependencies: ["ShelfJSON"],
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        .target(name: "ShelfWire", dependencies: ["ShelfJSON", "ShelfCore"]),
        .target(name: "ShelfServer", dependencies: ["ShelfJSON", "ShelfCore", "ShelfWire", "ShelfSockets"]),
        .target(name: "ShelfClient", dependencies: ["ShelfJSON", "ShelfCore", "ShelfWire", "ShelfSockets"]),
        .target(name: "ShelfCommandLine", dependencies: ["ShelfJSON"]),
        // The client's command line does not link the server, nor the server's the client.
        .target(
            name: "ShelfCLI",
            dependencies: ["ShelfCommandLine", "ShelfClient", "ShelfWire", "ShelfCore", "ShelfJSON", "ShelfSockets"]),
        .target(
            name: "ShelfdCLI",
            dependencies: ["ShelfCommandLine", "ShelfServer", "ShelfWire", "ShelfCore", "ShelfJSON", "ShelfSockets"]),
        .executableTarget(name: "shelfd", dependencies: ["ShelfdCLI"]),
        .executableTarget(name: "shelf", dependencies: ["ShelfCLI"]),
        .executableTarget(name: "shelf-bench", dependencies: ["ShelfSockets"]),
        // Deadlines shared by the test targets (a test target cannot hold code another one imports).
        .target(name: "ShelfTestSupport", path: "Tests/ShelfTestSupport"),
        .testTarget(name: "ShelfSocketsTests", dependencies: ["ShelfSockets", "ShelfTestSupport"]),
        .testTarget(name: "ShelfCoreTests", dependencies: ["ShelfCore", "ShelfTestSupport"]),
        .testTarget(name: "ShelfJSONTests", dependencies: ["ShelfJSON", "ShelfTestSupport"]),
        .testTarget(name: "ShelfWireTests", dependencies: ["ShelfJSON", "ShelfWire", "ShelfTestSupport"]),
        .testTarget(name: "ShelfServerTests", dependencies: ["ShelfJSON", "ShelfServer", "ShelfClient", "ShelfTestSupport"]),
        .testTarget(name: "ShelfCLITests", dependencies: ["ShelfCLI", "ShelfdCLI", "ShelfCommandLine", "ShelfTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["shelfd", "shelf", "ShelfTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
