// swift-tools-version: 6.2
import PackageDescription

// The modules are layers and each uses only the ones below it: README.md, "Inside", describes them; the
// LayeringTests check the dependencies below against that order.
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
        .systemLibrary(name: "CCRC32C", path: "Sources/CCRC32C"),
        .target(name: "ShelfSockets", dependencies: ["CEpoll"]),
        .target(name: "ShelfJSON"),
        // Release builds skip the run-time exclusivity checks in ShelfCore and ShelfServer, whose state is
        // touched only on its actor or the serving loop: swift_beginAccess on their stored properties was 1,369
        // of 35,455 instructions per memory add under callgrind (scripts/bench-instructions). Debug builds, and
        // so every test run, keep them.
        .target(
            name: "ShelfCore", dependencies: ["ShelfJSON", "CCRC32C"],
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        .target(name: "ShelfWire", dependencies: ["ShelfJSON", "ShelfCore"]),
        .target(
            name: "ShelfServer", dependencies: ["ShelfJSON", "ShelfCore", "ShelfWire", "ShelfSockets"],
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        .target(name: "ShelfClient", dependencies: ["ShelfJSON", "ShelfCore", "ShelfWire", "ShelfSockets"]),
        .target(name: "ShelfCommandLine", dependencies: ["ShelfJSON"]),
        .target(
            name: "ShelfLiveView",
            dependencies: ["ShelfCommandLine", "ShelfClient", "ShelfWire", "ShelfCore", "ShelfJSON", "ShelfSockets"]),
        // The client's command line does not link the server, nor the server's the client.
        .target(
            name: "ShelfCLI",
            dependencies: ["ShelfLiveView", "ShelfCommandLine", "ShelfClient", "ShelfWire", "ShelfCore", "ShelfJSON", "ShelfSockets"]),
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
        .testTarget(name: "ShelfWireTests", dependencies: ["ShelfJSON", "ShelfCore", "ShelfWire", "ShelfTestSupport"]),
        .testTarget(name: "ShelfServerTests", dependencies: ["ShelfJSON", "ShelfServer", "ShelfClient", "ShelfTestSupport"]),
        .testTarget(name: "ShelfLiveViewTests", dependencies: ["ShelfLiveView", "ShelfCommandLine", "ShelfTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "ShelfCLITests", dependencies: ["ShelfCLI", "ShelfdCLI", "ShelfCommandLine", "ShelfTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["shelfd", "shelf", "ShelfTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
