import BenchCore
/// Random small profiles for differential checks: the strategies that
/// compare values must deliver exactly the same callbacks on any workload.
public enum RandomProfiles {
    /// A valid random profile drawn from `rng`: up to 300 entities, a tree of
    /// depth up to 4, every kind of consumer and action (inserts, removals,
    /// moves and sorts in about half of them), any pattern; and, drawn from
    /// a generator of their own (so that `rng` draws what it drew before
    /// they existed), js-framework-benchmark's kinds: highlights, selection,
    /// every k-th row, replacement, append, clear, swap, and a setup.
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
        let titleLength = Int.random(in: 0...40, using: &rng)
        // NB: not drawn from `rng`, which then draws the next profiles as before.
        var extra = SplitMix64(seed: Workload.seed ^ (UInt64(index) &+ 1) &* 0x15F7_A3E0_0000_0001)
        let setup = addFrameworkKinds(entities: entities, pattern: pattern, consumers: &consumers, actions: &actions, using: &extra)
        let raw = RawProfile(
            name: "random-\(index)", description: "random profile \(index)",
            state: .init(entities: entities, titleLength: titleLength, tree: tree),
            consumers: consumers, actions: actions, dispatch: dispatch,
            run: nil, sweep: nil, quick: .init(entities: entities, sweep: nil, maxDispatches: nil, seconds: nil), setup: setup)
        do {
            return try ProfileLoader.validate(raw, file: "random-\(index)")
        } catch {
            preconditionFailure("RandomProfiles made an invalid profile: \(error)")
        }
    }

    /// Adds js-framework-benchmark's kinds, each at random, within what the
    /// loader accepts: `every` only without structural actions, a swap only
    /// where the list keeps 4 entities, a setup only with the single
    /// pattern. Returns the setup, if any.
    static func addFrameworkKinds(entities: Int, pattern: DispatchPattern, consumers: inout [RawProfile.RawConsumerGroup],
                                  actions: inout [RawProfile.RawAction], using rng: inout SplitMix64) -> [RawProfile.RawSetupAction]? {
        if Bool.random(using: &rng) { consumers.append(.init(select: "rowSelected", count: Int.random(in: 1...20, using: &rng))) }
        if Bool.random(using: &rng) { actions.append(.init(kind: "selectEntity", field: nil, entities: nil, weight: Int.random(in: 1...3, using: &rng))) }
        let structuralKinds: Set<String> = ["insertEntities", "removeEntities", "moveEntities", "sortEntities"]
        var structural = actions.contains { structuralKinds.contains($0.kind) }
        if !structural, Int.random(in: 0..<3, using: &rng) == 0 {
            let field = EntityField.allCases.randomElement(using: &rng)!.rawValue
            actions.append(.init(kind: "updateEntities", field: field, entities: nil, every: Int.random(in: 1...entities, using: &rng), weight: Int.random(in: 1...3, using: &rng)))
            return nil
        }
        if structural || Bool.random(using: &rng) {
            if Bool.random(using: &rng) { actions.append(.init(kind: "replaceEntities", field: nil, entities: Int.random(in: 1...6, using: &rng), weight: 1)) }
            if Bool.random(using: &rng) { actions.append(.init(kind: "appendEntities", field: nil, entities: Int.random(in: 1...3, using: &rng), weight: Int.random(in: 1...3, using: &rng))) }
            if Int.random(in: 0..<3, using: &rng) == 0 { actions.append(.init(kind: "clearEntities", field: nil, entities: nil, weight: 1)) }
            structural = true
        }
        let shrinks = actions.contains { $0.kind == "removeEntities" || $0.kind == "clearEntities" || ($0.kind == "replaceEntities" && ($0.entities ?? 0) < 4) }
        let swaps = entities >= 4 && !shrinks && Bool.random(using: &rng)
        if swaps { actions.append(.init(kind: "swapEntities", field: nil, entities: nil, weight: Int.random(in: 1...3, using: &rng))) }
        guard pattern == .single, Int.random(in: 0..<3, using: &rng) == 0 else { return nil }
        var kinds: [RawProfile.RawSetupAction] = [.init(kind: "insertEntities", entities: Int.random(in: 1...3, using: &rng)),
                                                  .init(kind: "appendEntities", entities: Int.random(in: 1...3, using: &rng)),
                                                  .init(kind: "replaceEntities", entities: Int.random(in: 4...12, using: &rng))]
        if !swaps { kinds.append(.init(kind: "clearEntities")) }
        var setup: [RawProfile.RawSetupAction] = []
        for _ in 0..<Int.random(in: 1...2, using: &rng) { setup.append(kinds.randomElement(using: &rng)!) }
        return setup
    }
}
