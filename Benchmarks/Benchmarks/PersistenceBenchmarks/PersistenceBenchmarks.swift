import Benchmark
@_spi(Testing) import FastStore
import FastStorePersistence
import Foundation
import GRDB
import SuiteSupport

// Saving a store's state with FastStorePersistence, on the README's todo
// shape (an `IdentifiedList` of `Todo`: an id, a 24-byte title, `done`) at
// N = 1,000, 100,000 and 1,000,000 items (`PERSIST_SIZES`, comma-separated,
// overrides them), one row toggled per action:
//
// - `Persistence.dispatch.off.N<n>`: a dispatch, the store alone (the
//   baseline).
// - `Persistence.dispatch.on.N<n>`: the same store saved by a
//   `PersistentState` (`.everyBatch`): what saving costs the dispatching
//   thread (it hands each batch to the saver, O(1)). Goal: within 1.1x of off.
// - `Persistence.dispatch.onOverOff.N<n>`: the goal's ratio, measured in
//   one run: two stores of n items, one saved (`.everyBatch`) and one not,
//   dispatched to in alternating rounds of 200 toggles; the median over 60
//   rounds of (time of the saved store's round) / (time of the other's), in
//   thousandths (1,000 = no cost). Separate benchmarks run minutes apart on
//   this shared machine moved by ±50 % from one run to the next; the
//   alternation cancels that drift.
// - `Persistence.dispatch.groupedOverOff.N<n>`: the same ratio with the
//   saved store on `.grouped(.seconds(1))`: the saver writes once a second
//   (the rounds take milliseconds), so the ratio is the handing over of
//   each batch, with the saver's work mostly out of the rounds.
// - `Persistence.dispatch.grouped.N<n>`: the same with
//   `.grouped(.seconds(1))`: the saver writes once a second, so the
//   dispatching thread runs beside it for most of the run.
// - `Persistence.flushed.N<n>`: a dispatch and `waitUntilSaved()`: one
//   write committed and synced per action; its inverse is the syncs per
//   second.
// - `Persistence.bytesWrittenPerAction.N<n>`: bytes the process wrote
//   (`wchar` of /proc/self/io: the WAL's frames and the checkpoints) per
//   flushed action, over 200 actions. Linux only (0 elsewhere).
// - `Persistence.wholeStateJSON.N<n>`: the shape of TCA's
//   `@Shared(.fileStorage)` and redux-persist: the whole state encoded as
//   JSON and written to a file (atomically, no sync) after every action.
// - `Persistence.wholeStateBytesPerAction.N<n>`: the bytes that write
//   writes per action.
// - `Persistence.open.N<n>.patches<p>`: opening a file holding a snapshot of
//   N items and p patches (p = 10,000 at N = 1,000,000; `PERSIST_PATCHES`).
//   Goal: at most 1.2x `grdbRows` (below) at 1,000,000 and at 100,000 items.
// - `Persistence.grdbRows.N<n>`: the same todos as rows of a table
//   (`id`, `title`, `done`) of a SQLite file, read by GRDB: the file
//   opened, `Todo.fetchAll` (GRDB's `Decodable` record decoding) and the
//   `IdentifiedList` built from the array: what an app that keeps its
//   todos as rows spends at launch for the same list.
// - `Persistence.openOverGRDB.N<n>.patches<p>`: the goal's ratio in one
//   run: an open of the logged file and a `grdbRows` read in alternating
//   rounds (which goes first alternates too), the median of (open time) /
//   (read time), in thousandths.
// - `Persistence.openParts.N<n>.decodeSnapshot` and `.buildList`: two parts
//   of an open, alone: `JSONDecoder` decoding the snapshot's JSON as the
//   state, and `IdentifiedList(_:)` building the list from an array of the
//   same todos (what the decoding does once it has the elements).
// - `Persistence.openParts.N<n>.decodePlainArray` and `.decodeBinaryPlist`:
//   the same todos decoded by `JSONDecoder` as a plain `[Todo]` (no list
//   built), and the state decoded by `PropertyListDecoder` from a binary
//   property list: what no list, or Foundation's other format, would save.
// - `Persistence.saveHistory.N<n>.entries1000`: `saveHistory()` of a
//   history of 1,000 recorded toggles (`file.history(of:)`, kept as
//   patches), nothing else pending: reading its entries, checking its state
//   is the saved one, encoding them and one synced write. The time an app
//   spends saving its undo history when it goes to the background.
// - `Persistence.historyBytesWritten.N<n>.entries1000`: the bytes the
//   process wrote (`wchar`) for that save, over its 1,000 entries: the
//   history's JSON, in the WAL's frames. Linux only (0 elsewhere).
//
// Files go to a temporary folder, removed at the end of each benchmark.
// Names have no spaces (package-benchmark's threshold files break on them).

struct Todo: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var done = false
}

extension Todo: FetchableRecord, PersistableRecord {
    static let databaseTableName = "todo"
}

struct AppState: Codable, Sendable {
    var todos: IdentifiedList<Todo>
    var filter = "all"
}

typealias State = Versioned<AppState>

enum Action: Sendable { case toggle(Int) }

func reduce(_ state: inout State, _ action: Action) {
    switch action { case .toggle(let id): state.todos[id: id]?.done.toggle() }
}

func makeState(_ n: Int) -> State {
    Versioned(AppState(todos: IdentifiedList((0..<n).map { Todo(id: $0, title: "todo \($0) ..................") })))
}

let sizes: [Int] = ProcessInfo.processInfo.environment["PERSIST_SIZES"]
    .map { $0.split(separator: ",").compactMap { Int($0) } } ?? [1_000, 100_000, 1_000_000]

/// A folder of its own for one benchmark's files.
func scratchFolder(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("PersistenceBenchmarks-\(name)-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Bytes this process passed to `write` so far (`wchar`, /proc/self/io).
func bytesWritten() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("wchar:") {
        return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
    }
    return 0
}

/// A store of `n` todos, saved to a new file when `saved`.
final class Fixture: @unchecked Sendable {
    let folder: URL
    let store: Store<State, Action>
    let file: PersistentState<State>?
    let n: Int
    var step = 0

    init(n: Int, saved: Bool, name: String, durability: PersistenceOptions.Durability = .everyBatch) {
        self.n = n
        folder = scratchFolder(name)
        let state = makeState(n)
        if saved {
            let file = try! PersistentState(path: folder.appendingPathComponent("state.sqlite").path,
                                            options: .init(durability: durability), initial: state)
            store = Store(state: file.state, reducer: reduce)
            try! file.keepSaving(store)
            self.file = file
        } else {
            store = Store(state: state, reducer: reduce)
            file = nil
        }
    }

    /// Toggles the next row (spread over the list).
    func dispatch() {
        step &+= 1
        store.dispatch(.toggle((step &* 7_919) % n))
    }

    /// The history `withHistory` made (kept alive with the fixture).
    var history: AnyObject?

    /// A saved store with its history (`file.history(of:)`), after
    /// `entries` toggles, each a batch of its own.
    static func withHistory(n: Int, entries: Int) -> Fixture {
        let fixture = Fixture(n: n, saved: true, name: "history")
        let history = try! fixture.file!.history(of: fixture.store, limit: .entries(entries + 1))
        for _ in 0..<entries {
            fixture.dispatch()
            fixture.store.waitUntilIdle()
        }
        precondition(history.indices.count == entries + 1)
        fixture.history = history
        return fixture
    }

    func close() {
        try? file?.close()
        try? FileManager.default.removeItem(at: folder)
    }
}


/// The fixture of the benchmark that runs, made by its `setup` (once, not
/// per sample) and closed by its `teardown`.
final class Current: @unchecked Sendable {
    static let shared = Current()
    var fixture: Fixture?
}

/// Writes a file of a snapshot of `n` items and `patches` patches (each
/// action flushed on its own), closes it, and returns its path.
func makeLoggedFile(n: Int, patches: Int, in folder: URL) -> String {
    let path = folder.appendingPathComponent("state.sqlite").path
    let file = try! PersistentState(path: path, options: .init(compactAfter: patches + 1), initial: makeState(n))
    let store = Store(state: file.state, reducer: reduce)
    try! file.keepSaving(store)
    for i in 0..<patches {
        store.dispatch(.toggle((i &* 7_919) % n))
        try! file.waitUntilSaved()
    }
    try! file.close()
    return path
}

/// A SQLite file holding `n` todos as rows of the table `todo`, as
/// `makeState(n)` holds them.
func makeRowsFile(n: Int, in folder: URL) -> String {
    let path = folder.appendingPathComponent("rows.sqlite").path
    let queue = try! DatabaseQueue(path: path)
    try! queue.write { db in
        try db.execute(sql: "CREATE TABLE todo (id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL)")
        let insert = try db.makeStatement(sql: "INSERT INTO todo (id, title, done) VALUES (?, ?, ?)")
        for i in 0..<n { try insert.execute(arguments: [i, "todo \(i) ..................", false]) }
    }
    try! queue.close()
    return path
}

/// The todos of a ``makeRowsFile(n:in:)`` file, read by GRDB into an
/// `IdentifiedList`.
func readRows(_ path: String) -> IdentifiedList<Todo> {
    let queue = try! DatabaseQueue(path: path)
    let todos = try! queue.read { db in try Todo.fetchAll(db) }
    try! queue.close()
    return IdentifiedList(todos)
}

let benchmarks: @Sendable () -> Void = {
    precondition(!_DrainSimulator.internalChecksEnabled,
                 "FastStore was built with FASTSTORE_INTERNAL_CHECKS (a debug build): benchmark a release build")

    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: suiteMaxDuration(.seconds(2)),
        maxIterations: 10_000,
        thresholds: allocationCountGate
    )

    for n in sizes {
        for (saved, durability, label) in [(false, .everyBatch, "off"), (true, .everyBatch, "on"), (true, .grouped(.seconds(1)), "grouped")]
            as [(Bool, PersistenceOptions.Durability, String)] {
            let name = "Persistence.dispatch.\(label).N\(n)"
            Benchmark(name, closure: { benchmark in
                let fixture = Current.shared.fixture!
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { fixture.dispatch() }
                benchmark.stopMeasurement()
            }, setup: {
                Current.shared.fixture = Fixture(n: n, saved: saved, name: name, durability: durability)
            }, teardown: {
                Current.shared.fixture?.close()
                Current.shared.fixture = nil
            })
        }

        let perMille = BenchmarkMetric.custom("onOverOffPerMille", polarity: .prefersSmaller, useScalingFactor: false)
        for (label, durability) in [("onOverOff", .everyBatch), ("groupedOverOff", .grouped(.seconds(1)))]
            as [(String, PersistenceOptions.Durability)] {
            Benchmark("Persistence.dispatch.\(label).N\(n)",
                      configuration: .init(metrics: [perMille], warmupIterations: 0, maxIterations: 1, thresholds: nil)) { benchmark in
                let off = Fixture(n: n, saved: false, name: "ratioOff")
                let on = Fixture(n: n, saved: true, name: "ratioOn", durability: durability)
                let clock = ContinuousClock()
                func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
                func round(_ fixture: Fixture) -> Duration {
                    clock.measure { for _ in 0..<200 { fixture.dispatch() } }
                }
                _ = (round(off), round(on))  // warm-up
                var ratios: [Double] = []
                for k in 0..<60 {
                    // NB: which store goes first alternates too.
                    let (a, b) = k % 2 == 0 ? (round(off), round(on)) : { let b = round(on); return (round(off), b) }()
                    ratios.append(seconds(b) / seconds(a))
                }
                ratios.sort()
                benchmark.measurement(perMille, Int((ratios[ratios.count / 2] * 1_000).rounded()))
                try! on.file!.waitUntilSaved()
                on.close()
                off.close()
            }
        }

        Benchmark("Persistence.flushed.N\(n)", configuration: .init(maxIterations: 1_000), closure: { benchmark in
            let fixture = Current.shared.fixture!
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                fixture.dispatch()
                try! fixture.file!.waitUntilSaved()
            }
            benchmark.stopMeasurement()
        }, setup: {
            Current.shared.fixture = Fixture(n: n, saved: true, name: "flushed")
        }, teardown: {
            Current.shared.fixture?.close()
            Current.shared.fixture = nil
        })

        let written = BenchmarkMetric.custom("bytesWrittenPerAction", polarity: .prefersSmaller, useScalingFactor: false)
        Benchmark("Persistence.bytesWrittenPerAction.N\(n)",
                  configuration: .init(metrics: [written], warmupIterations: 0, maxIterations: 1, thresholds: nil)) { benchmark in
            let fixture = Fixture(n: n, saved: true, name: "written")
            fixture.dispatch()
            try! fixture.file!.waitUntilSaved()
            let actions = 200
            let before = bytesWritten()
            for _ in 0..<actions {
                fixture.dispatch()
                try! fixture.file!.waitUntilSaved()
            }
            benchmark.measurement(written, (bytesWritten() - before) / actions)
            fixture.close()
        }

        Benchmark("Persistence.wholeStateJSON.N\(n)",
                  configuration: .init(maxIterations: n >= 1_000_000 ? 5 : n >= 100_000 ? 50 : 1_000), closure: { benchmark in
            let fixture = Current.shared.fixture!
            let url = fixture.folder.appendingPathComponent("state.json")
            let encoder = JSONEncoder()
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                fixture.dispatch()
                try! encoder.encode(fixture.store.state).write(to: url, options: .atomic)
            }
            benchmark.stopMeasurement()
        }, setup: {
            Current.shared.fixture = Fixture(n: n, saved: false, name: "whole")
        }, teardown: {
            Current.shared.fixture?.close()
            Current.shared.fixture = nil
        })

        let wholeBytes = BenchmarkMetric.custom("wholeStateBytesPerAction", polarity: .prefersSmaller, useScalingFactor: false)
        Benchmark("Persistence.wholeStateBytesPerAction.N\(n)",
                  configuration: .init(metrics: [wholeBytes], warmupIterations: 0, maxIterations: 1, thresholds: nil)) { benchmark in
            let fixture = Fixture(n: n, saved: false, name: "wholeBytes")
            fixture.dispatch()
            benchmark.measurement(wholeBytes, try! JSONEncoder().encode(fixture.store.state).count)
            fixture.close()
        }

        Benchmark("Persistence.openParts.N\(n).decodeSnapshot",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal], warmupIterations: 1, maxIterations: n >= 1_000_000 ? 3 : 50)) { benchmark in
            let data = try! JSONEncoder().encode(makeState(n))
            let decoder = JSONDecoder()
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                let state = try! decoder.decode(State.self, from: data)
                benchmark.stopMeasurement()
                precondition(state.todos.count == n)
            }
        }

        // The same todos decoded as a plain array (no list built), and the
        // state through Foundation's binary property list instead of JSON:
        // what another Foundation format, or no list, would save an open.
        Benchmark("Persistence.openParts.N\(n).decodePlainArray",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal], warmupIterations: 1, maxIterations: n >= 1_000_000 ? 3 : 50)) { benchmark in
            let data = try! JSONEncoder().encode((0..<n).map { Todo(id: $0, title: "todo \($0) ..................") })
            let decoder = JSONDecoder()
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                let todos = try! decoder.decode([Todo].self, from: data)
                benchmark.stopMeasurement()
                precondition(todos.count == n)
            }
        }

        Benchmark("Persistence.openParts.N\(n).decodeBinaryPlist",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal], warmupIterations: 1, maxIterations: n >= 1_000_000 ? 3 : 50)) { benchmark in
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            let data = try! encoder.encode(makeState(n))
            let decoder = PropertyListDecoder()
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                let state = try! decoder.decode(State.self, from: data)
                benchmark.stopMeasurement()
                precondition(state.todos.count == n)
            }
        }

        Benchmark("Persistence.openParts.N\(n).buildList",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal], warmupIterations: 1, maxIterations: n >= 1_000_000 ? 3 : 50)) { benchmark in
            let todos = (0..<n).map { Todo(id: $0, title: "todo \($0) ..................") }
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                let list = IdentifiedList(todos)
                benchmark.stopMeasurement()
                precondition(list.count == n)
            }
        }

        Benchmark("Persistence.saveHistory.N\(n).entries1000",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal], warmupIterations: 2, maxIterations: 200), closure: { benchmark in
            let fixture = Current.shared.fixture!
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                let saved = try! await fixture.file!.saveHistory()
                benchmark.stopMeasurement()
                precondition(saved, "the history was not saved")
            }
        }, setup: {
            Current.shared.fixture = Fixture.withHistory(n: n, entries: 1_000)
        }, teardown: {
            Current.shared.fixture?.close()
            Current.shared.fixture = nil
        })

        let historyBytes = BenchmarkMetric.custom("historyBytesWrittenPerEntry", polarity: .prefersSmaller, useScalingFactor: false)
        Benchmark("Persistence.historyBytesWritten.N\(n).entries1000",
                  configuration: .init(metrics: [historyBytes], warmupIterations: 0, maxIterations: 1, thresholds: nil)) { benchmark in
            let fixture = Fixture.withHistory(n: n, entries: 1_000)
            try! fixture.file!.waitUntilSaved()
            let before = bytesWritten()
            let saved = try! await fixture.file!.saveHistory()
            precondition(saved, "the history was not saved")
            benchmark.measurement(historyBytes, (bytesWritten() - before) / 1_000)
            fixture.close()
        }

        let patches = n >= 1_000_000 ? (ProcessInfo.processInfo.environment["PERSIST_PATCHES"].flatMap(Int.init) ?? 10_000) : 1_000
        Benchmark("Persistence.open.N\(n).patches\(patches)",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal], warmupIterations: 1, maxIterations: n >= 1_000_000 ? 5 : 50)) { benchmark in
            let folder = scratchFolder("open")
            let path = makeLoggedFile(n: n, patches: patches, in: folder)
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                let file = try! PersistentState(path: path, initial: makeState(0))
                benchmark.stopMeasurement()
                precondition(file.state.todos.count == n)
                try! file.close()
            }
            try? FileManager.default.removeItem(at: folder)
        }

        Benchmark("Persistence.grdbRows.N\(n)",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal], warmupIterations: 1, maxIterations: n >= 1_000_000 ? 5 : 50)) { benchmark in
            let folder = scratchFolder("rows")
            let path = makeRowsFile(n: n, in: folder)
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                let list = readRows(path)
                benchmark.stopMeasurement()
                precondition(list.count == n)
            }
            try? FileManager.default.removeItem(at: folder)
        }

        let openPerMille = BenchmarkMetric.custom("openOverGRDBPerMille", polarity: .prefersSmaller, useScalingFactor: false)
        Benchmark("Persistence.openOverGRDB.N\(n).patches\(patches)",
                  configuration: .init(metrics: [openPerMille], warmupIterations: 0, maxIterations: 1, thresholds: nil)) { benchmark in
            let folder = scratchFolder("openOverGRDB")
            let logged = makeLoggedFile(n: n, patches: patches, in: folder)
            let rows = makeRowsFile(n: n, in: folder)
            let clock = ContinuousClock()
            func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
            func open() -> Duration {
                clock.measure {
                    let file = try! PersistentState(path: logged, initial: makeState(0))
                    precondition(file.state.todos.count == n)
                    try! file.close()
                }
            }
            func read() -> Duration { clock.measure { precondition(readRows(rows).count == n) } }
            _ = (open(), read())  // warm-up
            var ratios: [Double] = []
            for k in 0..<(n >= 1_000_000 ? 7 : n >= 100_000 ? 21 : 61) {
                let (o, r) = k % 2 == 0 ? (open(), read()) : { let r = read(); return (open(), r) }()
                ratios.append(seconds(o) / seconds(r))
            }
            ratios.sort()
            benchmark.measurement(openPerMille, Int((ratios[ratios.count / 2] * 1_000).rounded()))
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
