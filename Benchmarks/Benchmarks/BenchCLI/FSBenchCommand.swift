import ArgumentParser
import BenchCore

/// `fsbench`'s command line. Parsing and the checks that need no file
/// system are here (``validate()``); ``RunPlan/prepare(_:machine:)`` then
/// resolves profiles, strategies and paths before anything is measured.
public struct FSBenchCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "fsbench",
        abstract: "Compares FastStore's consumers with the full-copy, ReSwift-style and Observation strategies on workload profiles.",
        discussion: """
        Runs every strategy on every profile (default: every .json file in --profiles-dir) at the profile's size \
        and sweep sizes, prints a table, and keeps the results: RESULTS.md, results.json and the SVG charts go to \
        bench-results/<date>-<time>/ (not committed), or where --results, --json and --chart-dir say. --publish \
        writes RESULTS.md and the charts over docs/benchmarks/, the committed results.

        Before measuring, fsbench checks the options, the output paths, the thresholds file and every profile, \
        and refuses a profile whose estimated memory or time per dispatch exceeds this machine.

        Exit status: 0 done, 1 a --check or --self-test failed, 2 bad arguments or profile.
        """)

    @Argument(help: ArgumentHelp("Profiles to run, as --profile.", valueName: "profile"))
    public var profileArguments: [String] = []

    @Option(name: .customLong("profile"), help: ArgumentHelp(
        "A shipped profile's name (see --list) or a profile file; repeatable. Default: every profile in --profiles-dir.",
        valueName: "name|file.json"))
    public var profileOptions: [String] = []

    @Option(name: .customLong("strategy"), help: ArgumentHelp("A strategy to run; repeatable. Default: all (see --list).", valueName: "name"))
    public var strategies: [String] = []

    @Flag(help: "Each profile's small \"quick\" sizes, time budgets and sweep.")
    public var quick = false

    @Flag(name: .customLong("no-sweep"), help: "Only each profile's main size, not its sweep sizes.")
    public var noSweep = false

    @Option(help: ArgumentHelp("The time budget of each measurement, instead of the profile's (at least 5 dispatches are measured).", valueName: "seconds"))
    public var seconds: Double?

    @Option(name: .customLong("results"), help: ArgumentHelp("Write the results document (markdown) to this file.", valueName: "file.md"))
    public var resultsPath: String?

    @Option(name: .customLong("json"), help: ArgumentHelp("Write every figure of every run (JSON) to this file.", valueName: "file.json"))
    public var jsonPath: String?

    @Option(name: .customLong("chart-dir"), help: ArgumentHelp("Write the SVG charts (one per profile with a sweep) to this directory.", valueName: "dir"))
    public var chartDirectory: String?

    @Flag(help: "Write RESULTS.md and the charts over docs/benchmarks/ (the committed results). Only for the full run: every profile and strategy, full sizes.")
    public var publish = false

    @Option(name: .customLong("check"), help: ArgumentHelp("Fail (exit 1) when the subject strategy exceeds these thresholds (CI).", valueName: "thresholds.json"))
    public var checkPath: String?

    @Option(name: .customLong("profiles-dir"), help: ArgumentHelp("Where profiles named without a path are found.", valueName: "dir"))
    public var profilesDirectory = "Profiles"

    @Flag(inversion: .prefixedNo, help: "One line per measurement on standard error.")
    public var progress = true

    @Flag(help: "List the strategies and the profiles, and exit.")
    public var list = false

    // NB: not `validate`, which would clash with `validate()`.
    @Flag(name: .customLong("validate"), help: "Check the profiles (default: every one in --profiles-dir) against the format and this machine, and exit.")
    public var validateOnly = false

    @Flag(name: .customLong("self-test"), help: "Check the harness: exact allocation counts, profile validation, strategies agreeing.")
    public var selfTest = false

    @Option(help: .hidden)
    public var command: String?

    @Option(name: .customLong("build-seconds"), help: .hidden)
    public var buildSeconds: Double?

    public init() {}

    /// What a command line asks for.
    public enum Mode: String, Sendable { case measure, list, validate, selfTest = "self-test" }

    public var mode: Mode {
        if list { return .list }
        if validateOnly { return .validate }
        if selfTest { return .selfTest }
        return .measure
    }

    /// The profiles named, as arguments or with `--profile`, in order.
    public var profiles: [String] { profileArguments + profileOptions }

    public func validate() throws {
        let modes = [("--list", list), ("--validate", validateOnly), ("--self-test", selfTest)].filter(\.1).map(\.0)
        if modes.count > 1 {
            throw ValidationError("\(modes.joined(separator: " and ")) do not go together: choose one")
        }
        if let seconds, !(seconds > 0 && seconds <= 600) {
            throw ValidationError("--seconds expects a number of seconds in (0, 600], found \(seconds)")
        }
        if let buildSeconds, !(buildSeconds >= 0) {
            throw ValidationError("--build-seconds expects a number of seconds, found \(buildSeconds)")
        }
        // Options that only a measuring run uses are refused elsewhere, not
        // ignored.
        if mode != .measure {
            let measuring: [(String, Bool)] = [
                ("--results", resultsPath != nil), ("--json", jsonPath != nil), ("--chart-dir", chartDirectory != nil),
                ("--check", checkPath != nil), ("--publish", publish), ("--seconds", seconds != nil),
                ("--no-sweep", noSweep),
            ]
            if let option = measuring.first(where: \.1) {
                throw ValidationError("\(option.0) applies to a measuring run, not to --\(mode.rawValue)")
            }
            if mode == .list, let option = [("--profile", !profiles.isEmpty), ("--strategy", !strategies.isEmpty), ("--quick", quick)].first(where: \.1) {
                throw ValidationError("--list lists every strategy and profile; drop \(option.0)")
            }
        }
        if publish {
            if let option = [("--results", resultsPath != nil), ("--chart-dir", chartDirectory != nil)].first(where: \.1) {
                throw ValidationError("--publish writes docs/benchmarks/RESULTS.md and its charts; drop \(option.0), or drop --publish to write elsewhere")
            }
            let partial: [(String, Bool)] = [
                ("--quick", quick), ("--profile", !profiles.isEmpty), ("--strategy", !strategies.isEmpty),
                ("--no-sweep", noSweep), ("--seconds", seconds != nil),
            ]
            if let option = partial.first(where: \.1) {
                throw ValidationError("--publish writes the committed results, which are the full run of every shipped profile and strategy: drop \(option.0)")
            }
        }
    }
}
