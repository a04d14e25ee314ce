/// A small, fast, seeded generator (SplitMix64), so that every strategy sees
/// the same consumers and the same actions in the same order.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What one consumer selects, resolved to concrete indices and paths.
public enum Selection: Sendable, Hashable {
    case field
    case entity(Int)
    case list
    case derived
    case treeLeaf([Int])
}

/// One action, resolved to concrete entities, paths and values before the
/// timed loop, so that generating it costs nothing inside the measurement.
public struct WorkloadAction: Sendable {
    public enum Kind: Sendable {
        case updateEntities(EntityField, [Int])
        case setField
        case updateTreeLeaf([Int])
    }
    public var kind: Kind
    /// The title an `updateEntities(.title, _)` action writes (pre-built, so
    /// that the write is a retain, not an allocation of the workload).
    public var title: String
}

/// A profile resolved at one entity count: the consumers' selections and a
/// sequence of actions, generated from a fixed seed.
public struct Workload: Sendable {
    public var profile: ProfileSpec
    public var entities: Int
    public var selections: [Selection]
    public var actions: [WorkloadAction]
    /// How many dispatches the measured phase may take at most.
    public var maxDispatches: Int
    /// How long the measured phase may take, in seconds.
    public var seconds: Double

    public var titleLength: Int { profile.titleLength }
    public var tree: ProfileSpec.Tree { profile.tree }

    /// The seed every workload uses unless `FASTSTORE_SEED` says otherwise.
    public static var seed: UInt64 {
        if let text = getenvString("FASTSTORE_SEED"), let value = UInt64(text) { return value }
        return 0x5EED_F00D
    }

    /// Builds the workload of `profile` at `entities` entities, with room for
    /// `warmup + maxDispatches` actions.
    public init(profile: ProfileSpec, entities: Int, maxDispatches: Int, seconds: Double, warmup: Int) {
        self.profile = profile
        self.entities = entities
        self.maxDispatches = maxDispatches
        self.seconds = seconds
        var rng = SplitMix64(seed: Workload.seed ^ UInt64(truncatingIfNeeded: entities))

        func randomLeafPath() -> [Int] {
            (0..<profile.tree.depth).map { _ in Int.random(in: 0..<profile.tree.fanOut, using: &rng) }
        }

        var selections: [Selection] = []
        for group in profile.consumers {
            for i in 0..<group.count {
                switch group.select {
                case .field: selections.append(.field)
                case .list: selections.append(.list)
                case .derived: selections.append(.derived)
                case .entity:
                    // Spread over the list, with a random offset, so that
                    // 10,000 consumers over 10,000 items watch every item.
                    let spread = group.count >= entities ? i % entities : (i * (entities / group.count) + Int.random(in: 0..<max(1, entities / group.count), using: &rng)) % entities
                    selections.append(.entity(spread))
                case .treeLeaf:
                    selections.append(.treeLeaf(randomLeafPath()))
                }
            }
        }
        self.selections = selections

        let totalWeight = profile.actions.reduce(0) { $0 + $1.weight }
        let count = warmup + maxDispatches
        var actions: [WorkloadAction] = []
        actions.reserveCapacity(count)
        let titles = (0..<64).map { makeText("t\($0)-", profile.titleLength) }
        for n in 0..<count {
            var pick = Int.random(in: 0..<totalWeight, using: &rng)
            var spec = profile.actions[0]
            for a in profile.actions {
                if pick < a.weight { spec = a; break }
                pick -= a.weight
            }
            switch spec.kind {
            case .setField:
                actions.append(WorkloadAction(kind: .setField, title: ""))
            case .updateTreeLeaf:
                actions.append(WorkloadAction(kind: .updateTreeLeaf(randomLeafPath()), title: ""))
            case .updateEntities:
                var chosen = Set<Int>()
                while chosen.count < spec.entities { chosen.insert(Int.random(in: 0..<entities, using: &rng)) }
                actions.append(WorkloadAction(kind: .updateEntities(spec.field, chosen.sorted()), title: titles[n % titles.count]))
            }
        }
        self.actions = actions
    }
}

/// A string of exactly `length` ASCII characters starting with `prefix`
/// (truncated or padded with dots). Strings over 15 bytes live on the heap.
public func makeText(_ prefix: String, _ length: Int) -> String {
    var bytes = Array(prefix.utf8.prefix(length))
    while bytes.count < length { bytes.append(UInt8(ascii: ".")) }
    return String(decoding: bytes, as: UTF8.self)
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func getenvString(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}
