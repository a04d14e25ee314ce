import Foundation
#if canImport(Darwin)
import Darwin
#endif

/// What this machine offers a run: its memory.
public struct MachineLimits: Sendable {
    /// Bytes of memory the run may use: the physical memory, or a lower
    /// cgroup limit.
    public var memoryBytes: Double
    /// Where ``memoryBytes`` comes from, for messages.
    public var memorySource: String

    public init(memoryBytes: Double, memorySource: String) {
        self.memoryBytes = memoryBytes
        self.memorySource = memorySource
    }

    /// This machine's: `MemTotal` of /proc/meminfo (or the cgroup's
    /// `memory.max` when lower) on Linux, `hw.memsize` on Darwin.
    public static func current() -> MachineLimits {
        #if os(Linux)
        var limits = MachineLimits(memoryBytes: Double(ProcessInfo.processInfo.physicalMemory), memorySource: "physical memory")
        if let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
           let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") }),
           let kib = Double(line.split(separator: " ").dropFirst().first ?? "") {
            limits = MachineLimits(memoryBytes: kib * 1024, memorySource: "physical memory, /proc/meminfo")
        }
        if let text = try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8),
           let bytes = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes < limits.memoryBytes {
            limits = MachineLimits(memoryBytes: bytes, memorySource: "this cgroup's limit, /sys/fs/cgroup/memory.max")
        }
        return limits
        #elseif canImport(Darwin)
        var bytes: UInt64 = 0
        var size = MemoryLayout<UInt64>.size
        if sysctlbyname("hw.memsize", &bytes, &size, nil, 0) == 0 {
            return MachineLimits(memoryBytes: Double(bytes), memorySource: "physical memory, sysctl hw.memsize")
        }
        return MachineLimits(memoryBytes: Double(ProcessInfo.processInfo.physicalMemory), memorySource: "physical memory")
        #else
        return MachineLimits(memoryBytes: Double(ProcessInfo.processInfo.physicalMemory), memorySource: "physical memory")
        #endif
    }
}

/// Whether a profile fits the machine, estimated from its fields before
/// anything is built: the memory of its largest state and the time of one
/// dispatch of its slowest strategy. ``ProfileLoader`` checks the fields'
/// ranges; this checks what they add up to (10,000,000 entities with
/// 4,096-byte titles pass the ranges and need some 50 GiB).
///
/// The figures per entity and per row are this harness's own, measured with
/// `fsbench --json` (`stateBytes`, `consumerBytes`, `medianNs`) on a 2-core
/// x86_64 Linux machine, rounded up.
public enum ProfileBudget {
    /// The share of the machine's memory a run may take; the rest is the
    /// system's and other processes'.
    public static let memoryShare = 0.8
    /// The longest a dispatch may take: the measured phase takes at least
    /// five, after a warm-up, for every strategy and size.
    public static let maxSecondsPerDispatch = 60.0

    // Bytes per entity, besides its title's heap buffer: the value
    // strategies' item (42 B) plus the copy a write makes while the old
    // state is still held; the versioned strategies' 55 B; an observed
    // object (200 B).
    static let valueEntityBytes = 96.0
    static let versionedEntityBytes = 64.0
    static let observedEntityBytes = 210.0
    /// Observation's registrations for one consumer that reads every item
    /// (`list`, `derived`), per item (measured 650 B).
    static let observedReadBytes = 700.0
    /// One consumer of one value (`entity`, `field`, `treeLeaf`): measured
    /// up to 2.8 KB for faststore's, a `StateConsumer` of its own per screen
    /// with its store subscription (2.0-2.8 KB from 10,010 to 105 screens;
    /// 0.4-0.6 KB in one shared consumer), 1.2 KB for Observation's.
    static let consumerBytes = 3072.0
    /// One tree node besides its label (an observed object at most).
    static let treeNodeBytes = 210.0
    /// Seconds to copy or compare one item (value strategies).
    static let copySecondsPerItem = 20e-9
    /// Seconds for Observation to re-read one item under tracking
    /// (measured 4-7 µs).
    static let observedSecondsPerItem = 8e-6

    /// Heap bytes of a native string of `length` UTF-8 bytes: none up to 15
    /// (inline), else its object rounded up to jemalloc's size class.
    public static func stringHeapBytes(_ length: Int) -> Double {
        length <= 15 ? 0 : Double(sizeClass(length + 33))
    }

    /// jemalloc's size class for `bytes`: multiples of 16 up to 128, then
    /// four classes per doubling.
    static func sizeClass(_ bytes: Int) -> Int {
        guard bytes > 128 else { return max(16, (bytes + 15) / 16 * 16) }
        var group = 128
        while group * 2 < bytes { group *= 2 }
        let spacing = group / 4
        return (bytes + spacing - 1) / spacing * spacing
    }

    /// One size a run measures a profile at, and the field that asks for it.
    public struct Size: Sendable, Equatable {
        public var entities: Int
        public var field: String
        public var maxDispatches: Int
        public var maxDispatchesField: String
        public init(entities: Int, field: String, maxDispatches: Int, maxDispatchesField: String) {
            self.entities = entities; self.field = field
            self.maxDispatches = maxDispatches; self.maxDispatchesField = maxDispatchesField
        }
    }

    /// The sizes a run measures `spec` at: the full ones, the quick ones, or
    /// (`nil`, for `--validate`) both.
    public static func sizes(of spec: ProfileSpec, quick: Bool?, sweep: Bool = true) -> [Size] {
        var sizes: [Size] = []
        if quick != true {
            sizes.append(Size(entities: spec.entities, field: "state.entities", maxDispatches: spec.maxDispatches, maxDispatchesField: "run.maxDispatches"))
            if sweep {
                for (i, n) in spec.sweep.enumerated() {
                    sizes.append(Size(entities: n, field: "sweep[\(i)]", maxDispatches: spec.maxDispatches, maxDispatchesField: "run.maxDispatches"))
                }
            }
        }
        if quick != false {
            sizes.append(Size(entities: spec.quickEntities, field: "quick.entities", maxDispatches: spec.quickMaxDispatches, maxDispatchesField: "quick.maxDispatches"))
            if sweep {
                for (i, n) in spec.quickSweep.enumerated() {
                    sizes.append(Size(entities: n, field: "quick.sweep[\(i)]", maxDispatches: spec.quickMaxDispatches, maxDispatchesField: "quick.maxDispatches"))
                }
            }
        }
        return sizes
    }

    /// The estimate for one size.
    public struct Estimate: Sendable {
        /// Peak bytes of the largest strategy's instance, plus the workload.
        public var bytes: Double
        public var seconds: Double
        // The parts, to name the field that weighs most.
        var itemBytes: Double
        var titleBytesPerItem: Double
        var entityBytesPerItem: Double
        var readBytes: Double
        var actionBytes: Double
        var consumerBytes: Double
        var treeBytes: Double
        var observedSeconds: Double
        var copySeconds: Double
        var sortSeconds: Double
    }

    /// Whether `strategy` is one of the Observation strategies (objects per
    /// item, registrations per read).
    static func observes(_ strategy: String) -> Bool { strategy.hasPrefix("observation") }

    /// The strategies that hold the state as versioned nodes.
    static let versionedStrategies: Set<String> = [
        "faststore", "faststore-main", "faststore-shared", "faststore-lazy", "faststore-main-lazy", "full-copy-persistent",
    ]

    public static func estimate(_ spec: ProfileSpec, at size: Size, strategies: [String]) -> Estimate {
        // The list at its largest: what an action or the setup creates
        // (a replacement of the whole list, or rows appended to it) may
        // exceed the profile's size.
        let everything = spec.actions + spec.setup
        let replaced = everything.filter { $0.kind == .replaceEntities }.map(\.entities).max() ?? 0
        // (Inserts are left out, as before appends existed: the shipped
        // profiles' estimates stay what they were.)
        let added = everything.filter { $0.kind == .appendEntities }.map(\.entities).reduce(0, +)
        let n = Double(max(size.entities, replaced) + added)
        let copying = strategies.contains { !observes($0) }
        let title = stringHeapBytes(spec.titleLength)
        let perEntity = strategies.map { s in
            observes(s) ? observedEntityBytes : (versionedStrategies.contains(s) ? versionedEntityBytes : valueEntityBytes)
        }.max() ?? valueEntityBytes

        var wholeReaders = 0.0, lazyWholeReaders = 0.0, valueConsumers = 0.0
        for group in spec.consumers {
            switch group.select {
            case .list: wholeReaders += Double(group.count)
            case .derived: wholeReaders += Double(group.count); lazyWholeReaders += Double(group.count)
            case .entity, .field, .treeLeaf, .rowSelected: valueConsumers += Double(group.count)
            }
        }
        let observedReaders = strategies.contains("observation") ? wholeReaders : (strategies.contains("observation-lazy") ? lazyWholeReaders : 0)

        let actions = Double(size.maxDispatches + max(spec.burstSize * spec.threads, 50))
        // NB: a replacement or an append carries its first id and count,
        // not an id per entity; the setup is generated with each action.
        let idsPerAction = Double((everything.filter { $0.kind != .replaceEntities && $0.kind != .appendEntities }.map(\.entities).max() ?? 0)
                                  + (spec.hasSetup ? spec.setup.count : 0))
        let actionBytes = actions * (48 + (idsPerAction > 0 ? 32 + 16 * idsPerAction : 0)) * (spec.hasSetup ? Double(1 + spec.setup.count) : 1)
        let treeBytes = Double(spec.tree.depth > 0 ? spec.tree.nodeCount : 0) * (treeNodeBytes + stringHeapBytes(spec.tree.labelLength))
        let readBytes = n * observedReadBytes * observedReaders
        let consumers = valueConsumers * consumerBytes
        let itemBytes = n * (perEntity + title)

        // Time: the share of actions that write items, each costing the
        // copying strategies a copy of the list and a comparison per
        // whole-list reader (full-copy runs its selectors twice), and the
        // Observation strategies a tracked re-read per whole-list reader.
        let weights = Double(spec.actions.reduce(0) { $0 + $1.weight })
        let writing = Double(spec.actions.filter { $0.kind != .setField && $0.kind != .updateTreeLeaf && $0.kind != .selectEntity }.reduce(0) { $0 + $1.weight }) / weights
        let sorting = Double(spec.actions.filter { $0.kind == .sortEntities }.reduce(0) { $0 + $1.weight }) / weights
        let copySeconds = copying ? writing * n * (1 + 2 * wholeReaders) * copySecondsPerItem : 0
        let observedSeconds = writing * n * observedReaders * observedSecondsPerItem
        let sortSeconds = sorting * n * log2(max(n, 2)) * copySecondsPerItem

        return Estimate(
            bytes: itemBytes + readBytes + actionBytes + consumers + treeBytes,
            seconds: max(copySeconds, observedSeconds) + sortSeconds + Double(spec.consumerCount) * 2 * copySecondsPerItem,
            itemBytes: itemBytes, titleBytesPerItem: title, entityBytesPerItem: perEntity, readBytes: readBytes,
            actionBytes: actionBytes, consumerBytes: consumers, treeBytes: treeBytes,
            observedSeconds: observedSeconds, copySeconds: copySeconds, sortSeconds: sortSeconds)
    }

    /// Refuses `spec` when, at one of `sizes`, its estimated memory exceeds
    /// ``memoryShare`` of `machine`'s, or a dispatch would take more than
    /// ``maxSecondsPerDispatch``, naming the field that weighs most.
    public static func check(_ spec: ProfileSpec, sizes: [Size], strategies: [String], machine: MachineLimits) throws(ProfileError) {
        let limit = machine.memoryBytes * memoryShare
        for size in sizes {
            let e = estimate(spec, at: size, strategies: strategies)
            let at = "at \(Format.grouped(size.entities)) entities (\(size.field))"
            if e.bytes > limit {
                let parts: [(Double, String, String)] = [
                    (e.itemBytes, e.titleBytesPerItem > e.entityBytesPerItem ? "state.titleLength" : size.field,
                     "\(Format.bytes(e.entityBytesPerItem + e.titleBytesPerItem)) per entity"
                        + (e.titleBytesPerItem > 0 ? " (its \(Format.grouped(spec.titleLength))-byte title takes \(Format.bytes(e.titleBytesPerItem)))" : "")),
                    (e.readBytes, largestGroup(spec, [.list, .derived]), "Observation's registrations of the consumers that read every entity"),
                    (e.actionBytes, size.maxDispatchesField, "\(Format.grouped(size.maxDispatches)) actions generated in advance"),
                    (e.consumerBytes, largestGroup(spec, [.entity, .field, .treeLeaf, .rowSelected]), "the consumers"),
                    (e.treeBytes, "state.tree", "\(Format.grouped(spec.tree.nodeCount)) tree nodes"),
                ]
                let top = parts.max { $0.0 < $1.0 }!
                let detail = parts.filter { $0.0 >= 1024 * 1024 }.map { "\($0.2): \(Format.bytes($0.0))" }.joined(separator: "; ")
                throw ProfileError(
                    file: spec.source, field: top.1,
                    expected: "a run that fits this machine's memory: at most \(Format.bytes(limit)) (\(Int(memoryShare * 100)) % of \(Format.bytes(machine.memoryBytes)), \(machine.memorySource))",
                    found: "an estimated \(Format.bytes(e.bytes)) \(at): \(detail)")
            }
            if e.seconds > maxSecondsPerDispatch {
                let parts: [(Double, String, String)] = [
                    (e.observedSeconds, largestGroup(spec, [.list, .derived]), "the Observation strategies re-read every entity for each consumer of the whole list (about \(Format.duration(observedSecondsPerItem * 1e9)) per entity)"),
                    (e.copySeconds, size.field, "the copying strategies copy and compare the whole list"),
                    (e.sortSeconds, spec.actions.firstIndex { $0.kind == .sortEntities }.map { "actions[\($0)].weight" } ?? size.field, "sorting the list"),
                ]
                let top = parts.max { $0.0 < $1.0 }!
                throw ProfileError(
                    file: spec.source, field: top.1,
                    expected: "dispatches this machine can measure: at most \(Format.duration(maxSecondsPerDispatch * 1e9)) per dispatch for the slowest strategy",
                    found: "an estimated \(Format.duration(e.seconds * 1e9)) per dispatch \(at): \(top.2)")
            }
        }
    }

    /// `consumers[i].count` of the largest group of one of `kinds`.
    static func largestGroup(_ spec: ProfileSpec, _ kinds: Set<SelectKind>) -> String {
        let groups = spec.consumers.enumerated().filter { kinds.contains($0.element.select) }
        guard let top = groups.max(by: { $0.element.count < $1.element.count }) else { return "consumers" }
        return "consumers[\(top.offset)].count"
    }
}
