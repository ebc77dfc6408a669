import Foundation
import Testing

/// README.md's "Inside" table against Package.swift: the table lists every module, and each module uses only modules
/// of layers below its own.
struct LayeringTests {
    /// Where the module column starts in the table.
    private static let moduleColumn = 15

    /// The modules of each layer, top first, as the table lists them (up to its first blank line). A line that starts
    /// with a label starts a layer; a line that starts with spaces adds to it, or continues a description.
    static func readmeLayers() throws -> [[String]] {
        var layers: [[String]] = []
        for line in try RepositoryFiles.readmeBlock(after: "## Inside") {
            if line.isEmpty { break }
            let characters = Array(line)
            guard characters.count > moduleColumn, characters[moduleColumn] != " " else { continue }
            let cell = String(characters[moduleColumn...]).components(separatedBy: "  ")[0]
            let modules = cell.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if characters[0] == " ", !layers.isEmpty { layers[layers.count - 1] += modules } else { layers.append(modules) }
        }
        return layers
    }

    /// Each target of Package.swift other than tests and their support, with the targets it depends on.
    static func packageTargets() throws -> [String: [String]] {
        let text = try RepositoryFiles.text("Package.swift")
        let declaration = #/\.(?:target|executableTarget)\(\s*name:\s*"([^"]+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?(,\s*path:\s*"Tests/)?/#
        var targets: [String: [String]] = [:]
        for match in text.matches(of: declaration) where match.output.3 == nil {
            targets[String(match.output.1)] = (match.output.2 ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\""))
            }
        }
        return targets
    }

    /// The C header shims, each with the one module that may use it.
    static let shims = ["CEpoll": "ShelfSockets", "CCRC32C": "ShelfCore"]

    @Test("the Inside table lists each module of Package.swift once, and each uses only modules of lower layers")
    func dependenciesPointDown() throws {
        let layers = try Self.readmeLayers()
        let targets = try Self.packageTargets()
        let listed = layers.flatMap { $0 }
        #expect(listed.count == Set(listed).count, "\(layers)")
        #expect(Set(listed) == Set(targets.keys), "README: \(listed.sorted()); Package.swift: \(targets.keys.sorted())")
        let layerOf = Dictionary(layers.enumerated().flatMap { index, modules in modules.map { ($0, index) } }) { first, _ in first }
        for (module, dependencies) in targets {
            guard let own = layerOf[module] else { continue }
            for dependency in dependencies {
                // CEpoll is ShelfSockets' C header shim and CCRC32C ShelfCore's, not layers of their own.
                if let owner = Self.shims[dependency] {
                    #expect(module == owner, "\(module) uses \(dependency); only \(owner) may")
                    continue
                }
                let theirs = layerOf[dependency]
                #expect(theirs.map { $0 > own } == true, "\(module) (layer \(own)) uses \(dependency) (layer \(theirs.map(String.init) ?? "none"))")
            }
        }
    }
}
