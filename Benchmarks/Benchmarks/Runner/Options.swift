import Foundation
import StrategyKit

/// Command-line options of `fsbench`.
struct Options {
    var quick = false
    var profiles: [String] = []
    var strategies: [String] = []
    var profilesDirectory = "Profiles"
    var sweep = true
    var resultsPath: String?
    var chartDirectory: String?
    var jsonPath: String?
    var checkPath: String?
    var validate = false
    var selfTest = false
    var list = false
    var progress = true
    var seconds: Double?
    var command: String?
    var buildSeconds: Double?

    static let usage = """
    usage: fsbench [--quick] [--profile NAME|FILE.json]... [--strategy NAME]...
                   [--no-sweep] [--seconds S] [--results FILE.md] [--chart-dir DIR]
                   [--json FILE] [--check THRESHOLDS.json] [--profiles-dir DIR]
                   [--no-progress] [--command TEXT] [--build-seconds S]
           fsbench --validate [--profile NAME|FILE.json]...
           fsbench --self-test
           fsbench --list

    Runs every strategy on every profile (default: all of Profiles/*.json) and
    prints a table. --quick uses each profile's small "quick" sizes.
    Exit status: 0 done, 1 a --check or --self-test failed, 2 bad arguments or profile.
    """

    struct UsageError: Error, CustomStringConvertible { var description: String }

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let v = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return v
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": options.quick = true
            case "--profile": options.profiles.append(try value(argument))
            case "--strategy": options.strategies.append(try value(argument))
            case "--profiles-dir": options.profilesDirectory = try value(argument)
            case "--no-sweep": options.sweep = false
            case "--results": options.resultsPath = try value(argument)
            case "--chart-dir": options.chartDirectory = try value(argument)
            case "--json": options.jsonPath = try value(argument)
            case "--check": options.checkPath = try value(argument)
            case "--validate": options.validate = true
            case "--self-test": options.selfTest = true
            case "--list": options.list = true
            case "--no-progress": options.progress = false
            case "--command": options.command = try value(argument)
            case "--seconds":
                let text = try value(argument)
                guard let s = Double(text), s > 0 else { throw UsageError(description: "--seconds expects a positive number, found '\(text)'") }
                options.seconds = s
            case "--build-seconds":
                let text = try value(argument)
                guard let s = Double(text), s >= 0 else { throw UsageError(description: "--build-seconds expects a number, found '\(text)'") }
                options.buildSeconds = s
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                throw UsageError(description: "unknown argument '\(argument)'")
            }
        }
        return options
    }
}

/// Profile files by name, from the profiles directory.
enum ProfileCatalog {
    static func available(in directory: String) -> [String: URL] {
        let url = URL(fileURLWithPath: directory)
        let files = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? []
        var byName: [String: URL] = [:]
        for file in files where file.pathExtension == "json" {
            byName[file.deletingPathExtension().lastPathComponent] = file
        }
        return byName
    }

    /// The profile files `requested` names (all when empty), in a stable order.
    static func resolve(_ requested: [String], directory: String) throws(Options.UsageError) -> [URL] {
        let catalog = available(in: directory)
        if requested.isEmpty {
            guard !catalog.isEmpty else { throw .init(description: "no profiles found in '\(directory)'") }
            let order = ["todo", "feed", "deep-tree", "many-screens", "burst", "bulk-edit", "list-edit"]
            return catalog.keys.sorted { (order.firstIndex(of: $0) ?? 99, $0) < (order.firstIndex(of: $1) ?? 99, $1) }.map { catalog[$0]! }
        }
        var urls: [URL] = []
        for name in requested {
            if name.hasSuffix(".json") || name.contains("/") {
                guard FileManager.default.fileExists(atPath: name) else {
                    throw .init(description: "profile file '\(name)' does not exist")
                }
                urls.append(URL(fileURLWithPath: name))
            } else if let url = catalog[name] {
                urls.append(url)
            } else {
                throw .init(description: "unknown profile '\(name)'; valid profiles: \(catalog.keys.sorted().joined(separator: ", ")) (or a path to a .json file)")
            }
        }
        return urls
    }
}
