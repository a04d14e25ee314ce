import Foundation
import Testing
@testable import BenchCore
@testable import StrategyKit

@Suite("Structural actions")
struct StructuralActionTests {
    func removalWorkload(_ dispatches: Int = 200) throws -> Workload {
        let spec = try ProfileLoader.parse(Data(ProfileFixtures.removal.utf8), file: "removal.json")
        return Workload(profile: spec, entities: spec.entities, maxDispatches: dispatches, seconds: 1, warmup: 0)
    }

    @Test("Without structural actions, ids stay positions and no index is built")
    func stableProfiles() throws {
        let spec = try ProfileLoader.parse(Data(ProfileFixtures.valid.utf8), file: "valid.json")
        #expect(!spec.hasStructuralActions)
        let workload = Workload(profile: spec, entities: 10, maxDispatches: 20, seconds: 1, warmup: 0)
        #expect(workload.idsArePositions)
        #expect(AppState(workload).positions == nil)
        #expect(FastStoreStrategy.make(workload) is FastStoreStrategy)
        #expect(FullCopyPersistentStrategy.make(workload) is FullCopyPersistentStrategy)
    }

    @Test("With structural actions, strategies index rows by id")
    func editableShapes() throws {
        let workload = try removalWorkload()
        #expect(!workload.idsArePositions)
        #expect(AppState(workload).positions?.count == workload.entities)
        #expect(FastStoreStrategy.make(workload) is FastStoreEditableStrategy)
        #expect(FullCopyPersistentStrategy.make(workload) is FullCopyPersistentEditableStrategy)
    }

    @Test("Generated actions name live ids only, and inserted ids are fresh")
    func generatedIDs() throws {
        try checkGeneratedIDs(removalWorkload(400))
        // js-framework-benchmark's kinds, each action after its setup.
        let json = """
        {"name": "js", "description": "d", "state": {"entities": 30, "titleLength": 4},
         "consumers": [{"select": "entity", "count": 5}],
         "actions": [{"kind": "replaceEntities", "entities": 7, "weight": 1}, {"kind": "appendEntities", "entities": 3, "weight": 2},
                     {"kind": "clearEntities", "weight": 1}, {"kind": "selectEntity", "weight": 3}, {"kind": "removeEntities", "entities": 2, "weight": 2},
                     {"kind": "updateEntities", "field": "count", "entities": 2, "weight": 2}],
         "setup": [{"kind": "insertEntities", "entities": 1}],
         "dispatch": {"pattern": "single"}}
        """
        let spec = try ProfileLoader.parse(Data(json.utf8), file: "js.json")
        let workload = Workload(profile: spec, entities: spec.entities, maxDispatches: 400, seconds: 1, warmup: 0)
        try checkGeneratedIDs(workload, actions: workload.sequence(first: 400))
    }

    func checkGeneratedIDs(_ workload: Workload, actions: [WorkloadAction]? = nil) throws {
        var live = Set(0..<workload.entities)
        var seen = live
        for action in actions ?? workload.actions {
            switch action.kind {
            case .removeEntities(let ids):
                for id in ids { #expect(live.remove(id) != nil, "removes \(id), not live") }
            case .moveEntities(let placements):
                for p in placements {
                    #expect(live.contains(p.id))
                    #expect(p.position >= 0 && p.position < live.count)
                }
            case .insertEntities(let placements):
                for p in placements {
                    #expect(!seen.contains(p.id), "id \(p.id) reused")
                    #expect(p.position >= 0 && p.position <= live.count)
                    live.insert(p.id)
                    seen.insert(p.id)
                }
            case .updateEntities(_, let ids):
                for id in ids { #expect(live.contains(id)) }
            case .replaceEntities(let first, let count), .appendEntities(let first, let count):
                if case .replaceEntities = action.kind { live.removeAll() }
                for id in first..<first + count {
                    #expect(!seen.contains(id), "id \(id) reused")
                    live.insert(id)
                    seen.insert(id)
                }
            case .clearEntities:
                live.removeAll()
            case .selectEntity(let id):
                #expect(id.map { live.contains($0) } ?? live.isEmpty)
            case .setField, .updateTreeLeaf, .sortEntities, .swapEntities:
                break
            }
        }
    }

    @Test("The value reducer keeps its position index right")
    func positionIndex() throws {
        let workload = try removalWorkload(300)
        var state = AppState(workload)
        for action in workload.actions {
            reduce(&state, action)
            let expected = Dictionary(uniqueKeysWithValues: state.items.enumerated().map { ($1.id, $0) })
            #expect(state.positions == expected)
        }
    }

    @Test("A sort orders by its field, ties by id, in its direction")
    func sortOrder() {
        let a = Item(id: 1, title: "b", done: true, count: 2)
        let b = Item(id: 2, title: "a", done: true, count: 2)
        #expect(b.precedes(a, by: .title, ascending: true))
        #expect(a.precedes(b, by: .title, ascending: false))
        #expect(a.precedes(b, by: .count, ascending: true))
        #expect(b.precedes(a, by: .done, ascending: false))
        #expect(!a.precedes(a, by: .done, ascending: true))
    }

    // NB: on the main actor, where faststore-main's MainStore reduces.
    @Test("Every strategy follows the removal rule and agrees with full-copy")
    @MainActor func removalRule() throws {
        let workload = try removalWorkload()
        let rule = Agreement.removalRule(workload, actions: workload.actions[...])
        #expect(rule.callbacks > 0)
        let (_, problems) = Agreement.disagreements(Strategies.all, workload, actions: workload.actions[...])
        #expect(problems.isEmpty, "\(problems)")
        for strategy in Strategies.all where strategy.comparesValues || strategy.name == ObservationLazyStrategy.name {
            #expect(Agreement.run(strategy, workload, actions: workload.actions[...]).received[.entity] == rule, "\(strategy.name)")
        }
    }
}
