import Foundation

/// A workload profile as written in `Profiles/*.json`, decoded with `Codable`
/// and then checked field by field by ``ProfileLoader``.
///
/// Enumerations are decoded as strings so that a wrong value gets a message
/// listing the valid ones instead of a bare `DecodingError`.
public struct RawProfile: Codable, Sendable {
    public var name: String
    public var description: String
    public var state: RawStateShape
    public var consumers: [RawConsumerGroup]
    public var actions: [RawAction]
    public var dispatch: RawDispatch
    public var run: RawRun?
    public var sweep: [Int]?
    public var quick: RawQuick?
    /// Actions dispatched, then waited for, before each measured action
    /// (and each warm-up action), outside every figure: what brings the
    /// state back to where the measured operation starts (an empty list
    /// before "create 1,000 rows"). Only with the `single` pattern.
    public var setup: [RawSetupAction]?

    public init(name: String, description: String, state: RawStateShape, consumers: [RawConsumerGroup], actions: [RawAction],
                dispatch: RawDispatch, run: RawRun?, sweep: [Int]?, quick: RawQuick?, setup: [RawSetupAction]? = nil) {
        self.name = name; self.description = description; self.state = state; self.consumers = consumers
        self.actions = actions; self.dispatch = dispatch; self.run = run; self.sweep = sweep; self.quick = quick
        self.setup = setup
    }

    public struct RawStateShape: Codable, Sendable {
        public var entities: Int
        public var titleLength: Int
        public var tree: RawTree?
        public init(entities: Int, titleLength: Int, tree: RawTree?) {
            self.entities = entities; self.titleLength = titleLength; self.tree = tree
        }
    }

    public struct RawTree: Codable, Sendable {
        public var depth: Int
        public var fanOut: Int
        public var labelLength: Int?
        public init(depth: Int, fanOut: Int, labelLength: Int?) {
            self.depth = depth; self.fanOut = fanOut; self.labelLength = labelLength
        }
    }

    public struct RawConsumerGroup: Codable, Sendable {
        public var select: String
        public var count: Int
        public init(select: String, count: Int) { self.select = select; self.count = count }
    }

    public struct RawAction: Codable, Sendable {
        public var kind: String
        public var field: String?
        public var entities: Int?
        /// Which entities an `updateEntities` action draws from: "all"
        /// (when absent) or "watched" (those an entity consumer selects).
        public var among: String?
        /// For `updateEntities` instead of `entities`: every k-th entity by
        /// position (positions 0, k, 2k, …), as js-framework-benchmark's
        /// "update every 10th row".
        public var every: Int?
        public var weight: Int
        public init(kind: String, field: String?, entities: Int?, among: String? = nil, every: Int? = nil, weight: Int) {
            self.kind = kind; self.field = field; self.entities = entities; self.among = among; self.every = every; self.weight = weight
        }
    }

    /// One action of a profile's `setup`: an action without a weight (each
    /// runs once, in order, before every measured action).
    public struct RawSetupAction: Codable, Sendable {
        public var kind: String
        public var field: String?
        public var entities: Int?
        public init(kind: String, field: String? = nil, entities: Int? = nil) {
            self.kind = kind; self.field = field; self.entities = entities
        }
    }

    public struct RawDispatch: Codable, Sendable {
        public var pattern: String
        public var burstSize: Int?
        public var threads: Int?
        public init(pattern: String, burstSize: Int?, threads: Int?) {
            self.pattern = pattern; self.burstSize = burstSize; self.threads = threads
        }
    }

    public struct RawRun: Codable, Sendable {
        public var maxDispatches: Int?
        public var seconds: Double?
        public init(maxDispatches: Int?, seconds: Double?) { self.maxDispatches = maxDispatches; self.seconds = seconds }
    }

    public struct RawQuick: Codable, Sendable {
        public var entities: Int?
        public var sweep: [Int]?
        public var maxDispatches: Int?
        public var seconds: Double?
        public init(entities: Int?, sweep: [Int]?, maxDispatches: Int?, seconds: Double?) {
            self.entities = entities; self.sweep = sweep; self.maxDispatches = maxDispatches; self.seconds = seconds
        }
    }

    /// The keys each object may hold, for the unknown-key check (a typo such
    /// as `"entites"` would otherwise be ignored silently by `Codable`).
    static let allowedKeys: [String: Set<String>] = [
        "": ["name", "description", "state", "consumers", "actions", "dispatch", "run", "sweep", "quick", "setup"],
        "state": ["entities", "titleLength", "tree"],
        "state.tree": ["depth", "fanOut", "labelLength"],
        "consumers[]": ["select", "count"],
        "actions[]": ["kind", "field", "entities", "among", "every", "weight"],
        "setup[]": ["kind", "field", "entities"],
        "dispatch": ["pattern", "burstSize", "threads"],
        "run": ["maxDispatches", "seconds"],
        "quick": ["entities", "sweep", "maxDispatches", "seconds"],
    ]

    /// The fields that hold a number of seconds. Every other number in a
    /// profile is an integer, and must be written as one: `1.5` or `1e30`
    /// for a count is refused naming the field, before `Codable` sees it.
    static let fractionalFields: Set<String> = ["run.seconds", "quick.seconds"]
}

/// What a consumer selects from the state.
public enum SelectKind: String, CaseIterable, Sendable, Codable {
    /// One scalar field at the root (`state.counter`).
    case field
    /// One entity of the list (`state.items[k]`).
    case entity
    /// The whole list (`state.items`), as a screen listing every row.
    case list
    /// A value derived from the whole list: how many items are done.
    case derived
    /// One leaf of the nested tree, reached through `depth` levels.
    case treeLeaf
    /// Whether one entity is the selected one (`state.selected == id`): a
    /// row's highlight. The k-th such consumer watches the id of the k-th
    /// `entity` consumer (its row), when there is one.
    case rowSelected
}

/// What an action changes.
public enum ActionKind: String, CaseIterable, Sendable, Codable {
    /// Changes one field of `entities` distinct random entities.
    case updateEntities
    /// Increments the root scalar field.
    case setField
    /// Changes the value of one random leaf of the tree.
    case updateTreeLeaf
    /// Inserts `entities` new entities (fresh ids), each at a random position.
    case insertEntities
    /// Removes `entities` distinct random entities.
    case removeEntities
    /// Moves `entities` distinct random entities, each to a random position.
    case moveEntities
    /// Sorts the whole list by `field` (ties by id), ascending or descending
    /// at random.
    case sortEntities
    /// Replaces the whole list with `entities` new entities (fresh ids).
    case replaceEntities
    /// Appends `entities` new entities (fresh ids) at the end.
    case appendEntities
    /// Removes every entity.
    case clearEntities
    /// Swaps the entities at positions 1 and count − 2 (js-framework-benchmark
    /// swaps rows 2 and 999 of 1,000).
    case swapEntities
    /// Sets the root field `selected` to a random live id.
    case selectEntity

    /// Whether the action changes which entities the list holds or their
    /// order (not only their fields).
    public var isStructural: Bool {
        switch self {
        case .insertEntities, .removeEntities, .moveEntities, .sortEntities,
             .replaceEntities, .appendEntities, .clearEntities, .swapEntities: return true
        case .updateEntities, .setField, .updateTreeLeaf, .selectEntity: return false
        }
    }

    /// Whether the action adds entities (its `entities` is how many it
    /// creates, not how many of the list it touches).
    public var createsEntities: Bool { self == .insertEntities || self == .replaceEntities || self == .appendEntities }

    /// Whether the action needs `field`: the field written or sorted by.
    public var takesField: Bool { self == .updateEntities || self == .sortEntities }
    /// Whether the action needs `entities`: how many entities one action
    /// touches (`updateEntities` may say `every` instead).
    public var takesEntities: Bool {
        switch self {
        case .updateEntities, .insertEntities, .removeEntities, .moveEntities, .replaceEntities, .appendEntities: return true
        case .setField, .updateTreeLeaf, .sortEntities, .clearEntities, .swapEntities, .selectEntity: return false
        }
    }
}

/// The entities an `updateEntities` action draws its targets from.
public enum EntityPool: String, Sendable, Codable, CaseIterable {
    /// Every live entity.
    case all
    /// The entities some `entity` consumer selects: every action then
    /// changes a watched row, whatever the number of screens (how
    /// `screens-100-watched` and `screens-1000` compare like for like).
    case watched
    /// The entities no `entity` consumer selects: every action changes a
    /// row nobody watches (`toggle-unwatched`: what a dispatch costs with
    /// nothing to wake).
    case unwatched
}

/// The entity field an `updateEntities` action writes, or a `sortEntities`
/// action sorts by.
public enum EntityField: String, CaseIterable, Sendable, Codable {
    case done, title, count
}

/// How actions are dispatched.
public enum DispatchPattern: String, CaseIterable, Sendable, Codable {
    /// One action, then wait until consumers are notified.
    case single
    /// `burstSize` actions back to back, then wait until idle.
    case burst
    /// `threads` threads dispatching bursts of `burstSize` at once.
    case threads
}

/// A validated profile.
public struct ProfileSpec: Sendable, Codable {
    public struct Tree: Sendable, Codable {
        public var depth: Int
        public var fanOut: Int
        public var labelLength: Int
        /// Nodes in a complete tree of this shape.
        public var nodeCount: Int {
            var total = 0, level = 1
            for _ in 0...depth { total += level; level *= fanOut }
            return total
        }
    }
    public struct ConsumerGroup: Sendable, Codable {
        public var select: SelectKind
        public var count: Int
    }
    public struct Action: Sendable, Codable {
        public var kind: ActionKind
        public var field: EntityField
        public var entities: Int
        /// The entities an `updateEntities` or `selectEntity` action draws from.
        public var among: EntityPool
        /// For `updateEntities`: every k-th entity by position instead of
        /// `entities` random ones; 0 when not given.
        public var every: Int = 0
        public var weight: Int
    }

    public var name: String
    public var description: String
    public var source: String
    public var entities: Int
    public var titleLength: Int
    public var tree: Tree
    public var consumers: [ConsumerGroup]
    public var actions: [Action]
    public var pattern: DispatchPattern
    public var burstSize: Int
    public var threads: Int
    public var maxDispatches: Int
    public var seconds: Double
    public var sweep: [Int]
    public var quickEntities: Int
    public var quickSweep: [Int]
    public var quickMaxDispatches: Int
    public var quickSeconds: Double
    /// Actions dispatched and waited for before each measured (and warm-up)
    /// action, outside every figure (their `weight` is 1, unused).
    public var setup: [Action] = []

    public var consumerCount: Int { consumers.reduce(0) { $0 + $1.count } }
    /// Whether some action inserts, removes, moves or sorts entities: then
    /// an entity's position is no longer its id.
    public var hasStructuralActions: Bool { (actions + setup).contains { $0.kind.isStructural } }
    /// Whether each measured action follows setup actions.
    public var hasSetup: Bool { !setup.isEmpty }
}

/// A profile that cannot be used: which file, which field, what was expected.
public struct ProfileError: Error, CustomStringConvertible, Sendable {
    public var file: String
    public var field: String
    public var expected: String
    public var found: String?

    public init(file: String, field: String, expected: String, found: String?) {
        self.file = file; self.field = field; self.expected = expected; self.found = found
    }

    public var description: String {
        var text = "\(file): field '\(field.isEmpty ? "<root>" : field)': expected \(expected)"
        if let found { text += ", found \(found)" }
        return text
    }
}

extension ProfileSpec {
    /// The workload in one line, for chart footers: consumers by kind,
    /// the action mix, the dispatch pattern.
    public var workloadSummary: String {
        let consumerKinds = consumers.filter { $0.count > 0 }.map { "\($0.count) \($0.select.rawValue)" }.joined(separator: ", ")
        let weights = actions.reduce(0) { $0 + $1.weight }
        var mix: [String: Int] = [:]
        var order: [String] = []
        for a in actions {
            let name = a.kind == .updateEntities ? "update \(a.field.rawValue)" + (a.every > 0 ? " of every \(a.every)th" : "") : a.kind.rawValue
            if mix[name] == nil { order.append(name) }
            mix[name, default: 0] += a.weight
        }
        let actionText = order.map { "\($0) \(Int((Double(mix[$0]!) / Double(weights) * 100).rounded()))%" }.joined(separator: ", ")
        let dispatchText: String
        switch pattern {
        case .single: dispatchText = "one action at a time"
        case .burst: dispatchText = "bursts of \(burstSize)"
        case .threads: dispatchText = "\(threads) threads" + (burstSize > 1 ? ", bursts of \(burstSize)" : "")
        }
        let setupText = setup.isEmpty ? "" : "; setup before each (not measured): " + setup.map(\.summary).joined(separator: ", ")
        return "\(consumerCount) consumers (\(consumerKinds)); actions: \(actionText); \(dispatchText)\(setupText)"
    }
}

extension ProfileSpec.Action {
    /// The action in a few words, for the setup's summary.
    public var summary: String {
        kind.createsEntities || kind == .removeEntities ? "\(kind.rawValue) \(entities)" : kind.rawValue
    }
}
