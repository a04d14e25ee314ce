import BenchCore
/// Random small profiles for differential checks: the strategies that
/// compare values must deliver exactly the same callbacks on any workload.
public enum RandomProfiles {
    /// A valid random profile drawn from `rng`: up to 300 entities, a tree of
    /// depth up to 4, every kind of consumer and action (inserts, removals,
    /// moves and sorts in about half of them), any pattern.
    public static func make(_ index: Int, using rng: inout SplitMix64) -> ProfileSpec {
        let entities = Int.random(in: 1...300, using: &rng)
        let depth = Int.random(in: 0...4, using: &rng)
        let tree: RawProfile.RawTree? = depth == 0 ? nil : .init(depth: depth, fanOut: Int.random(in: 1...3, using: &rng), labelLength: Int.random(in: 0...20, using: &rng))
        var consumers: [RawProfile.RawConsumerGroup] = []
        for kind in SelectKind.allCases where kind != .treeLeaf || tree != nil {
            if Bool.random(using: &rng) { consumers.append(.init(select: kind.rawValue, count: Int.random(in: 1...20, using: &rng))) }
        }
        if consumers.isEmpty { consumers.append(.init(select: "entity", count: 3)) }
        var actions: [RawProfile.RawAction] = []
        for field in EntityField.allCases where Bool.random(using: &rng) {
            actions.append(.init(kind: "updateEntities", field: field.rawValue, entities: Int.random(in: 1...min(entities, 5), using: &rng), weight: Int.random(in: 1...5, using: &rng)))
        }
        if Bool.random(using: &rng) { actions.append(.init(kind: "setField", field: nil, entities: nil, weight: Int.random(in: 1...3, using: &rng))) }
        if tree != nil, Bool.random(using: &rng) { actions.append(.init(kind: "updateTreeLeaf", field: nil, entities: nil, weight: Int.random(in: 1...3, using: &rng))) }
        // Structural actions in about half the profiles, each kind at random.
        if Bool.random(using: &rng) {
            let small = min(entities, 3)
            if Bool.random(using: &rng) { actions.append(.init(kind: "insertEntities", field: nil, entities: Int.random(in: 1...3, using: &rng), weight: Int.random(in: 1...3, using: &rng))) }
            if Bool.random(using: &rng) { actions.append(.init(kind: "removeEntities", field: nil, entities: Int.random(in: 1...small, using: &rng), weight: Int.random(in: 1...3, using: &rng))) }
            if Bool.random(using: &rng) { actions.append(.init(kind: "moveEntities", field: nil, entities: Int.random(in: 1...small, using: &rng), weight: Int.random(in: 1...3, using: &rng))) }
            if Bool.random(using: &rng) { actions.append(.init(kind: "sortEntities", field: EntityField.allCases.randomElement(using: &rng)!.rawValue, entities: nil, weight: 1)) }
        }
        if actions.isEmpty { actions.append(.init(kind: "updateEntities", field: "done", entities: 1, weight: 1)) }
        let pattern = DispatchPattern.allCases.randomElement(using: &rng)!
        let dispatch: RawProfile.RawDispatch
        switch pattern {
        case .single: dispatch = .init(pattern: "single", burstSize: nil, threads: nil)
        case .burst: dispatch = .init(pattern: "burst", burstSize: Int.random(in: 2...8, using: &rng), threads: nil)
        case .threads: dispatch = .init(pattern: "threads", burstSize: Int.random(in: 1...4, using: &rng), threads: Int.random(in: 2...4, using: &rng))
        }
        let raw = RawProfile(
            name: "random-\(index)", description: "random profile \(index)",
            state: .init(entities: entities, titleLength: Int.random(in: 0...40, using: &rng), tree: tree),
            consumers: consumers, actions: actions, dispatch: dispatch,
            run: nil, sweep: nil, quick: .init(entities: entities, sweep: nil, maxDispatches: nil, seconds: nil))
        do {
            return try ProfileLoader.validate(raw, file: "random-\(index)")
        } catch {
            preconditionFailure("RandomProfiles made an invalid profile: \(error)")
        }
    }
}
