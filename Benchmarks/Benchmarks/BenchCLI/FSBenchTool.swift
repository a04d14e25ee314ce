import ArgumentParser
import BenchCore
import Foundation

/// What `fsbench` measures with: the strategies and jemalloc, which
/// `fsbench-lite` does not link.
public protocol Measuring {
    /// Measures every strategy of `plan` on every cell, reporting progress
    /// on standard error; returns the results and the seconds measuring took.
    func measure(_ plan: RunPlan) -> (results: [CellResult], seconds: Double)
    /// Checks the harness itself; returns whether every check passed.
    func selfTest(_ plan: RunPlan) -> Bool
    /// The seed the workloads were generated from.
    var seed: UInt64 { get }
}

/// `fsbench` and `fsbench-lite`: parse the command line, check everything a
/// run needs, then list, validate, self-test or measure and write the
/// results.
public enum FSBenchTool {
    /// A parsed command line, or what to print instead.
    public enum Parsed {
        case command(FSBenchCommand)
        /// `--help`: the text to print, exit status 0.
        case help(String)
    }

    /// Parses `arguments`; a usage error carries the whole message
    /// (`fsbench: error: …`, the usage and the hint to `--help`).
    public static func parse(_ arguments: [String], columns: Int? = nil) throws(UsageError) -> Parsed {
        do {
            // NB: `--help` parses as ArgumentParser's own help command.
            guard let command = try FSBenchCommand.parseAsRoot(arguments) as? FSBenchCommand else {
                return .help(FSBenchCommand.helpMessage(columns: columns))
            }
            return .command(command)
        } catch let error as UsageError {
            throw error
        } catch {
            let text = FSBenchCommand.fullMessage(for: error, columns: columns)
            if FSBenchCommand.exitCode(for: error) == .success { return .help(text) }
            var message = text
            if message.hasPrefix("Error: ") { message = String(message.dropFirst("Error: ".count)) }
            throw UsageError("fsbench: error: " + message)
        }
    }

    public static func fail(_ message: String, status: Int32 = 2) -> Never {
        FileHandle.standardError.write(Data("fsbench: error: \(message)\n".utf8))
        exit(status)
    }

    static func note(_ message: String) {
        fflush(nil)  // NB: stdout first, so that the table comes first when both go to one pipe
        FileHandle.standardError.write(Data("fsbench: \(message)\n".utf8))
    }

    /// Runs the command line `arguments` and exits: 0 done, 1 a check
    /// failed, 2 bad arguments or profile. Without `measuring` (the lite
    /// build), only `--help`, `--list` and `--validate` are answered.
    public static func main(_ arguments: [String] = Array(CommandLine.arguments.dropFirst()), measuring: (any Measuring)?) -> Never {
        let command: FSBenchCommand
        do {
            switch try parse(arguments) {
            case .help(let text):
                print(text)
                exit(0)
            case .command(let parsed):
                command = parsed
            }
        } catch {
            FileHandle.standardError.write(Data((error.description.hasSuffix("\n") ? error.description : error.description + "\n").utf8))
            exit(2)
        }

        if command.mode == .list {
            print(Listing.list(profilesDirectory: command.profilesDirectory))
            exit(0)
        }
        if command.mode != .validate && measuring == nil {
            fail("this build (fsbench-lite) answers --help, --list and --validate only; measuring and --self-test need the release runner: scripts/bench.sh \(arguments.joined(separator: " "))")
        }
        let plan: RunPlan
        do { plan = try RunPlan.prepare(command) } catch { fail(error.description) }

        switch plan.mode {
        case .list:
            exit(0)
        case .validate:
            print(Listing.validated(plan))
            exit(0)
        case .selfTest:
            exit(measuring!.selfTest(plan) ? 0 : 1)
        case .measure:
            let (results, seconds) = measuring!.measure(plan)
            let run = RunInfo(
                command: plan.command ?? (["fsbench"] + arguments).joined(separator: " "),
                date: Date(), machine: Report.machine(), runSeconds: seconds, buildSeconds: plan.buildSeconds,
                seed: measuring!.seed, quick: plan.quick, published: plan.resultsPath == "docs/benchmarks/RESULTS.md")
            exit(finish(results, plan: plan, run: run) ? 0 : 1)
        }
    }

    /// Prints the table and writes the results where `plan` says; runs the
    /// CI check. Returns whether the check passed (or there was none).
    static func finish(_ results: [CellResult], plan: RunPlan, run: RunInfo) -> Bool {
        print("")
        print(TerminalTable.render(results), terminator: "")
        print(String(format: "measured in %.1f s", run.runSeconds))

        var charts: [(profile: String, file: String)] = []
        if let directory = plan.chartDirectory {
            for p in plan.profiles {
                let cells = results.filter { $0.profile == p.name }
                guard Set(cells.map(\.entities)).count >= 2 else { continue }
                let file = "scaling-\(p.name).svg"
                write(Chart.svg(profile: p, results: cells, run: run), to: (directory as NSString).appendingPathComponent(file))
                charts.append((p.name, file))
            }
        }
        if let path = plan.resultsPath {
            write(Report.resultsDocument(results, profiles: plan.profiles, run: run, charts: charts), to: path)
        }
        if let path = plan.jsonPath {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do { write(String(decoding: try encoder.encode(results), as: UTF8.self), to: path) } catch {
                fail("cannot encode the results: \(error)", status: 1)
            }
        }
        if let directory = plan.defaultOutputDirectory {
            note("results kept in \(directory)/ (not committed; scripts/bench.sh --publish writes docs/benchmarks/)")
        }
        if let thresholds = plan.thresholds, let path = plan.checkPath {
            if !CIChecker.run(thresholds, results: results, profiles: plan.profiles, quick: plan.quick) {
                note("the CI check failed (thresholds: \(path))")
                return false
            }
        }
        return true
    }

    static func write(_ text: String, to path: String) {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
            note("wrote \(path)")
        } catch {
            fail("cannot write \(path): \(error)", status: 1)
        }
    }
}

/// `--list` and `--validate`.
public enum Listing {
    public static func list(profilesDirectory: String) -> String {
        var out = "strategies:\n"
        for s in StrategyCatalog.all { out += "  \(s.name.padding(toLength: 21, withPad: " ", startingAt: 0)) \(s.summary)\n" }
        out += "profiles (\(profilesDirectory)):\n"
        let catalog = ProfileCatalog.available(in: profilesDirectory)
        if catalog.isEmpty { out += "  (none: no .json files there)\n" }
        for (name, url) in catalog.sorted(by: { $0.key < $1.key }) {
            let description = (try? ProfileLoader.load(url).description) ?? "(invalid: run --validate)"
            out += "  \(name.padding(toLength: 14, withPad: " ", startingAt: 0)) \(description)\n"
        }
        return out
    }

    /// One line per profile: what it is and what it asks of this machine
    /// at its largest size.
    public static func validated(_ plan: RunPlan) -> String {
        var lines: [String] = []
        let quick: Bool? = plan.quick ? true : nil
        for p in plan.profiles {
            let sizes = ProfileBudget.sizes(of: p, quick: quick)
            let estimates = sizes.map { ProfileBudget.estimate(p, at: $0, strategies: plan.strategies) }
            let largest = zip(sizes, estimates).max { $0.1.bytes < $1.1.bytes }!
            let slowest = estimates.max { $0.seconds < $1.seconds }!
            lines.append("ok  \(Report.relative(p.source)): \(p.name), \(Format.grouped(p.entities)) entities, \(Format.grouped(p.consumerCount)) consumers, \(p.pattern.rawValue); "
                + "estimated at most \(Format.bytes(largest.1.bytes)) (at \(Format.grouped(largest.0.entities)) entities) "
                + "and \(Format.duration(slowest.seconds * 1e9)) per dispatch")
        }
        lines.append("machine: \(Format.bytes(plan.machine.memoryBytes)) (\(plan.machine.memorySource)); a run may use \(Int(ProfileBudget.memoryShare * 100)) %")
        return lines.joined(separator: "\n")
    }
}
