import Foundation
import BenchCLI
import BenchCore
import StrategyKit

extension SelfTest {
    /// The strategies agree (see ``Agreement``): on each shipped profile,
    /// on the removal rule, and on random small workloads.
    static func checkAgreement(profiles: [ProfileSpec], _ check: Check) {
        for profile in profiles {
            let size = min(profile.quickEntities, 2_000)
            let workload = Workload(profile: profile, entities: size, maxDispatches: 200, seconds: 1, warmup: 0)
            // Each action after its setup; fewer where actions create large
            // lists (create 10,000 rows: 40 dispatches).
            let (reference, problems) = Agreement.disagreements(Strategies.all, workload, actions: workload.sequence(first: agreementDispatches(profile, size: size))[...])
            // A profile whose every action draws among the unwatched
            // entities measures a dispatch that wakes nobody: no strategy
            // may call a consumer. Any other must make some fire.
            if profile.actions.allSatisfy({ $0.among == .unwatched }) {
                check(reference.total.callbacks == 0, "\(profile.name): the workload wakes no consumer, as its actions touch only unwatched entities (\(reference.total.callbacks) callbacks)")
            } else {
                check(reference.total.callbacks > 0, "\(profile.name): the workload makes consumers fire (\(reference.total.callbacks) callbacks)")
            }
            check(problems.isEmpty, "\(profile.name): \(Strategies.names.count) strategies agree with full-copy kind by kind, and end with its state"
                  + (problems.isEmpty ? "" : ":\n       " + problems.joined(separator: "\n       ")))
        }

        // The removal rule: a row whose item is removed gets one "absent",
        // and moves, sorts and inserts do not call it.
        do {
            let spec = try ProfileLoader.parse(Data(ProfileFixtures.removal.utf8), file: "fixture-removal.json")
            let workload = Workload(profile: spec, entities: spec.entities, maxDispatches: 200, seconds: 1, warmup: 0)
            let rule = Agreement.removalRule(workload, actions: workload.actions[...])
            check(rule.callbacks > 0, "removal fixture: the actions remove watched items (\(rule.callbacks) of \(spec.entities))")
            let (_, problems) = Agreement.disagreements(Strategies.all, workload, actions: workload.actions[...])
            check(problems.isEmpty, "removal fixture: the strategies agree" + (problems.isEmpty ? "" : ":\n       " + problems.joined(separator: "\n       ")))
            for strategy in Strategies.all where strategy.comparesValues || strategy.name == ObservationLazyStrategy.name {
                let got = Agreement.run(strategy, workload, actions: workload.actions[...]).received[.entity]
                check(got == rule, "removal fixture: \(strategy.name)'s rows get one \"absent\" per removed item and nothing else (\(got.callbacks) callbacks, rule \(rule.callbacks))")
            }
        } catch {
            check(false, "removal fixture: \(error)")
        }

        // The same on random small workloads (seeded; FASTSTORE_SEED
        // changes the seed, which a failure prints).
        let seed = Workload.seed
        var rng = SplitMix64(seed: seed)
        var disagreements = 0
        let randomCount = 60
        for index in 0..<randomCount {
            let profile = RandomProfiles.make(index, using: &rng)
            let workload = Workload(profile: profile, entities: profile.entities, maxDispatches: 120, seconds: 1, warmup: 0)
            let (_, problems) = Agreement.disagreements(Strategies.all, workload, actions: workload.sequence(first: 120)[...])
            if !problems.isEmpty {
                disagreements += 1
                print("FAIL random profile \(index) (FASTSTORE_SEED=\(seed)):\n       " + problems.joined(separator: "\n       "))
            }
        }
        check(disagreements == 0, "\(randomCount) random workloads (FASTSTORE_SEED=\(seed)): \(Strategies.names.joined(separator: ", ")) agree")
    }

    /// How many actions the agreement check replays of `profile` at `size`:
    /// 200, fewer where one action or its setup creates or holds more than
    /// 2,000 entities (at most 400,000 in all).
    static func agreementDispatches(_ profile: ProfileSpec, size: Int) -> Int {
        let created = (profile.actions + profile.setup).filter { $0.kind.createsEntities }.map(\.entities).max() ?? 0
        return min(200, max(10, 400_000 / max(size, created, 1)))
    }

    /// The markdown table bolds the fastest median of each (profile, size)
    /// and nothing else.
    static func checkReport(_ check: Check) {
        func cell(_ strategy: String, _ profile: String, _ median: Double) -> CellResult {
            CellResult(profile: profile, strategy: strategy, entities: 10, medianNs: median)
        }
        let results = [
            cell(FullCopyStrategy.name, "a", 900), cell(FastStoreStrategy.name, "a", 500), cell(ObservationStrategy.name, "a", 100),
            cell(FullCopyStrategy.name, "b", 900), cell(FastStoreStrategy.name, "b", 100), cell(ObservationStrategy.name, "b", 500),
        ]
        let lines = Report.markdown(results).split(separator: "\n").filter { $0.hasPrefix("| a ") || $0.hasPrefix("| b ") }
        let bold = lines.filter { $0.contains("**") }
        check(bold.count == 2 && bold.allSatisfy { $0.contains("| 100 ns") || $0.contains("**100 ns**") }
              && bold.contains { $0.contains("| a ") && $0.contains(ObservationStrategy.name) }
              && bold.contains { $0.contains("| b ") && $0.contains(FastStoreStrategy.name) },
              "the report bolds the winner of each comparison only (not faststore where it loses)")
    }
}
