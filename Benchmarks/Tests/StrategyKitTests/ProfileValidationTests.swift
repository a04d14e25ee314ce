import Foundation
import Testing
@testable import BenchCore
@testable import StrategyKit

@Suite("Profile validation")
struct ProfileValidationTests {
    @Test("Each malformed fixture is refused, naming its field", arguments: ProfileFixtures.malformed.map(\.name))
    func malformedFixture(name: String) throws {
        let fixture = try #require(ProfileFixtures.malformed.first { $0.name == name })
        do {
            _ = try ProfileLoader.parse(Data(fixture.json.utf8), file: "fixture.json")
            Issue.record("fixture '\(name)' was accepted")
        } catch {
            #expect(error.field == fixture.field)
            #expect(error.description.hasPrefix("fixture.json: field '"))
            #expect(error.description.contains(fixture.mentions), "\(error)")
        }
    }

    @Test("The minimal profile is accepted, with its defaults")
    func minimalProfile() throws {
        let spec = try ProfileLoader.parse(Data(ProfileFixtures.valid.utf8), file: "valid.json")
        #expect(spec.name == "tiny")
        #expect(spec.entities == 10)
        #expect(spec.consumerCount == 2)
        #expect(spec.pattern == .single && spec.burstSize == 1 && spec.threads == 1)
        #expect(spec.maxDispatches == 2_000 && spec.seconds == 1.0)
        #expect(spec.quickEntities == 10)
    }

    /// Benchmarks/Tests/StrategyKitTests/ -> Profiles/
    static let profilesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Profiles")

    @Test("Integers are written as integers; the field is named", arguments: [
        ("\"entities\": 10,", "\"entities\": 1.5,", "state.entities", "found 1.5"),
        ("\"entities\": 10,", "\"entities\": 1e30,", "state.entities", "found 1e+30"),
        ("\"entities\": 10,", "\"entities\": 12345678901234567890,", "state.entities", "an integer up to 9223372036854775807"),
        ("\"titleLength\": 4", "\"titleLength\": 4.25", "state.titleLength", "no fraction"),
        ("\"pattern\": \"single\"", "\"pattern\": \"burst\", \"burstSize\": 2.5", "dispatch.burstSize", "found 2.5"),
        ("\"dispatch\"", "\"run\": {\"maxDispatches\": 1e30}, \"dispatch\"", "run.maxDispatches", "found 1e+30"),
        ("\"dispatch\"", "\"quick\": {\"sweep\": [2, 3.5]}, \"dispatch\"", "quick.sweep[1]", "found 3.5"),
    ])
    func integerFields(old: String, new: String, field: String, mentions: String) throws {
        let json = ProfileFixtures.replacing(old, new)
        do {
            _ = try ProfileLoader.parse(Data(json.utf8), file: "f.json")
            Issue.record("\(new) was accepted")
        } catch {
            #expect(error.field == field, "\(error)")
            #expect(error.description.contains(mentions), "\(error)")
        }
    }

    @Test("Integral numbers in other notations, and fractional seconds, are accepted")
    func integralNotations() throws {
        let spec = try ProfileLoader.parse(Data(ProfileFixtures.replacing("\"entities\": 10,", "\"entities\": 1e1,").utf8), file: "f.json")
        #expect(spec.entities == 10)
        let seconds = try ProfileLoader.parse(Data(ProfileFixtures.replacing("\"dispatch\"", "\"run\": {\"seconds\": 0.5}, \"dispatch\"").utf8), file: "f.json")
        #expect(seconds.seconds == 0.5)
    }

    @Test("Every shipped profile validates")
    func shippedProfiles() throws {
        let directory = Self.profilesDirectory
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
        #expect(files.count >= 5)
        for file in files {
            let spec = try ProfileLoader.load(file)
            #expect(spec.name == file.deletingPathExtension().lastPathComponent)
        }
    }
}

@Suite("Workloads")
struct WorkloadTests {
    @Test("The same profile and size give the same consumers and actions")
    func deterministic() throws {
        let spec = try ProfileLoader.parse(Data(ProfileFixtures.valid.utf8), file: "valid.json")
        let a = Workload(profile: spec, entities: 10, maxDispatches: 50, seconds: 1, warmup: 5)
        let b = Workload(profile: spec, entities: 10, maxDispatches: 50, seconds: 1, warmup: 5)
        #expect(a.selections == b.selections)
        #expect(a.actions.count == 55)
        for (x, y) in zip(a.actions, b.actions) {
            guard case .updateEntities(let fx, let ix) = x.kind, case .updateEntities(let fy, let iy) = y.kind else {
                Issue.record("unexpected action kind")
                continue
            }
            #expect(fx == fy && ix == iy && x.title == y.title)
        }
    }

    @Test("Actions among the watched entities change only watched entities")
    func watchedPool() throws {
        let json = ProfileFixtures.valid
            .replacingOccurrences(of: "\"entities\": 10,", with: "\"entities\": 1000,")
            .replacingOccurrences(of: "\"weight\": 1}", with: "\"among\": \"watched\", \"weight\": 1}")
        let spec = try ProfileLoader.parse(Data(json.utf8), file: "watched.json")
        #expect(spec.actions[0].among == .watched)
        let workload = Workload(profile: spec, entities: 1_000, maxDispatches: 500, seconds: 1, warmup: 0)
        var watched = Set<Int>()
        for case .entity(let id) in workload.selections { watched.insert(id) }
        #expect(watched.count == 2)
        var changed = Set<Int>()
        for action in workload.actions {
            guard case .updateEntities(_, let ids) = action.kind else { Issue.record("not an update"); continue }
            changed.formUnion(ids)
        }
        #expect(changed == watched, "every action changes a watched entity, and both are drawn")
        let all = try ProfileLoader.parse(Data(ProfileFixtures.valid.replacingOccurrences(of: "\"entities\": 10,", with: "\"entities\": 1000,").utf8), file: "all.json")
        #expect(all.actions[0].among == .all)
    }

    @Test("Actions among the unwatched entities never change a watched one")
    func unwatchedPool() throws {
        let json = ProfileFixtures.valid
            .replacingOccurrences(of: "\"entities\": 10,", with: "\"entities\": 1000,")
            .replacingOccurrences(of: "\"weight\": 1}", with: "\"among\": \"unwatched\", \"weight\": 1}")
        let spec = try ProfileLoader.parse(Data(json.utf8), file: "unwatched.json")
        #expect(spec.actions[0].among == .unwatched)
        // NB: 5,000 single-entity actions over 1,000 entities: drawn from
        // every entity, one of the watched ones would be hit but with a
        // chance of about 1 in 20,000.
        let workload = Workload(profile: spec, entities: 1_000, maxDispatches: 5_000, seconds: 1, warmup: 0)
        var watched = Set<Int>()
        for case .entity(let id) in workload.selections { watched.insert(id) }
        var changed = Set<Int>()
        for action in workload.actions {
            guard case .updateEntities(_, let ids) = action.kind else { Issue.record("not an update"); continue }
            changed.formUnion(ids)
        }
        #expect(!watched.isEmpty && changed.isDisjoint(with: watched), "no action changes a watched entity")
        #expect(changed.count > 100, "drawn across the unwatched entities: \(changed.count)")
        // Every entity watched: nothing to draw, refused by name.
        let everyEntityWatched = json.replacingOccurrences(of: "\"entities\": 1000,", with: "\"entities\": \(watched.count),")
        #expect(throws: ProfileError.self) { try ProfileLoader.parse(Data(everyEntityWatched.utf8), file: "all-watched.json") }
    }

    @Test("makeText gives exactly the requested length")
    func textLength() {
        for length in [0, 1, 15, 16, 64] {
            #expect(makeText("item-123-", length).utf8.count == length)
        }
    }
}

@Suite("Strategies agree")
struct StrategyAgreementTests {
    /// Every strategy on random workloads: the value-comparing ones deliver
    /// the same callbacks kind by kind, Observation at least as many, and
    /// all end with the same state (see `Agreement`).
    // NB: on the main actor, where faststore-main's MainStore reduces.
    @Test("Strategies agree with full-copy on random workloads")
    @MainActor func randomWorkloads() {
        let seed = Workload.seed
        var rng = SplitMix64(seed: seed)
        for index in 0..<25 {
            let profile = RandomProfiles.make(index, using: &rng)
            let workload = Workload(profile: profile, entities: profile.entities, maxDispatches: 80, seconds: 1, warmup: 0)
            let (_, problems) = Agreement.disagreements(Strategies.all, workload, actions: workload.actions[...])
            #expect(problems.isEmpty, "random profile \(index) (FASTSTORE_SEED=\(seed)): \(problems)")
        }
    }

    @Test("Observation is called at least as often as full-copy")
    func observationAtLeast() throws {
        let spec = try ProfileLoader.parse(Data(ProfileFixtures.valid.utf8), file: "valid.json")
        let workload = Workload(profile: spec, entities: 10, maxDispatches: 100, seconds: 1, warmup: 0)
        var callbacks: [String: Int] = [:]
        for strategy in [FullCopyStrategy.self, ObservationStrategy.self, ObservationLazyStrategy.self] as [any BenchStrategy.Type] {
            let subject = strategy.make(workload)
            subject.attachConsumers()
            for action in workload.actions { subject.dispatch(action) }
            callbacks[strategy.name] = subject.delivered.callbacks
        }
        #expect(callbacks[FullCopyStrategy.name]! > 0)
        #expect(callbacks[ObservationStrategy.name]! >= callbacks[FullCopyStrategy.name]!)
        #expect(callbacks[ObservationLazyStrategy.name]! >= callbacks[FullCopyStrategy.name]!)
    }
}
