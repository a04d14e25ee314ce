import BenchCore
import Foundation

/// A command line that cannot be run: what is wrong, for the user.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Profile files by name, from the profiles directory.
public enum ProfileCatalog {
    /// The order of the shipped profiles in tables; others follow by name.
    static let order = ["todo", "feed", "deep-tree", "many-screens", "screens-100", "screens-100-watched", "screens-1000", "toggle-woken", "toggle-unwatched", "burst", "bulk-edit", "list-edit", "remaining",
                        // Profiles/js-framework/, in js-framework-benchmark's order.
                        "js-create-1k", "js-replace-1k", "js-update-10th-10k", "js-select-1k", "js-swap-1k", "js-remove-1k", "js-create-10k", "js-append-1k-to-10k", "js-clear-1k"]

    /// The profile sets: the subdirectories of `directory` that hold
    /// profiles (`Profiles/js-framework/`), each run with `--profiles-dir`.
    /// A run of `directory` leaves them out; the self-test checks them too.
    public static func sets(in directory: String) -> [String] {
        let url = URL(fileURLWithPath: directory)
        let entries = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: [.isDirectoryKey])) ?? []
        return entries
            .filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true && !available(in: $0.path).isEmpty }
            .map(\.path).sorted()
    }

    public static func available(in directory: String) -> [String: URL] {
        let url = URL(fileURLWithPath: directory)
        let files = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? []
        var byName: [String: URL] = [:]
        for file in files where file.pathExtension == "json" {
            byName[file.deletingPathExtension().lastPathComponent] = file
        }
        return byName
    }

    /// The profile files `requested` names (all when empty), in a stable order.
    public static func resolve(_ requested: [String], directory: String) throws(UsageError) -> [URL] {
        let catalog = available(in: directory)
        if requested.isEmpty {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw UsageError("--profiles-dir '\(directory)' is not a directory")
            }
            guard !catalog.isEmpty else { throw UsageError("no profiles (.json files) in '\(directory)'") }
            return catalog.keys.sorted { (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1) }.map { catalog[$0]! }
        }
        var urls: [URL] = []
        for name in requested {
            if name.hasSuffix(".json") || name.contains("/") {
                guard FileManager.default.fileExists(atPath: name) else {
                    throw UsageError("profile file '\(name)' does not exist")
                }
                urls.append(URL(fileURLWithPath: name))
            } else if let url = catalog[name] {
                urls.append(url)
            } else {
                throw UsageError("unknown profile '\(name)'; valid profiles: \(catalog.keys.sorted().joined(separator: ", ")) (or a path to a .json file)")
            }
        }
        return urls
    }
}

/// Everything a command line resolves to, checked before anything is
/// measured: the profiles (valid, and within the machine's budget at the
/// sizes this run measures), the strategies, the output paths (writable) and
/// the thresholds (readable, and naming profiles and sizes this run has).
public struct RunPlan: Sendable {
    public struct Cell: Sendable {
        public var profile: ProfileSpec
        public var entities: Int
    }

    public var mode: FSBenchCommand.Mode
    public var profiles: [ProfileSpec]
    public var strategies: [String]
    /// Every profile at every size this run measures, in order.
    public var cells: [Cell]
    public var quick: Bool
    public var seconds: Double?
    public var progress: Bool
    public var resultsPath: String?
    public var jsonPath: String?
    public var chartDirectory: String?
    public var checkPath: String?
    public var thresholds: Thresholds?
    /// Where results go when no option said (so that the output names it).
    public var defaultOutputDirectory: String?
    public var command: String?
    public var buildSeconds: Double?
    public var machine: MachineLimits

    /// The directory the default run writes to, under `bench-results/`.
    public static func defaultDirectory(date: Date, quick: Bool) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd-HHmmss"
        return "bench-results/\(formatter.string(from: date))\(quick ? "-quick" : "")"
    }

    /// Resolves and checks `command` (already parsed and validated).
    public static func prepare(_ command: FSBenchCommand, machine: MachineLimits = .current(), now: Date = Date()) throws(UsageError) -> RunPlan {
        var strategies: [String] = []
        for name in command.strategies {
            guard StrategyCatalog.named(name) != nil else {
                throw UsageError("unknown strategy '\(name)'; valid strategies: \(StrategyCatalog.names.joined(separator: ", "))")
            }
            if !strategies.contains(name) { strategies.append(name) }
        }
        if strategies.isEmpty { strategies = StrategyCatalog.names }

        var profiles: [ProfileSpec] = []
        var urls = try ProfileCatalog.resolve(command.profiles, directory: command.profilesDirectory)
        // The self-test of every profile also checks the profile sets
        // (the subdirectories, such as Profiles/js-framework/).
        if command.mode == .selfTest, command.profiles.isEmpty {
            for set in ProfileCatalog.sets(in: command.profilesDirectory) {
                urls += try ProfileCatalog.resolve([], directory: set)
            }
        }
        for url in urls {
            do { profiles.append(try ProfileLoader.load(url)) } catch {
                throw UsageError("invalid profile: \(error)")
            }
        }
        if let duplicate = Dictionary(grouping: profiles, by: \.name).first(where: { $0.value.count > 1 }) {
            throw UsageError("two profiles are named '\(duplicate.key)': \(duplicate.value.map(\.source).joined(separator: ", "))")
        }
        // The budget: at the sizes this run measures (every size for
        // --validate; the self-test runs small sizes of its own).
        if command.mode != .selfTest {
            let quick: Bool? = command.mode == .validate && !command.quick ? nil : command.quick
            for p in profiles {
                do {
                    try ProfileBudget.check(p, sizes: ProfileBudget.sizes(of: p, quick: quick, sweep: !command.noSweep), strategies: strategies, machine: machine)
                } catch {
                    throw UsageError("profile too large for this machine: \(error)")
                }
            }
        }

        var cells: [Cell] = []
        for p in profiles {
            let main = command.quick ? p.quickEntities : p.entities
            let sweep = command.noSweep ? [] : (command.quick ? p.quickSweep : p.sweep)
            for size in Set(sweep + [main]).sorted() { cells.append(Cell(profile: p, entities: size)) }
        }

        var plan = RunPlan(
            mode: command.mode, profiles: profiles, strategies: strategies, cells: cells, quick: command.quick,
            seconds: command.seconds, progress: command.progress,
            resultsPath: command.resultsPath, jsonPath: command.jsonPath, chartDirectory: command.chartDirectory,
            checkPath: command.checkPath, thresholds: nil, defaultOutputDirectory: nil,
            command: command.command, buildSeconds: command.buildSeconds, machine: machine)
        guard command.mode == .measure else { return plan }

        if command.publish {
            plan.resultsPath = "docs/benchmarks/RESULTS.md"
            plan.chartDirectory = "docs/benchmarks"
        } else if plan.resultsPath == nil && plan.jsonPath == nil && plan.chartDirectory == nil {
            let directory = defaultDirectory(date: now, quick: command.quick)
            plan.defaultOutputDirectory = directory
            plan.resultsPath = "\(directory)/RESULTS.md"
            plan.jsonPath = "\(directory)/results.json"
            plan.chartDirectory = directory
        }
        if let path = plan.resultsPath { try OutputPath.checkFile(path, option: command.publish ? "--publish" : "--results") }
        if let path = plan.jsonPath { try OutputPath.checkFile(path, option: "--json") }
        if let path = plan.chartDirectory { try OutputPath.checkDirectory(path, option: command.publish ? "--publish" : "--chart-dir") }
        if let path = command.checkPath {
            let thresholds = try Thresholds.load(path)
            try thresholds.checkCovered(by: plan)
            plan.thresholds = thresholds
        }
        return plan
    }
}

/// Checks that an output can be written, before a run spends minutes
/// measuring what it would then fail to save.
public enum OutputPath {
    /// `path` is a file that can be created or replaced: not a directory,
    /// writable if it exists, and its nearest existing ancestor a writable
    /// directory (missing directories are created).
    public static func checkFile(_ path: String, option: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError("\(option) expects a file path, found an empty one") }
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard !isDirectory.boolValue else { throw UsageError("\(option) '\(path)' is a directory; give a file path") }
            guard manager.isWritableFile(atPath: path) else { throw UsageError("\(option) '\(path)' exists and is not writable") }
            return
        }
        try checkAncestor(of: path, option: option)
    }

    /// `path` is a writable directory, or can be created.
    public static func checkDirectory(_ path: String, option: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError("\(option) expects a directory, found an empty path") }
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw UsageError("\(option) '\(path)' is a file, not a directory") }
            guard manager.isWritableFile(atPath: path) else { throw UsageError("\(option) '\(path)' is not writable") }
            return
        }
        try checkAncestor(of: path, option: option)
    }

    static func checkAncestor(of path: String, option: String) throws(UsageError) {
        let manager = FileManager.default
        var ancestor = URL(fileURLWithPath: path).deletingLastPathComponent()
        while !manager.fileExists(atPath: ancestor.path) && ancestor.path != "/" {
            ancestor.deleteLastPathComponent()
        }
        var isDirectory: ObjCBool = false
        _ = manager.fileExists(atPath: ancestor.path, isDirectory: &isDirectory)
        guard isDirectory.boolValue else {
            throw UsageError("\(option) '\(path)': '\(ancestor.path)' is a file, so the directory cannot be created")
        }
        guard manager.isWritableFile(atPath: ancestor.path) else {
            throw UsageError("\(option) '\(path)': the directory '\(ancestor.path)' is not writable")
        }
    }
}
