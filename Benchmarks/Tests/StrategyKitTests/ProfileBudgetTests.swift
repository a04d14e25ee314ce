import Foundation
import Testing
@testable import BenchCore
@testable import StrategyKit

/// Profiles whose estimated memory or time per dispatch exceeds the machine
/// are refused before anything is built, naming the field.
@Suite("Profile budget")
struct ProfileBudgetTests {
    static let gib = 1024.0 * 1024 * 1024
    static let machine = MachineLimits(memoryBytes: 24 * gib, memorySource: "test machine")

    /// The todo profile with `changes` applied to its text.
    func todo(_ changes: [(String, String)]) throws -> ProfileSpec {
        var text = try String(contentsOf: ProfileValidationTests.profilesDirectory.appendingPathComponent("todo.json"), encoding: .utf8)
        for (old, new) in changes {
            #expect(text.contains(old), "todo.json has no \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return try ProfileLoader.parse(Data(text.utf8), file: "todo-variant.json")
    }

    func refusal(_ spec: ProfileSpec, quick: Bool? = nil, strategies: [String] = StrategyCatalog.names, machine: MachineLimits = machine) -> ProfileError? {
        do {
            try ProfileBudget.check(spec, sizes: ProfileBudget.sizes(of: spec, quick: quick), strategies: strategies, machine: machine)
            return nil
        } catch {
            return error
        }
    }

    @Test("The strategies StrategyKit builds are the catalog's, in its order")
    func catalog() {
        #expect(Strategies.names == StrategyCatalog.names)
        #expect(Strategies.all.map { $0.summary } == StrategyCatalog.all.map(\.summary))
    }

    @Test("String heap bytes follow jemalloc's size classes")
    func strings() {
        #expect(ProfileBudget.stringHeapBytes(15) == 0)
        #expect(ProfileBudget.stringHeapBytes(24) == 64)
        #expect(ProfileBudget.stringHeapBytes(256) == 320)   // measured 320 B per 256-byte title
        #expect(ProfileBudget.stringHeapBytes(4096) == 5120)
    }

    @Test("Every shipped profile fits a 24 GiB machine at every size, with every strategy")
    func shipped() throws {
        let files = try FileManager.default.contentsOfDirectory(at: ProfileValidationTests.profilesDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
        for file in files {
            let spec = try ProfileLoader.load(file)
            #expect(refusal(spec) == nil, "\(file.lastPathComponent): \(String(describing: refusal(spec)))")
        }
    }

    @Test("A 50 GiB state is refused naming the field that makes it so")
    func hugeTitles() throws {
        let spec = try todo([("\"entities\": 10000,", "\"entities\": 10000000,"), ("\"titleLength\": 24", "\"titleLength\": 4096")])
        let error = try #require(refusal(spec))
        #expect(error.field == "state.titleLength")
        #expect(error.description.contains("expected a run that fits this machine's memory: at most 19.20 GiB (80 % of 24.00 GiB, test machine)"), "\(error)")
        #expect(error.description.contains("at 10,000,000 entities (state.entities)"), "\(error)")
        // The quick sizes of the same profile fit.
        #expect(refusal(spec, quick: true) == nil)
    }

    @Test("Observation's registrations for whole-list consumers count, when Observation runs")
    func listConsumers() throws {
        let spec = try todo([("{ \"select\": \"list\", \"count\": 1 }", "{ \"select\": \"list\", \"count\": 40 }")])
        let error = try #require(refusal(spec))
        #expect(error.field == "consumers[1].count")
        #expect(error.description.contains("(sweep[3])"), "\(error)")
        #expect(refusal(spec, strategies: ["faststore", "full-copy"]) == nil)
    }

    @Test("Actions generated in advance count")
    func actions() throws {
        let spec = try todo([("\"maxDispatches\": 5000", "\"maxDispatches\": 10000000"), ("\"field\": \"count\", \"entities\": 1", "\"field\": \"count\", \"entities\": 100")])
        // 10,000,010 actions of 100 ids each: some 16 GiB.
        let error = try #require(refusal(spec, machine: MachineLimits(memoryBytes: 8 * Self.gib, memorySource: "8 GiB")))
        #expect(error.field == "run.maxDispatches", "\(error)")
    }

    @Test("A dispatch the slowest strategy could not finish in a minute is refused")
    func work() throws {
        let spec = try todo([("{ \"select\": \"list\", \"count\": 1 }", "{ \"select\": \"list\", \"count\": 20 }")])
        let error = try #require(refusal(spec, machine: MachineLimits(memoryBytes: 1000 * Self.gib, memorySource: "big")))
        #expect(error.field == "consumers[1].count")
        #expect(error.description.contains("per dispatch for the slowest strategy"), "\(error)")
        #expect(error.description.contains("at 1,000,000 entities (sweep[3])"), "\(error)")
        #expect(refusal(spec, strategies: ["faststore", "full-copy"], machine: MachineLimits(memoryBytes: 1000 * Self.gib, memorySource: "big")) == nil)
    }
}
