import BenchCore
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

/// What one consumer selects, resolved to concrete ids and paths.
public enum Selection: Sendable, Hashable {
    case field
    /// The entity with this id (`nil` once it is removed; ids are never reused).
    case entity(Int)
    case list
    case derived
    case treeLeaf([Int])
    /// Whether the entity with this id is the selected one (a row's highlight).
    case rowSelected(Int)
}

/// One action, resolved to concrete entities, paths and values before the
/// timed loop, so that generating it costs nothing inside the measurement.
///
/// Entities are named by id. An id that is not in the list when the action
/// runs (only possible when threads reorder actions) is skipped; positions
/// are clamped to the list's count. So every strategy applies any sequence
/// of actions the same way.
public struct WorkloadAction: Sendable {
    public enum Kind: Sendable {
        /// Writes `field` of each entity (by id).
        case updateEntities(EntityField, [Int])
        case setField
        case updateTreeLeaf([Int])
        /// Inserts a new entity with each id (never used before) at its
        /// position (clamped to the count), titled `title`, not done, count 0.
        case insertEntities([Placement])
        /// Removes each entity (by id).
        case removeEntities([Int])
        /// Moves each entity (by id) so that it ends at its position
        /// (clamped to the last position).
        case moveEntities([Placement])
        /// Sorts the list by `field`, ties by id, in one direction (see
        /// ``EntityFields/precedes(_:by:ascending:)``).
        case sortEntities(EntityField, ascending: Bool)
        /// Replaces the whole list with `count` new entities with the ids
        /// `firstID ..< firstID + count` (never used before), titled
        /// `title`, not done, count 0; clears the selection (the selected
        /// row is gone).
        case replaceEntities(firstID: Int, count: Int)
        /// Appends `count` new entities with the ids `firstID ..< firstID +
        /// count`, titled `title`, not done, count 0.
        case appendEntities(firstID: Int, count: Int)
        /// Removes every entity; clears the selection.
        case clearEntities
        /// Swaps the entities at positions 1 and count − 2 (nothing when
        /// they are the same position or the list is shorter).
        case swapEntities
        /// Sets the root field `selected` to this id (`nil`: none, when the
        /// list was empty).
        case selectEntity(Int?)
    }
    /// An entity id and a position in the list.
    public struct Placement: Sendable, Equatable {
        public var id: Int
        public var position: Int
    }
    public var kind: Kind
    /// The title an `updateEntities(.title, _)` action writes, or the title
    /// of the entities an `insertEntities` action inserts (pre-built, so
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
    /// The setup of each action (the profile's `setup`, resolved): empty
    /// when the profile has none, else one array per action, dispatched and
    /// waited for before it, outside every figure.
    public var setups: [[WorkloadAction]]
    /// How many dispatches the measured phase may take at most.
    public var maxDispatches: Int
    /// How long the measured phase may take, in seconds.
    public var seconds: Double

    public var titleLength: Int { profile.titleLength }
    public var tree: ProfileSpec.Tree { profile.tree }
    /// Whether the entity with id k is at position k for the whole run (no
    /// action inserts, removes, moves or sorts). Strategies then keep their
    /// plain list shape and read a row by position; otherwise they keep an
    /// index by id (see docs/benchmarks/README.md).
    public var idsArePositions: Bool { !profile.hasStructuralActions }

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
        // Highlights are resolved after the other consumers (to the rows of
        // the entity consumers), so that profiles without them draw as
        // before.
        var highlights: [(slot: Int, index: Int, count: Int)] = []
        for group in profile.consumers {
            for i in 0..<group.count {
                switch group.select {
                case .rowSelected:
                    highlights.append((selections.count, i, group.count))
                    selections.append(.rowSelected(0))
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
        // The k-th highlight is the k-th row's (its entity consumer's id);
        // beyond the rows, spread over the list as entity consumers are.
        var rows: [Int] = []
        for case .entity(let id) in selections { rows.append(id) }
        for (k, h) in highlights.enumerated() {
            let id = k < rows.count ? rows[k]
                : (h.count >= entities ? h.index % entities : (h.index * (entities / h.count) + Int.random(in: 0..<max(1, entities / h.count), using: &rng)) % entities)
            selections[h.slot] = .rowSelected(id)
        }
        self.selections = selections
        // The watched entities, for actions that draw among them.
        var watchedSet = Set<Int>()
        for case .entity(let id) in selections { watchedSet.insert(id) }
        let watched = watchedSet.sorted()
        // NB: the loader refuses structural actions beside `unwatched`, so
        // the live ids are 0..<entities for the whole run.
        let unwatched = profile.actions.contains { $0.among == .unwatched }
            ? (0..<entities).filter { !watchedSet.contains($0) } : []
        precondition(unwatched.count > 0 || !profile.actions.contains { $0.among == .unwatched },
                     "profile \(profile.name): every one of the \(entities) entities is watched; actions among \"unwatched\" need one that is not")

        let totalWeight = profile.actions.reduce(0) { $0 + $1.weight }
        let count = warmup + maxDispatches
        var actions: [WorkloadAction] = []
        actions.reserveCapacity(count)
        var setups: [[WorkloadAction]] = []
        if profile.hasSetup { setups.reserveCapacity(count) }
        // The positions `every` names, once per step (shared by the actions).
        var strides: [Int: [Int]] = [:]
        let titles = (0..<64).map { makeText("t\($0)-", profile.titleLength) }
        // NB: without structural actions the live ids stay 0..<entities and
        // are never materialized; the random draws are then the same as
        // before structural actions existed, so such workloads are unchanged.
        var live = LiveIDs(count: entities, materialized: profile.hasStructuralActions)
        func make(_ spec: ProfileSpec.Action, _ n: Int) -> WorkloadAction {
            let title = titles[n % titles.count]
            switch spec.kind {
            case .setField:
                return WorkloadAction(kind: .setField, title: "")
            case .updateTreeLeaf:
                return WorkloadAction(kind: .updateTreeLeaf(randomLeafPath()), title: "")
            case .updateEntities where spec.every > 0:
                // NB: the loader refuses `every` beside structural actions,
                // so ids are positions.
                if strides[spec.every] == nil { strides[spec.every] = Array(stride(from: 0, to: live.count, by: spec.every)) }
                return WorkloadAction(kind: .updateEntities(spec.field, strides[spec.every]!), title: title)
            case .updateEntities:
                let chosen: [Int]
                switch spec.among {
                case .all:
                    chosen = live.distinct(spec.entities, using: &rng)
                case .watched:
                    // NB: the loader refuses removals beside `watched`, so
                    // every watched entity stays live.
                    var picked = Set<Int>()
                    while picked.count < min(spec.entities, watched.count) {
                        picked.insert(watched[Int.random(in: 0..<watched.count, using: &rng)])
                    }
                    chosen = picked.sorted()
                case .unwatched:
                    var picked = Set<Int>()
                    while picked.count < min(spec.entities, unwatched.count) {
                        picked.insert(unwatched[Int.random(in: 0..<unwatched.count, using: &rng)])
                    }
                    chosen = picked.sorted()
                }
                return WorkloadAction(kind: .updateEntities(spec.field, chosen), title: title)
            case .insertEntities:
                var placements: [WorkloadAction.Placement] = []
                for _ in 0..<spec.entities {
                    let position = Int.random(in: 0...live.count, using: &rng)
                    placements.append(.init(id: live.insertNew(), position: position))
                }
                return WorkloadAction(kind: .insertEntities(placements), title: title)
            case .removeEntities:
                let chosen = live.distinct(spec.entities, using: &rng)
                for id in chosen { live.remove(id) }
                return WorkloadAction(kind: .removeEntities(chosen), title: "")
            case .moveEntities:
                let chosen = live.distinct(spec.entities, using: &rng)
                let placements = chosen.map { WorkloadAction.Placement(id: $0, position: Int.random(in: 0..<live.count, using: &rng)) }
                return WorkloadAction(kind: .moveEntities(placements), title: "")
            case .sortEntities:
                return WorkloadAction(kind: .sortEntities(spec.field, ascending: Bool.random(using: &rng)), title: "")
            case .replaceEntities:
                live.clear()
                return WorkloadAction(kind: .replaceEntities(firstID: live.appendNew(spec.entities), count: spec.entities), title: title)
            case .appendEntities:
                return WorkloadAction(kind: .appendEntities(firstID: live.appendNew(spec.entities), count: spec.entities), title: title)
            case .clearEntities:
                live.clear()
                return WorkloadAction(kind: .clearEntities, title: "")
            case .swapEntities:
                return WorkloadAction(kind: .swapEntities, title: "")
            case .selectEntity:
                let id: Int?
                switch spec.among {
                case .all: id = live.distinct(1, using: &rng).first
                case .watched: id = watched[Int.random(in: 0..<watched.count, using: &rng)]
                case .unwatched: id = unwatched[Int.random(in: 0..<unwatched.count, using: &rng)]
                }
                return WorkloadAction(kind: .selectEntity(id), title: "")
            }
        }
        for n in 0..<count {
            var pick = Int.random(in: 0..<totalWeight, using: &rng)
            var spec = profile.actions[0]
            for a in profile.actions {
                if pick < a.weight { spec = a; break }
                pick -= a.weight
            }
            if profile.hasSetup { setups.append(profile.setup.map { make($0, n) }) }
            actions.append(make(spec, n))
        }
        self.actions = actions
        self.setups = setups
    }

    /// The setup dispatched before action `index` (empty without a setup).
    public func setup(before index: Int) -> [WorkloadAction] {
        setups.isEmpty ? [] : setups[index]
    }

    /// The first `count` actions, each after its setup, in the order they
    /// are dispatched: what the self-test's agreement check replays.
    public func sequence(first count: Int) -> [WorkloadAction] {
        var out: [WorkloadAction] = []
        for i in 0..<min(count, actions.count) {
            out += setup(before: i)
            out.append(actions[i])
        }
        return out
    }
}

/// The ids in the list while actions are generated (their order does not
/// matter: positions are drawn at random), for drawing live entities.
struct LiveIDs {
    /// The live ids, unordered; empty until materialized (then ids are 0..<count).
    private var ids: [Int] = []
    /// Where each live id is in `ids`.
    private var slots: [Int: Int] = [:]
    private(set) var count: Int
    private var nextID: Int

    init(count: Int, materialized: Bool) {
        self.count = count
        nextID = count
        if materialized {
            ids = Array(0..<count)
            slots.reserveCapacity(count)
            for id in ids { slots[id] = id }
        }
    }

    /// `n` distinct random live ids (all of them when fewer are live), in
    /// increasing order.
    mutating func distinct(_ n: Int, using rng: inout SplitMix64) -> [Int] {
        var chosen = Set<Int>()
        let wanted = min(n, count)
        while chosen.count < wanted {
            let r = Int.random(in: 0..<count, using: &rng)
            chosen.insert(ids.isEmpty ? r : ids[r])
        }
        return chosen.sorted()
    }

    /// A fresh id, now live.
    mutating func insertNew() -> Int {
        let id = nextID
        nextID += 1
        slots[id] = ids.count
        ids.append(id)
        count += 1
        return id
    }

    /// Removes every live id.
    mutating func clear() {
        ids.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        count = 0
    }

    /// `n` fresh ids, now live; returns the first (they follow in order).
    mutating func appendNew(_ n: Int) -> Int {
        let first = nextID
        for _ in 0..<n { _ = insertNew() }
        return first
    }

    /// Removes a live id.
    mutating func remove(_ id: Int) {
        guard let slot = slots.removeValue(forKey: id) else { preconditionFailure("LiveIDs: \(id) is not live") }
        let last = ids.removeLast()
        if slot < ids.count {
            ids[slot] = last
            slots[last] = slot
        }
        count -= 1
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
