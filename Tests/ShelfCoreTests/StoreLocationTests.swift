import ShelfCore
import Testing

/// `StoreLocation.defaultPath`: SHELF_DATA_DIR, then XDG_DATA_HOME, then HOME; empty values count as unset.
struct StoreLocationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let environment: [String: String]
        let path: String?

        var testDescription: String { "\(environment.sorted { $0.key < $1.key }) -> \(path ?? "nil")" }
    }

    static let cases: [Case] = [
        Case(environment: ["SHELF_DATA_DIR": "/data", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"],
             path: "/data/reading-list.json"),
        Case(environment: ["SHELF_DATA_DIR": "/data/"], path: "/data/reading-list.json"),
        Case(environment: ["XDG_DATA_HOME": "/xdg", "HOME": "/home/u"], path: "/xdg/shelf/reading-list.json"),
        Case(environment: ["SHELF_DATA_DIR": "", "XDG_DATA_HOME": "/xdg/", "HOME": "/home/u"],
             path: "/xdg/shelf/reading-list.json"),
        Case(environment: ["HOME": "/home/u"], path: "/home/u/.local/share/shelf/reading-list.json"),
        Case(environment: ["SHELF_DATA_DIR": "", "XDG_DATA_HOME": "", "HOME": "/home/u/"],
             path: "/home/u/.local/share/shelf/reading-list.json"),
        Case(environment: ["SHELF_DATA_DIR": "", "XDG_DATA_HOME": "", "HOME": ""], path: nil),
        Case(environment: ["PATH": "/usr/bin"], path: nil),
        Case(environment: [:], path: nil),
    ]

    @Test("the default path follows SHELF_DATA_DIR > XDG_DATA_HOME > HOME, ignoring empty values", arguments: cases)
    func precedence(testCase: Case) {
        #expect(StoreLocation.defaultPath(environment: testCase.environment) == testCase.path)
    }
}
