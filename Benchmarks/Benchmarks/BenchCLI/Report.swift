import Foundation
import BenchCore

/// The results as RESULTS.md: every figure, markdown.
public enum Report {
    public static let headers = ["profile", "N", "consumers", "strategy", "median", "p99", "mean", "throughput", "allocs/dispatch", "bytes/dispatch", "state bytes/item", "consumer bytes", "callbacks delivered", "callbacks/dispatch", "selector runs/dispatch", "speed-up vs full-copy"]
    static let strategyColumn = 3, medianColumn = 4

    public static func rows(_ results: [CellResult]) -> [[String]] {
        results.map { r in
            let reference = results.first { $0.profile == r.profile && $0.entities == r.entities && $0.strategy == StrategyCatalog.fullCopy.name }
            let speedup = reference.map { Format.ratio($0.medianNs / max(r.medianNs, 1)) } ?? "–"
            return [
                r.profile, Format.grouped(r.entities), Format.grouped(r.consumers), r.strategy,
                Format.duration(r.medianNs), Format.duration(r.p99Ns), mean(r), Format.rate(r.throughput),
                Format.count(r.allocationsPerDispatch), Format.bytes(r.bytesPerDispatch),
                Format.bytes(Double(r.stateBytes) / Double(max(r.entities, 1))),
                Format.bytes(Double(r.consumerBytes)),
                "\(Format.grouped(r.measuredCallbacks)) in \(Format.grouped(r.dispatches))",
                Format.count(r.callbacksPerDispatch),
                Format.count(r.evaluationsPerDispatch), speedup,
            ]
        }
    }

    /// The wall-clock time of the measured phase over its dispatches (the
    /// inverse of the throughput), or a dash when nothing was measured.
    ///
    /// NB: beside the median because a strategy can spend its time in a
    /// minority of dispatches (observation-lazy re-tracks a row only when
    /// an action hits one): the median then shows the cheap majority, the
    /// mean the work per dispatch. The mean also takes in the machine's
    /// stalls, which the median ignores.
    static func mean(_ r: CellResult) -> String {
        r.throughput > 0 ? Format.duration(1e9 / r.throughput) : "–"
    }

    /// Whether `r` has the lowest median of its comparison (its profile at
    /// its size, every strategy measured).
    public static func isWinner(_ r: CellResult, in results: [CellResult]) -> Bool {
        let group = results.filter { $0.profile == r.profile && $0.entities == r.entities }
        return group.count > 1 && r.medianNs <= group.map(\.medianNs).min()!
    }

    /// The results as a markdown table. In each comparison (a profile at a
    /// size) only the fastest strategy's name and median are bold.
    public static func markdown(_ results: [CellResult]) -> String {
        let rows = self.rows(results)
        var out = "| " + headers.joined(separator: " | ") + " |\n"
        out += "|" + headers.enumerated().map { i, _ in i <= 3 ? " --- |" : " ---: |" }.joined() + "\n"
        for (cells, r) in zip(rows, results) {
            var row = cells
            if isWinner(r, in: results) {
                for i in [strategyColumn, medianColumn] { row[i] = "**\(row[i])**" }
            }
            out += "| " + row.joined(separator: " | ") + " |\n"
        }
        return out
    }

    /// For each profile whose actions arrive in bursts or from threads: the
    /// callbacks each strategy delivered, since strategies coalesce
    /// differently there.
    public static func callbacksSection(_ results: [CellResult]) -> String {
        let bursty = results.filter { $0.pattern != DispatchPattern.single.rawValue }
        guard !bursty.isEmpty else { return "" }
        var out = "\n## Callbacks delivered where actions arrive in bursts\n\n"
        out += "faststore's store reduces the actions queued while it drains in one pass and notifies each consumer once per drain, with the latest value; the other strategies notify after every action. Over the measured phase:\n\n"
        var seen: [String] = []
        for r in bursty where !seen.contains("\(r.profile)/\(r.entities)") {
            seen.append("\(r.profile)/\(r.entities)")
            let cells = bursty.filter { $0.profile == r.profile && $0.entities == r.entities }
            let parts = cells.map { "\($0.strategy) \(Format.grouped($0.measuredCallbacks)) in \(Format.grouped($0.dispatches)) dispatches (\(Format.count($0.callbacksPerDispatch)) per dispatch)" }
            out += "- **\(r.profile)**, N=\(Format.grouped(r.entities)), \(r.pattern): " + parts.joined(separator: "; ") + "\n"
        }
        return out
    }

    /// This machine, for RESULTS.md and the charts: CPU, cores, memory, system.
    public static func machine() -> String {
        var parts: [String] = []
        if let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = cpu.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let name = line.split(separator: ":", maxSplits: 1).last {
            parts.append(name.trimmingCharacters(in: .whitespaces))
        }
        parts.append("\(ProcessInfo.processInfo.activeProcessorCount) cores")
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1024 / 1024 / 1024
        parts.append(String(format: "%.0f GiB", memory))
        var uts = utsname()
        uname(&uts)
        let system = withUnsafeBytes(of: &uts.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let release = withUnsafeBytes(of: &uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        parts.append("\(system) \(release)")
        return parts.joined(separator: ", ")
    }

    public static func resultsDocument(_ results: [CellResult], profiles: [ProfileSpec], run: RunInfo, charts: [(profile: String, file: String)]) -> String {
        var out = """
        # Benchmark results

        Generated by `fsbench` (see \(run.published ? "[README.md](README.md)" : "`docs/benchmarks/README.md`") for what each strategy,
        profile and figure is). Do not edit by hand: run the command below again.

        - Command: `\(run.command)`\(run.quick ? " (quick mode: small sizes)" : "")
        - Date: \(ISO8601DateFormatter().string(from: run.date))
        - Machine: \(run.machine)
        - Run time: \(String(format: "%.0f s", run.runSeconds)) measuring
        """
        if let buildSeconds = run.buildSeconds {
            out += String(format: ", %.0f s building (release), %.0f s in all", buildSeconds, buildSeconds + run.runSeconds)
        }
        out += "\n- Seed: \(run.seed) (`FASTSTORE_SEED`)\n\n"
        out += "## Profiles\n\n"
        for p in profiles {
            out += "- **\(p.name)** (`\(relative(p.source))`): \(p.description)"
            if p.hasSetup {
                out += " Setup before each measured dispatch, outside every figure: " + p.setup.map { "`\($0.summary)`" }.joined(separator: ", ") + "."
            }
            out += "\n"
        }
        out += "\n## Results\n\n" + markdown(results) + "\n"
        out += "Bold: the fastest strategy (lowest median) of each profile at each size.\n\n"
        out += """
        Median and p99 are per dispatch (a burst's time divided by its size);
        throughput is dispatches per second of wall clock over the measured phase,
        and mean its inverse: the wall-clock time per dispatch, which counts the
        dispatches a median leaves out (a strategy whose cost falls on a few
        dispatches has a low median and a higher mean) and the machine's stalls;
        allocations and bytes are jemalloc's counts over the measured phase divided
        by the dispatches; state bytes/item is jemalloc's live bytes of the freshly
        built state (its store included) over the profile's N; consumer bytes is
        the growth of jemalloc's live bytes from
        attaching the consumers to the end of the run; selector runs count every
        run of a consumer's selector (full-copy runs each twice); callbacks delivered
        are the measured phase's, with its dispatches; the speed-up is full-copy's
        median over the strategy's median on the same workload.

        """
        out += callbacksSection(results)
        if !charts.isEmpty {
            out += "\n## Time per dispatch against state size\n\n"
            for chart in charts {
                out += "![\(chart.profile): time per dispatch against entity count, log-log](\(chart.file))\n\n"
            }
        }
        return out
    }

    public static func relative(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}

/// What a run was: for the headers of RESULTS.md and of the charts.
public struct RunInfo: Sendable {
    public var command: String
    public var date: Date
    public var machine: String
    public var runSeconds: Double
    public var buildSeconds: Double?
    public var seed: UInt64
    public var quick: Bool
    /// Whether the results go to docs/benchmarks (links relative to it).
    public var published: Bool

    public init(command: String, date: Date, machine: String, runSeconds: Double, buildSeconds: Double?, seed: UInt64, quick: Bool, published: Bool) {
        self.command = command; self.date = date; self.machine = machine; self.runSeconds = runSeconds
        self.buildSeconds = buildSeconds; self.seed = seed; self.quick = quick; self.published = published
    }

    /// The date as the charts show it: day and minute, UTC.
    public var day: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: date)
    }
}
