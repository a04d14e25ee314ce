import CJemalloc
import StrategyKit

/// Memory figures from jemalloc, which `fsbench` links and which therefore
/// serves every `malloc` of the process.
///
/// - Allocation totals: the sum over jemalloc's size classes of
///   `stats.arenas.<all>.bins.<j>.nrequests` (small classes) and
///   `stats.arenas.<all>.lextents.<j>.nrequests` (large classes), and of each
///   count times its class size for bytes. Thread caches' counts are merged
///   into these when `epoch` is written, so the totals cover every thread and
///   are exact (checked by `fsbench --self-test`).
/// - Live bytes: `stats.allocated` after flushing this thread's cache and
///   writing `epoch`.
public final class JemallocMeter: MemoryMeter, @unchecked Sendable {
    private struct Counter {
        var mib: [Int]
        var size: UInt64
    }
    private var counters: [Counter] = []
    private var epochMib: [Int] = []
    private var allocatedMib: [Int] = []
    private var flushMib: [Int] = []
    /// Requests and bytes that taking a reading itself costs (measured once;
    /// `--self-test` requires zero).
    public private(set) var overhead = AllocationTotals(count: 0, bytes: 0)

    public init() {
        epochMib = Self.mib("epoch")
        allocatedMib = Self.mib("stats.allocated")
        flushMib = Self.mib("thread.tcache.flush")
        let bins: UInt32 = Self.read("arenas.nbins")
        let large: UInt32 = Self.read("arenas.nlextents")
        // MALLCTL_ARENAS_ALL: statistics merged over every arena.
        let all = 4096
        for j in 0..<Int(bins) {
            let size: Int = Self.read("arenas.bin.\(j).size")
            var mib = Self.mib("stats.arenas.0.bins.0.nrequests")
            mib[2] = all; mib[4] = j
            counters.append(Counter(mib: mib, size: UInt64(size)))
        }
        for j in 0..<Int(large) {
            let size: Int = Self.read("arenas.lextent.\(j).size")
            var mib = Self.mib("stats.arenas.0.lextents.0.nrequests")
            mib[2] = all; mib[4] = j
            counters.append(Counter(mib: mib, size: UInt64(size)))
        }
        let a = allocationTotals()
        let b = allocationTotals()
        overhead = b - a
    }

    /// Whether jemalloc serves this process's allocations (its `malloc` won
    /// symbol resolution) and keeps statistics.
    public static var isActive: Bool {
        var enabled = false
        var length = MemoryLayout<Bool>.size
        return mallctl("config.stats", &enabled, &length, nil, 0) == 0 && enabled
    }

    private static func mib(_ name: String) -> [Int] {
        var mib = [Int](repeating: 0, count: 8)
        var length = mib.count
        let status = mib.withUnsafeMutableBufferPointer { mallctlnametomib(name, $0.baseAddress, &length) }
        precondition(status == 0, "jemalloc has no mallctl '\(name)' (status \(status))")
        return Array(mib.prefix(length))
    }

    private static func read<T: FixedWidthInteger>(_ name: String) -> T {
        var value: T = 0
        var length = MemoryLayout<T>.size
        let status = mallctl(name, &value, &length, nil, 0)
        precondition(status == 0 && length == MemoryLayout<T>.size, "mallctl '\(name)' failed (status \(status), length \(length))")
        return value
    }

    public func flushThreadCache() {
        _ = flushMib.withUnsafeBufferPointer { mallctlbymib($0.baseAddress, $0.count, nil, nil, nil, 0) }
    }

    private func refresh() {
        flushThreadCache()
        var epoch: UInt64 = 1
        withUnsafeMutableBytes(of: &epoch) { raw in
            var length = raw.count
            _ = epochMib.withUnsafeBufferPointer { mallctlbymib($0.baseAddress, $0.count, raw.baseAddress, &length, raw.baseAddress, raw.count) }
        }
    }

    public func allocationTotals() -> AllocationTotals {
        refresh()
        var total = AllocationTotals(count: 0, bytes: 0)
        for counter in counters {
            var value: UInt64 = 0
            var length = MemoryLayout<UInt64>.size
            _ = counter.mib.withUnsafeBufferPointer { mallctlbymib($0.baseAddress, $0.count, &value, &length, nil, 0) }
            total.count &+= value
            total.bytes &+= value &* counter.size
        }
        return total
    }

    public func liveBytes() -> Int {
        refresh()
        var value = 0
        var length = MemoryLayout<Int>.size
        _ = allocatedMib.withUnsafeBufferPointer { mallctlbymib($0.baseAddress, $0.count, &value, &length, nil, 0) }
        return value
    }
}
