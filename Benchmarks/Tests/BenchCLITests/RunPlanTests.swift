import BenchCore
import Foundation
import Testing
@testable import BenchCLI

/// What `RunPlan.prepare` checks before anything is measured.
@Suite("Run plan")
struct RunPlanTests {
    /// Benchmarks/Tests/BenchCLITests/ -> Profiles/
    static let profiles = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Profiles").path

    static let machine = MachineLimits(memoryBytes: 24 * 1024 * 1024 * 1024, memorySource: "test")

    /// A fresh directory, removed after `body`.
    func withDirectory(_ body: (URL) throws -> Void) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fsbench-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        try body(url)
    }

    func plan(_ arguments: [String], machine: MachineLimits = machine) throws(UsageError) -> RunPlan {
        guard case .command(let command) = try FSBenchTool.parse(arguments + ["--profiles-dir", Self.profiles]) else {
            throw UsageError("printed the help")
        }
        return try RunPlan.prepare(command, machine: machine, now: Date(timeIntervalSince1970: 0))
    }

    func error(_ arguments: [String], machine: MachineLimits = machine) -> String? {
        do {
            _ = try plan(arguments, machine: machine)
            Issue.record("\(arguments) was accepted")
            return nil
        } catch {
            return error.description
        }
    }

    @Test("Unknown strategies and profiles list the valid ones")
    func unknownNames() {
        #expect(error(["--strategy", "no-such"])?.contains("unknown strategy 'no-such'; valid strategies: full-copy, reswift-like") == true)
        #expect(error(["--profile", "no-such"])?.contains("unknown profile 'no-such'; valid profiles: bulk-edit, burst") == true)
        #expect(error(["--profile", "missing/my.json"])?.contains("profile file 'missing/my.json' does not exist") == true)
    }

    @Test("The js-framework set runs on its own with --profiles-dir, in its order; the default run leaves it out; the self-test checks it")
    func profileSets() throws {
        let set = Self.profiles + "/js-framework"
        #expect(ProfileCatalog.sets(in: Self.profiles) == [set])
        guard case .command(let command) = try FSBenchTool.parse(["--quick", "--results", "JS.md", "--profiles-dir", set]) else {
            Issue.record("printed the help"); return
        }
        let js = try RunPlan.prepare(command, machine: Self.machine, now: Date(timeIntervalSince1970: 0))
        #expect(js.profiles.map(\.name) == ["js-create-1k", "js-replace-1k", "js-update-10th-10k", "js-select-1k", "js-swap-1k", "js-remove-1k", "js-create-10k", "js-append-1k-to-10k", "js-clear-1k"])
        #expect(js.resultsPath == "JS.md" && js.defaultOutputDirectory == nil)
        #expect(js.strategies == StrategyCatalog.names)

        let main = try plan(["--quick"])
        #expect(!main.profiles.contains { $0.name.hasPrefix("js-") })
        let selfTest = try plan(["--self-test"])
        #expect(selfTest.profiles.filter { $0.name.hasPrefix("js-") }.count == 9)
        #expect(selfTest.profiles.count == main.profiles.count + 9)
    }

    @Test("The default run keeps its results under bench-results/, not in the committed docs")
    func defaultOutputs() throws {
        let quick = try plan(["--quick"])
        #expect(quick.defaultOutputDirectory?.hasPrefix("bench-results/1970-01-01-") == true)
        #expect(quick.defaultOutputDirectory?.hasSuffix("-quick") == true)
        #expect(quick.resultsPath == quick.defaultOutputDirectory.map { "\($0)/RESULTS.md" })
        #expect(quick.jsonPath == quick.defaultOutputDirectory.map { "\($0)/results.json" })
        #expect(quick.chartDirectory == quick.defaultOutputDirectory)

        let published = try plan(["--publish"])
        #expect(published.resultsPath == "docs/benchmarks/RESULTS.md")
        #expect(published.chartDirectory == "docs/benchmarks")
        #expect(published.defaultOutputDirectory == nil)

        let chosen = try plan(["--quick", "--json", "out.json"])
        #expect(chosen.resultsPath == nil && chosen.chartDirectory == nil && chosen.jsonPath == "out.json")
    }

    @Test("Output paths are checked before measuring")
    func outputPaths() throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("file.txt").path
            #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
            #expect(error(["--quick", "--results", "\(file)/RESULTS.md"])?.contains("--results '\(file)/RESULTS.md': '\(file)' is a file, so the directory cannot be created") == true)
            #expect(error(["--quick", "--results", directory.path])?.contains("--results '\(directory.path)' is a directory; give a file path") == true)
            #expect(error(["--quick", "--chart-dir", file])?.contains("--chart-dir '\(file)' is a file, not a directory") == true)
            #expect(error(["--quick", "--json", ""])?.contains("--json expects a file path") == true)
            // Missing directories are fine: they are created.
            _ = try plan(["--quick", "--results", directory.appendingPathComponent("new/dir/RESULTS.md").path])
        }
    }

    @Test("Output paths in a read-only directory are refused", .enabled(if: getuid() != 0, "root may write anywhere"))
    func readOnly() throws {
        try withDirectory { directory in
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path) }
            #expect(error(["--quick", "--results", directory.appendingPathComponent("r.md").path])?.contains("is not writable") == true)
        }
    }

    @Test("The thresholds file is read and checked against the run before measuring")
    func thresholds() throws {
        try withDirectory { directory in
            let missing = directory.appendingPathComponent("none.json").path
            #expect(error(["--quick", "--check", missing])?.contains("--check '\(missing)': cannot read it") == true)
            let broken = directory.appendingPathComponent("broken.json")
            try Data("{\"subject\": 1}".utf8).write(to: broken)
            #expect(error(["--quick", "--check", broken.path])?.contains("--check '\(broken.path)': not a thresholds file") == true)
            let ci = Self.profiles + "/../Benchmarks/Thresholds/ci.json"
            _ = try plan(["--quick", "--check", ci])
            #expect(error(["--quick", "--check", ci, "--profile", "todo"])?.contains("checks[2] is about profile 'feed', which this run does not measure") == true)
            #expect(error(["--quick", "--check", ci, "--no-sweep"])?.contains("checks[0] needs profile 'todo' at 10000 entities; this run measures it at 1000") == true)
            #expect(error(["--quick", "--check", ci, "--strategy", "faststore"])?.contains("does not measure 'full-copy'") == true)
            // A check with its own pair needs both measured.
            let pair = directory.appendingPathComponent("pair.json")
            try Data(#"{"subject": "faststore", "reference": "full-copy", "checks": [{"profile": "todo", "subject": "faststore", "reference": "faststore-shared", "maxMeanRatio": 1.2}]}"#.utf8).write(to: pair)
            _ = try plan(["--quick", "--check", pair.path, "--profile", "todo", "--strategy", "faststore", "--strategy", "full-copy", "--strategy", "faststore-shared"])
            #expect(error(["--quick", "--check", pair.path, "--profile", "todo", "--strategy", "faststore", "--strategy", "full-copy"])?
                .contains("checks[0] compares 'faststore' with 'faststore-shared', and this run does not measure 'faststore-shared'") == true)
        }
    }

    @Test("A check may name its own pair and bound the mean time per dispatch")
    func pairAndMean() throws {
        let data = Data(#"{"subject": "faststore", "reference": "full-copy", "checks": [{"profile": "todo", "entities": 1000, "subject": "faststore", "reference": "faststore-shared", "maxMeanRatio": 1.2}]}"#.utf8)
        let thresholds = try JSONDecoder().decode(Thresholds.self, from: data)
        let spec = try ProfileLoader.parse(Data(ProfileFixtures.valid.utf8), file: "valid.json")
        var todo = spec
        todo.name = "todo"
        func cell(_ strategy: String, median: Double, throughput: Double) -> CellResult {
            var r = CellResult(profile: "todo", strategy: strategy, entities: 1000, medianNs: median)
            r.throughput = throughput
            return r
        }
        // Means 11 µs against 10 µs: 1.1, within 1.2 (the full-copy
        // reference of the file is not used).
        let within = [cell("faststore", median: 100_000, throughput: 1e9 / 11_000), cell("faststore-shared", median: 1, throughput: 1e9 / 10_000)]
        #expect(CIChecker.run(thresholds, results: within, profiles: [todo], quick: true))
        // 13 µs against 10 µs: 1.3.
        let over = [cell("faststore", median: 1, throughput: 1e9 / 13_000), cell("faststore-shared", median: 1, throughput: 1e9 / 10_000)]
        #expect(!CIChecker.run(thresholds, results: over, profiles: [todo], quick: true))
        // No result for the check's reference: a failure, not a pass.
        #expect(!CIChecker.run(thresholds, results: [within[0]], profiles: [todo], quick: true))
    }

    @Test("A profile too large for the machine is refused before measuring, naming the field")
    func memoryBudget() throws {
        let small = MachineLimits(memoryBytes: 1024 * 1024 * 1024, memorySource: "test machine")
        // todo at 1,000,000 entities: Observation's registrations for the
        // list screen (consumers[1]) need more than 80 % of 1 GiB.
        let message = try #require(error(["--profile", "todo"], machine: small))
        #expect(message.contains("profile too large for this machine:"), "\(message)")
        #expect(message.contains("field 'consumers[1].count'"), "\(message)")
        #expect(message.contains("at 1,000,000 entities (sweep[3])"), "\(message)")
        // Without the sweep, or in quick mode, or without the Observation
        // strategies, it fits.
        _ = try plan(["--profile", "todo", "--no-sweep"], machine: small)
        _ = try plan(["--profile", "todo", "--quick"], machine: small)
        _ = try plan(["--profile", "todo", "--strategy", "faststore", "--strategy", "full-copy"], machine: small)
    }
}
