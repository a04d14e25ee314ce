import Foundation
import StrategyKit

enum Format {
    static func duration(_ ns: Double) -> String {
        if ns < 1_000 { return String(format: "%.0f ns", ns) }
        if ns < 1_000_000 { return String(format: ns < 10_000 ? "%.2f µs" : "%.1f µs", ns / 1_000) }
        if ns < 1_000_000_000 { return String(format: ns < 10_000_000 ? "%.2f ms" : "%.1f ms", ns / 1_000_000) }
        return String(format: "%.2f s", ns / 1_000_000_000)
    }

    static func bytes(_ b: Double) -> String {
        let sign = b < 0 ? "-" : ""
        let v = abs(b)
        if v < 1024 { return sign + String(format: "%.0f B", v) }
        if v < 1024 * 1024 { return sign + String(format: "%.1f KiB", v / 1024) }
        if v < 1024 * 1024 * 1024 { return sign + String(format: "%.1f MiB", v / 1024 / 1024) }
        return sign + String(format: "%.2f GiB", v / 1024 / 1024 / 1024)
    }

    static func count(_ c: Double) -> String {
        if c == c.rounded() && abs(c) < 1e6 { return String(format: "%.0f", c) }
        if abs(c) < 100 { return String(format: "%.2f", c) }
        if abs(c) < 1e6 { return String(format: "%.0f", c) }
        return String(format: "%.2fM", c / 1e6)
    }

    static func rate(_ r: Double) -> String {
        if r >= 1e6 { return String(format: "%.2fM/s", r / 1e6) }
        if r >= 1e3 { return String(format: "%.1fk/s", r / 1e3) }
        if r >= 10 { return String(format: "%.0f/s", r) }
        return String(format: "%.2f/s", r)
    }

    static func grouped(_ n: Int) -> String {
        let s = String(n)
        var out = ""
        for (i, ch) in s.reversed().enumerated() {
            if i > 0, i % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return String(out.reversed())
    }

    static func ratio(_ r: Double) -> String {
        if r >= 100 { return String(format: "%.0f×", r) }
        if r >= 10 { return String(format: "%.1f×", r) }
        return String(format: "%.2f×", r)
    }
}

/// Tables of results, for the terminal and for RESULTS.md.
enum Report {
    static let headers = ["profile", "N", "consumers", "strategy", "median", "p99", "throughput", "allocs/dispatch", "bytes/dispatch", "consumer bytes", "callbacks delivered", "callbacks/dispatch", "selector runs/dispatch", "speed-up vs full-copy"]
    static let strategyColumn = 3, medianColumn = 4

    static func rows(_ results: [CellResult]) -> [[String]] {
        results.map { r in
            let reference = results.first { $0.profile == r.profile && $0.entities == r.entities && $0.strategy == FullCopyStrategy.name }
            let speedup = reference.map { Format.ratio($0.medianNs / max(r.medianNs, 1)) } ?? "–"
            return [
                r.profile, Format.grouped(r.entities), Format.grouped(r.consumers), r.strategy,
                Format.duration(r.medianNs), Format.duration(r.p99Ns), Format.rate(r.throughput),
                Format.count(r.allocationsPerDispatch), Format.bytes(r.bytesPerDispatch),
                Format.bytes(Double(r.consumerBytes)),
                "\(Format.grouped(r.measuredCallbacks)) in \(Format.grouped(r.dispatches))",
                Format.count(r.callbacksPerDispatch),
                Format.count(r.evaluationsPerDispatch), speedup,
            ]
        }
    }

    /// Whether `r` has the lowest median of its comparison (its profile at
    /// its size, every strategy measured).
    static func isWinner(_ r: CellResult, in results: [CellResult]) -> Bool {
        let group = results.filter { $0.profile == r.profile && $0.entities == r.entities }
        return group.count > 1 && r.medianNs <= group.map(\.medianNs).min()!
    }

    static func text(_ results: [CellResult]) -> String {
        let rows = self.rows(results)
        var widths = headers.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in
                let pad = String(repeating: " ", count: widths[i] - c.count)
                return i <= 3 ? c + pad : pad + c
            }.joined(separator: "  ")
        }
        var out = line(headers) + "\n" + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        var last: (String, Int)?
        for (row, r) in zip(rows, results) {
            if let l = last, l != (r.profile, r.entities) { out += "\n" }
            last = (r.profile, r.entities)
            out += line(row) + "\n"
        }
        return out
    }

    /// The results as a markdown table. In each comparison (a profile at a
    /// size) only the fastest strategy's name and median are bold.
    static func markdown(_ results: [CellResult]) -> String {
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
    static func callbacksSection(_ results: [CellResult]) -> String {
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

    static func machine() -> String {
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

    static func resultsDocument(_ results: [CellResult], profiles: [ProfileSpec], command: String, runSeconds: Double, buildSeconds: Double?, charts: [(profile: String, file: String)], quick: Bool) -> String {
        let date = ISO8601DateFormatter().string(from: Date())
        var out = """
        # Benchmark results

        Generated by `fsbench` (see [README.md](README.md) for what each strategy,
        profile and figure is). Do not edit by hand: run the command below again.

        - Command: `\(command)`\(quick ? " (quick mode: small sizes)" : "")
        - Date: \(date)
        - Machine: \(machine())
        - Run time: \(String(format: "%.0f s", runSeconds)) measuring
        """
        if let buildSeconds {
            out += String(format: ", %.0f s building (release), %.0f s in all", buildSeconds, buildSeconds + runSeconds)
        }
        out += "\n- Seed: \(Workload.seed) (`FASTSTORE_SEED`)\n\n"
        let missing = ["faststore"].filter { !Strategies.names.contains($0) }
        if !missing.isEmpty {
            out += "> The faststore strategy is not in this build (its Store and versioned state were not available when it was built); only the baselines were measured.\n\n"
        }
        out += "## Profiles\n\n"
        for p in profiles {
            out += "- **\(p.name)** (`\(relative(p.source))`): \(p.description)\n"
        }
        out += "\n## Results\n\n" + markdown(results) + "\n"
        out += "Bold: the fastest strategy (lowest median) of each profile at each size.\n\n"
        out += """
        Median and p99 are per dispatch (a burst's time divided by its size);
        throughput is dispatches per second of wall clock over the measured phase;
        allocations and bytes are jemalloc's counts over the measured phase divided
        by the dispatches; consumer bytes is the growth of jemalloc's live bytes from
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

    static func relative(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}
