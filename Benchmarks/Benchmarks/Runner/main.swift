import Foundation
import StrategyKit

// fsbench: the strategy comparison runner (issue 5). See
// docs/benchmarks/README.md; scripts/bench.sh builds and runs it.


func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("fsbench: error: \(message)\n".utf8))
    exit(status)
}

let options: Options
do { options = try Options.parse(Array(CommandLine.arguments.dropFirst())) } catch {
    fail("\(error)\n\(Options.usage)")
}

#if FASTSTORE_INTERNAL_CHECKS || DEBUG
if !options.validate && !options.list && !options.selfTest {
    fail("fsbench must be built in release (swift build -c release): debug builds time internal checks, not FastStore", status: 2)
}
#endif

if options.list {
    print("strategies:")
    for s in Strategies.all { print("  \(s.name.padding(toLength: 21, withPad: " ", startingAt: 0)) \(s.summary)") }
    print("profiles (\(options.profilesDirectory)):")
    for (name, url) in ProfileCatalog.available(in: options.profilesDirectory).sorted(by: { $0.key < $1.key }) {
        let description = (try? ProfileLoader.load(url).description) ?? "(invalid: run --validate)"
        print("  \(name.padding(toLength: 14, withPad: " ", startingAt: 0)) \(description)")
    }
    exit(0)
}

var strategies: [any BenchStrategy.Type] = []
for name in options.strategies {
    guard let s = Strategies.named(name) else {
        fail("unknown strategy '\(name)'; valid strategies: \(Strategies.names.joined(separator: ", "))")
    }
    strategies.append(s)
}
if strategies.isEmpty { strategies = Strategies.all }

let profileURLs: [URL]
do { profileURLs = try ProfileCatalog.resolve(options.profiles, directory: options.profilesDirectory) } catch {
    fail("\(error)")
}
var profiles: [ProfileSpec] = []
for url in profileURLs {
    do { profiles.append(try ProfileLoader.load(url)) } catch {
        fail("invalid profile: \(error)")
    }
}
if let duplicate = Dictionary(grouping: profiles, by: \.name).first(where: { $0.value.count > 1 }) {
    fail("two profiles are named '\(duplicate.key)': \(duplicate.value.map(\.source).joined(separator: ", "))")
}

if options.validate {
    for p in profiles {
        print("ok  \(Report.relative(p.source)): \(p.name), \(Format.grouped(p.entities)) entities, \(Format.grouped(p.consumerCount)) consumers, \(p.pattern.rawValue)")
    }
    exit(0)
}

guard JemallocMeter.isActive else {
    fail("jemalloc does not serve this process's allocations (or has no statistics); the memory figures would be wrong", status: 1)
}
let meter = JemallocMeter()

if options.selfTest {
    exit(SelfTest.run(meter: meter, profiles: profiles) ? 0 : 1)
}

// The plan: every profile at its main size and its sweep sizes, every strategy.
struct Cell {
    var profile: ProfileSpec
    var entities: Int
}
var plan: [Cell] = []
for p in profiles {
    let main = options.quick ? p.quickEntities : p.entities
    let sweep = options.sweep ? (options.quick ? p.quickSweep : p.sweep) : []
    for size in Set(sweep + [main]).sorted() { plan.append(Cell(profile: p, entities: size)) }
}
let totalCells = plan.count * strategies.count

let isTTY = isatty(2) == 1 && options.progress
func progress(_ text: String, final: Bool) {
    guard options.progress else { return }
    if isTTY {
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)\(final ? "\n" : "")".utf8))
    } else if final {
        FileHandle.standardError.write(Data("\(text)\n".utf8))
    }
}

FileHandle.standardError.write(Data("fsbench: \(profiles.count) profile(s), \(strategies.count) strategies, \(totalCells) runs\(options.quick ? " (quick)" : "")\n".utf8))
let runStart = monotonicNanoseconds()
var results: [CellResult] = []
var index = 0
for cell in plan {
    let p = cell.profile
    let maxDispatches = options.quick ? p.quickMaxDispatches : p.maxDispatches
    let seconds = options.seconds ?? (options.quick ? p.quickSeconds : p.seconds)
    let probe = Workload(profile: p, entities: cell.entities, maxDispatches: maxDispatches, seconds: seconds, warmup: 0)
    let warmup = Driver.warmupCount(probe)
    let workload = Workload(profile: p, entities: cell.entities, maxDispatches: maxDispatches, seconds: seconds, warmup: warmup)
    for strategy in strategies {
        index += 1
        let elapsed = Double(monotonicNanoseconds() - runStart) / 1e9
        let label = String(format: "[%2d/%d %4.0fs] %@ N=%@ %@", index, totalCells, elapsed, p.name, Format.grouped(cell.entities), strategy.name)
        progress("\(label) …", final: false)
        let result = Driver.measure(strategy, workload, meter: meter)
        results.append(result)
        progress("\(label): median \(Format.duration(result.medianNs)), p99 \(Format.duration(result.p99Ns)), \(Format.count(result.allocationsPerDispatch)) allocs/dispatch, \(result.dispatches) dispatches", final: true)
    }
}
let runSeconds = Double(monotonicNanoseconds() - runStart) / 1e9

print("")
print(Report.text(results))
print(String(format: "measured in %.1f s", runSeconds))

func write(_ text: String, to path: String) {
    let url = URL(fileURLWithPath: path)
    do {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        FileHandle.standardError.write(Data("fsbench: wrote \(path)\n".utf8))
    } catch {
        fail("cannot write \(path): \(error)", status: 1)
    }
}

var charts: [(profile: String, file: String)] = []
if let directory = options.chartDirectory {
    for p in profiles {
        let cells = results.filter { $0.profile == p.name }
        guard Set(cells.map(\.entities)).count >= 2 else { continue }
        let file = "scaling-\(p.name).svg"
        write(Chart.svg(profile: p.name, results: cells), to: (directory as NSString).appendingPathComponent(file))
        charts.append((p.name, file))
    }
}
if let path = options.resultsPath {
    let command = options.command ?? (["fsbench"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
    write(Report.resultsDocument(results, profiles: profiles, command: command, runSeconds: runSeconds, buildSeconds: options.buildSeconds, charts: charts, quick: options.quick), to: path)
}
if let path = options.jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    write(String(decoding: try! encoder.encode(results), as: UTF8.self), to: path)
}
if let path = options.checkPath {
    let thresholds: Thresholds
    do { thresholds = try JSONDecoder().decode(Thresholds.self, from: Data(contentsOf: URL(fileURLWithPath: path))) } catch {
        fail("cannot read thresholds \(path): \(error)")
    }
    if !CIChecker.run(thresholds, results: results, profiles: profiles, quick: options.quick) {
        FileHandle.standardError.write(Data("fsbench: the CI check failed (thresholds: \(path))\n".utf8))
        exit(1)
    }
}
