import FastStore
import Foundation
import JemallocMeter
import StrategyKit

// fscollections: big state side by side, in one process. The same n todos
// (an id, a 16-to-20-byte title, `done`) held as an array, a
// `VersionedList` and an `IdentifiedList` (the README's quick start):
// the bytes each holds beyond the source array (the titles' storage is
// shared, not counted), its build from the array, an iteration from this
// module (another module than FastStore's), and a write by id with the
// previous version kept (as a store's published state or a history keeps
// it) at n and at n / 10.
//
// Usage: fscollections [COUNT [REPEATS]] (default 1,000,000 and 5); prints
// Markdown tables of medians. scripts/collections.sh builds and runs it.

struct Todo: Identifiable, Sendable {
    var id: Int
    var title: String
    var done: Bool
}

let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 0 : 1_000_000
let repeats = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 5
guard count >= 10, repeats >= 1 else {
    FileHandle.standardError.write(Data("usage: fscollections [COUNT >= 10 [REPEATS >= 1]]\n".utf8))
    exit(2)
}
guard JemallocMeter.isActive else {
    FileHandle.standardError.write(Data("fscollections: jemalloc does not serve this process's malloc (install libjemalloc-dev and rebuild)\n".utf8))
    exit(2)
}
let meter = JemallocMeter()

func todos(_ n: Int) -> [Todo] {
    (0 ..< n).map { i in
        // NB: 16 to 20 UTF-8 bytes: past the 15 a small string holds
        // inline, so each title has its own storage, shared by every copy.
        let base = "todo #\(i) "
        return Todo(id: i, title: base.padding(toLength: 16 + i % 5, withPad: ".", startingAt: 0), done: i % 3 == 0)
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func seconds(_ body: () -> Void) -> Double {
    let start = monotonicNanoseconds()
    body()
    return Double(monotonicNanoseconds() - start) / 1e9
}

/// Bytes held by what `build` returns, and the median build time.
func measureBuild<T>(_ build: () -> T) -> (bytes: Int, seconds: Double, value: T) {
    var times: [Double] = []
    var bytes = 0
    var kept: T? = nil
    for _ in 0 ..< repeats {
        kept = nil
        let before = meter.liveBytes()
        var built: T? = nil
        times.append(seconds { built = build() })
        bytes = meter.liveBytes() - before
        kept = built
    }
    return (bytes, median(times), kept!)
}

/// The median time of `body` over the repeats.
func measure(_ body: () -> Void) -> Double {
    median((0 ..< repeats).map { _ in seconds(body) })
}

@inline(never)
func iterate<C: Sequence>(_ collection: C) -> Int where C.Element == Todo {
    var sum = 0
    for todo in collection where todo.done { sum &+= todo.id }
    return sum
}

let source = todos(count)
var checksum = 0

// NB: a copy of the elements into a new buffer (`Array(source)` would share
// the source's buffer and hold nothing).
let array = measureBuild {
    [Todo](unsafeUninitializedCapacity: source.count) { buffer, initialized in
        initialized = buffer.initialize(fromContentsOf: source)
    }
}
let versioned = measureBuild { VersionedList(source) }
let identified = measureBuild { IdentifiedList(source) }

let arrayIteration = measure { checksum &+= iterate(array.value) }
let versionedIteration = measure { checksum &+= iterate(versioned.value) }
let identifiedIteration = measure { checksum &+= iterate(identified.value) }

/// Seconds per write by id into an `IdentifiedList` of `n` todos, with the
/// previous version kept alive across each write.
@MainActor func writeByID(_ n: Int) -> Double {
    var list = IdentifiedList(todos(n))
    let writes = 20_000
    var rng = SystemRandomNumberGenerator()
    let ids = (0 ..< writes).map { _ in Int.random(in: 0 ..< n, using: &rng) }
    var kept = list
    let time = measure {
        for id in ids {
            kept = list
            list[id: id]?.done.toggle()
        }
    }
    checksum &+= kept.count
    return time / Double(writes)
}

let writeAtCount = writeByID(count)
let writeAtTenth = writeByID(count / 10)

func row(_ name: String, _ bytes: Int, _ build: Double, _ iteration: Double) -> String {
    let b = Double(array.bytes)
    return "| \(name) | \(String(format: "%.1f", Double(bytes) / 1e6)) MB (\(String(format: "%.2f", Double(bytes) / b))×) "
        + "| \(String(format: "%.1f", build * 1e3)) ms (\(String(format: "%.2f", build / array.seconds))×) "
        + "| \(String(format: "%.2f", iteration * 1e3)) ms (\(String(format: "%.2f", iteration / arrayIteration))×) |"
}

print("\(count) todos, medians of \(repeats) (checksum \(checksum % 1000))")
print("")
print("| | bytes held | build from the array | iterate |")
print("|---|---:|---:|---:|")
print(row("`[Todo]`", array.bytes, array.seconds, arrayIteration))
print(row("`VersionedList<Todo>`", versioned.bytes, versioned.seconds, versionedIteration))
print(row("`IdentifiedList<Todo>`", identified.bytes, identified.seconds, identifiedIteration))
print("")
print("| `IdentifiedList` write by id, previous version kept | at \(count) | at \(count / 10) | ratio |")
print("|---|---:|---:|---:|")
print("| per write | \(String(format: "%.0f", writeAtCount * 1e9)) ns | \(String(format: "%.0f", writeAtTenth * 1e9)) ns | \(String(format: "%.2f", writeAtCount / writeAtTenth))× |")
