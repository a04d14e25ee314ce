import Foundation
import Testing
@testable import BenchCore
@testable import StrategyKit

/// js-framework-benchmark's operations (Profiles/js-framework/): the new
/// action kinds, `every`, the highlight consumers and the setup.
@Suite("js-framework-benchmark operations")
struct JSFrameworkTests {
    /// A small profile whose only action is `action` (JSON), after `setup`
    /// (JSON array) when given: rows, highlights, the list, header fields
    /// and the derived count watch it.
    static func profile(_ action: String, setup: String? = nil, entities: Int = 12) throws -> ProfileSpec {
        let json = """
        {"name": "op", "description": "d", "state": {"entities": \(entities), "titleLength": 20},
         "consumers": [{"select": "entity", "count": 4}, {"select": "rowSelected", "count": 4}, {"select": "list", "count": 1},
                       {"select": "field", "count": 2}, {"select": "derived", "count": 1}],
         "actions": [\(action)],\(setup.map { " \"setup\": \($0)," } ?? "")
         "dispatch": {"pattern": "single"}}
        """
        return try ProfileLoader.parse(Data(json.utf8), file: "op.json")
    }

    /// Each operation, with the setup its profile uses.
    static let operations: [(name: String, action: String, setup: String?)] = [
        ("create", #"{"kind": "replaceEntities", "entities": 12, "weight": 1}"#, #"[{"kind": "clearEntities"}]"#),
        ("replace", #"{"kind": "replaceEntities", "entities": 12, "weight": 1}"#, nil),
        ("update every 3rd", #"{"kind": "updateEntities", "field": "title", "every": 3, "weight": 1}"#, nil),
        ("select", #"{"kind": "selectEntity", "weight": 1}"#, nil),
        ("select watched", #"{"kind": "selectEntity", "among": "watched", "weight": 1}"#, nil),
        ("swap", #"{"kind": "swapEntities", "weight": 1}"#, nil),
        ("remove", #"{"kind": "removeEntities", "entities": 1, "weight": 1}"#, #"[{"kind": "insertEntities", "entities": 1}]"#),
        ("append", #"{"kind": "appendEntities", "entities": 3, "weight": 1}"#, #"[{"kind": "replaceEntities", "entities": 12}]"#),
        ("append without setup", #"{"kind": "appendEntities", "entities": 2, "weight": 1}"#, nil),
        ("clear", #"{"kind": "clearEntities", "weight": 1}"#, #"[{"kind": "replaceEntities", "entities": 12}]"#),
    ]

    // NB: on the main actor, where faststore-main's MainStore reduces.
    @Test("After each operation, every strategy's state is the value-state reference's", arguments: operations.map(\.name))
    @MainActor func stateAfterEachOperation(name: String) throws {
        let op = try #require(Self.operations.first { $0.name == name })
        let spec = try Self.profile(op.action, setup: op.setup)
        let workload = Workload(profile: spec, entities: spec.entities, maxDispatches: 12, seconds: 1, warmup: 0)
        let sequence = workload.sequence(first: 12)
        var reference = AppState(workload)
        var digests: [Int] = []
        for action in sequence {
            reduce(&reference, action)
            digests.append(ContentDigest.of(reference))
        }
        #expect(Set(digests).count > 1, "the operation changes the state")
        for strategy in Strategies.all {
            let subject = strategy.make(workload)
            subject.attachConsumers()
            for (i, action) in sequence.enumerated() {
                subject.dispatch(action)
                subject.waitUntilIdle()
                #expect(subject.contentDigest() == digests[i], "\(strategy.name) after action \(i) of '\(name)'")
            }
        }
        // And the consumers agree with full-copy's, kind by kind.
        let (_, problems) = Agreement.disagreements(Strategies.all, workload, actions: sequence[...])
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("The value reducer does what each operation says")
    func referenceSemantics() throws {
        let spec = try Self.profile(#"{"kind": "swapEntities", "weight": 1}"#)
        let workload = Workload(profile: spec, entities: 12, maxDispatches: 10, seconds: 1, warmup: 0)
        var state = AppState(workload)
        let ids = state.items.map(\.id)

        reduce(&state, WorkloadAction(kind: .swapEntities, title: ""))
        var swapped = ids
        swapped.swapAt(1, 10)
        #expect(state.items.map(\.id) == swapped)
        #expect(state.positions?[ids[1]] == 10 && state.positions?[ids[10]] == 1)

        reduce(&state, WorkloadAction(kind: .selectEntity(ids[3]), title: ""))
        #expect(state.selected == ids[3])

        reduce(&state, WorkloadAction(kind: .appendEntities(firstID: 100, count: 3), title: "new-row"))
        #expect(state.items.count == 15 && state.items.suffix(3).map(\.id) == [100, 101, 102])
        #expect(state.items.last?.title == "new-row" && state.positions?[102] == 14)

        reduce(&state, WorkloadAction(kind: .replaceEntities(firstID: 200, count: 5), title: "fresh"))
        #expect(state.items.map(\.id) == Array(200..<205) && state.selected == nil)
        #expect(state.positions == Dictionary(uniqueKeysWithValues: (0..<5).map { (200 + $0, $0) }))

        reduce(&state, WorkloadAction(kind: .selectEntity(202), title: ""))
        reduce(&state, WorkloadAction(kind: .clearEntities, title: ""))
        #expect(state.items.isEmpty && state.positions?.isEmpty == true && state.selected == nil)
        // A swap on a list too short for two positions changes nothing.
        reduce(&state, WorkloadAction(kind: .swapEntities, title: ""))
        #expect(state.items.isEmpty)
    }

    @Test("`every` writes positions 0, k, 2k, … of the whole list")
    func everyKthRow() throws {
        let spec = try Self.profile(#"{"kind": "updateEntities", "field": "title", "every": 10, "weight": 1}"#, entities: 95)
        let workload = Workload(profile: spec, entities: 95, maxDispatches: 10, seconds: 1, warmup: 0)
        for action in workload.actions {
            guard case .updateEntities(.title, let ids) = action.kind else { Issue.record("not a title write: \(action.kind)"); continue }
            #expect(ids == Array(stride(from: 0, to: 95, by: 10)))
        }
    }

    @Test("A highlight watches its row's id; selections name live ids (or watched ones)")
    func highlightsAndSelections() throws {
        let spec = try Self.profile(#"{"kind": "selectEntity", "among": "watched", "weight": 1}"#, entities: 40)
        let workload = Workload(profile: spec, entities: 40, maxDispatches: 50, seconds: 1, warmup: 0)
        let rows = workload.selections.compactMap { if case .entity(let id) = $0 { id } else { nil } }
        let highlights = workload.selections.compactMap { if case .rowSelected(let id) = $0 { id } else { nil } }
        #expect(rows.count == 4 && highlights == rows)
        for action in workload.actions {
            guard case .selectEntity(let id) = action.kind else { Issue.record("not a selection"); continue }
            #expect(id.map { rows.contains($0) } == true)
        }
    }

    @Test("Setups are generated before each action and replayed in order")
    func setupSequence() throws {
        let spec = try Self.profile(#"{"kind": "replaceEntities", "entities": 12, "weight": 1}"#, setup: #"[{"kind": "clearEntities"}]"#)
        #expect(spec.hasSetup && spec.hasStructuralActions)
        let workload = Workload(profile: spec, entities: 12, maxDispatches: 10, seconds: 1, warmup: 5)
        #expect(workload.setups.count == workload.actions.count)
        let sequence = workload.sequence(first: 3)
        #expect(sequence.count == 6)
        var fresh = Set<Int>()
        for (i, action) in sequence.enumerated() {
            switch (i % 2, action.kind) {
            case (0, .clearEntities): break
            case (1, .replaceEntities(let first, let count)):
                #expect(count == 12)
                for id in first..<first + count { #expect(fresh.insert(id).inserted, "id \(id) reused") }
                #expect(!fresh.contains(where: { $0 < 12 }), "the initial ids are not reused")
            default: Issue.record("unexpected action \(i): \(action.kind)")
            }
        }
    }

    /// A meter that counts nothing: the figures other than memory are the
    /// strategy's own.
    struct NoMeter: MemoryMeter {
        func allocationTotals() -> AllocationTotals { AllocationTotals(count: 0, bytes: 0) }
        func liveBytes() -> Int { 0 }
        func flushThreadCache() {}
    }

    @Test("The measured figures leave the setup out")
    func setupIsNotMeasured() throws {
        // The setup clears the list and the action creates it again: the
        // list screen is called by both, but only the creation counts.
        let spec = try Self.profile(#"{"kind": "replaceEntities", "entities": 12, "weight": 1}"#, setup: #"[{"kind": "clearEntities"}]"#)
        let probe = Workload(profile: spec, entities: 12, maxDispatches: 40, seconds: 5, warmup: 0)
        let warmup = Driver.warmupCount(probe)
        let workload = Workload(profile: spec, entities: 12, maxDispatches: 40, seconds: 5, warmup: warmup)
        let result = Driver.measure(FullCopyStrategy.self, workload, meter: NoMeter())
        #expect(result.dispatches == 40)
        // Per creation, only the list screen: the new rows are not done
        // (the 'remaining' count stays 0 from the clear on), the rows of
        // the initial list went away in the first setup, nothing is
        // selected, the header fields do not change.
        #expect(result.callbacksPerDispatch == 1)
        #expect(result.measuredCallbacks == 40)
        // The warm-up's creations as well, but none of the setups' calls.
        #expect(result.callbacks == 40 + warmup)
        // full-copy runs each of its 12 selectors twice per dispatch.
        #expect(result.evaluationsPerDispatch == 24)
    }

    /// Benchmarks/Tests/StrategyKitTests/ -> Profiles/
    static let profilesDirectory = ProfileValidationTests.profilesDirectory

    @Test("The js-framework set is valid, fits the budget, and stays out of the top level")
    func shippedSet() throws {
        let set = Self.profilesDirectory.appendingPathComponent("js-framework")
        let files = try FileManager.default.contentsOfDirectory(at: set, includingPropertiesForKeys: nil).filter { $0.pathExtension == "json" }
        let machine = MachineLimits(memoryBytes: 24 * 1024 * 1024 * 1024, memorySource: "test")
        var names: Set<String> = []
        for url in files {
            let spec = try ProfileLoader.load(url)
            names.insert(spec.name)
            #expect(spec.name == url.deletingPathExtension().lastPathComponent)
            #expect(spec.pattern == .single)
            try ProfileBudget.check(spec, sizes: ProfileBudget.sizes(of: spec, quick: nil), strategies: StrategyCatalog.names, machine: machine)
        }
        #expect(names == ["js-create-1k", "js-replace-1k", "js-update-10th-10k", "js-select-1k", "js-swap-1k", "js-remove-1k", "js-create-10k", "js-append-1k-to-10k", "js-clear-1k"])
        // The default run reads the top level only: none of the set there.
        let topLevel = try FileManager.default.contentsOfDirectory(at: Self.profilesDirectory, includingPropertiesForKeys: nil)
        #expect(topLevel.filter { $0.pathExtension == "json" }.allSatisfy { !$0.lastPathComponent.hasPrefix("js-") })
        #expect(topLevel.contains { $0.lastPathComponent == "js-framework" })
    }
}
