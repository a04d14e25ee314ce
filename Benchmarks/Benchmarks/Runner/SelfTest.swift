import Foundation
import Synchronization
import StrategyKit

/// `fsbench --self-test`: checks the harness itself (run by
/// scripts/bench-ci.sh). Returns whether every check passed.
enum SelfTest {
    final class Box {
        var value: Int
        init(_ value: Int) { self.value = value }
    }

    static func run(meter: JemallocMeter, profiles: [ProfileSpec]) -> Bool {
        var failures = 0
        func check(_ ok: Bool, _ text: @autoclosure () -> String) {
            print("\(ok ? "ok  " : "FAIL") \(text())")
            if !ok { failures += 1 }
        }

        // 1. The allocation counter is exact, on this thread and on others.
        check(meter.overhead.count == 0, "reading jemalloc's totals allocates nothing (measured \(meter.overhead.count))")
        var boxes: [Box] = []
        boxes.reserveCapacity(1000)
        let start = meter.allocationTotals()
        for i in 0..<1000 { boxes.append(Box(i)) }
        let end = meter.allocationTotals()
        check((end - start).count == 1000, "1,000 objects count as 1,000 allocations (measured \((end - start).count))")
        check((end - start).bytes >= 24_000 && (end - start).bytes <= 48_000, "and 24–48 KB (measured \((end - start).bytes) bytes)")
        boxes.removeAll()

        let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            let thread = Thread {
                var local: [Box] = []
                local.reserveCapacity(500)
                meter.flushThreadCache()
                ready.signal()
                go.wait()
                for i in 0..<500 { local.append(Box(i)) }
                meter.flushThreadCache()
                withExtendedLifetime(local) { done.leave() }
            }
            thread.start()
        }
        for _ in 0..<4 { ready.wait() }
        let threadStart = meter.allocationTotals()
        for _ in 0..<4 { go.signal() }
        done.wait()
        let threadEnd = meter.allocationTotals()
        check((threadEnd - threadStart).count == 2000,
              "4 threads × 500 objects count as 2,000 allocations (measured \((threadEnd - threadStart).count))")

        let live0 = meter.liveBytes()
        var big = [UInt8](repeating: 1, count: 10_000_000)
        let live1 = meter.liveBytes()
        big[5] = 2
        withExtendedLifetime(big) {}
        check(live1 - live0 >= 10_000_000 && live1 - live0 < 11_000_000, "a 10 MB array adds 10 MB of live bytes (measured \(live1 - live0))")

        // 2. Malformed profiles are rejected naming the field.
        for fixture in ProfileFixtures.malformed {
            do {
                _ = try ProfileLoader.parse(Data(fixture.json.utf8), file: "fixture-\(fixture.name).json")
                check(false, "malformed profile '\(fixture.name)' is rejected (it was accepted)")
            } catch {
                check(error.field == fixture.field && error.description.contains(fixture.mentions),
                      "malformed profile '\(fixture.name)' is rejected: \(error)")
            }
        }
        do {
            _ = try ProfileLoader.parse(Data(ProfileFixtures.valid.utf8), file: "fixture-valid.json")
            check(true, "the minimal valid profile is accepted")
        } catch {
            check(false, "the minimal valid profile is accepted: \(error)")
        }

        // 3. Strategies that compare values deliver the same callbacks with
        //    the same values; observation delivers at least as many (it is
        //    called for any write, equal or not).
        for profile in profiles {
            let size = min(profile.quickEntities, 2_000)
            let workload = Workload(profile: profile, entities: size, maxDispatches: 200, seconds: 1, warmup: 0)
            var totals: [String: Sink.Totals] = [:]
            for strategy in Strategies.all {
                let subject = strategy.init(workload: workload)
                subject.attachConsumers()
                // Callbacks from attaching (a first delivery) do not count.
                let attached = subject.delivered
                for action in workload.actions.prefix(200) {
                    subject.dispatch(action)
                    subject.waitUntilIdle()
                }
                let end = subject.delivered
                totals[strategy.name] = Sink.Totals(callbacks: end.callbacks - attached.callbacks, checksum: end.checksum &- attached.checksum)
            }
            let reference = totals[FullCopyStrategy.name]!
            check(reference.callbacks > 0, "\(profile.name): the workload makes consumers fire (\(reference.callbacks) callbacks)")
            for (name, t) in totals.sorted(by: { $0.key < $1.key }) where name != FullCopyStrategy.name {
                if name == ObservationStrategy.name {
                    check(t.callbacks >= reference.callbacks, "\(profile.name): \(name) delivers at least full-copy's \(reference.callbacks) callbacks (\(t.callbacks))")
                } else {
                    check(t == reference, "\(profile.name): \(name) delivers the same callbacks as full-copy (\(t.callbacks) vs \(reference.callbacks), checksums \(t.checksum == reference.checksum ? "equal" : "differ"))")
                }
            }
        }

        // 4. The same on random small workloads (seeded; FASTSTORE_SEED
        //    changes the seed, which a failure prints).
        let seed = Workload.seed
        var rng = SplitMix64(seed: seed)
        var disagreements = 0
        let randomCount = 60
        for index in 0..<randomCount {
            let profile = RandomProfiles.make(index, using: &rng)
            let workload = Workload(profile: profile, entities: profile.entities, maxDispatches: 120, seconds: 1, warmup: 0)
            var reference: Sink.Totals?
            for strategy in Strategies.all where strategy.name != ObservationStrategy.name {
                let subject = strategy.init(workload: workload)
                subject.attachConsumers()
                let attached = subject.delivered
                for action in workload.actions {
                    subject.dispatch(action)
                    subject.waitUntilIdle()
                }
                let end = subject.delivered
                let totals = Sink.Totals(callbacks: end.callbacks - attached.callbacks, checksum: end.checksum &- attached.checksum)
                if let reference, reference != totals {
                    disagreements += 1
                    print("FAIL random profile \(index) (FASTSTORE_SEED=\(seed)): \(strategy.name) delivered \(totals.callbacks) callbacks, full-copy \(reference.callbacks)\(totals.checksum == reference.checksum ? "" : ", values differ")")
                }
                if reference == nil { reference = totals }
            }
        }
        var compared: [String] = []
        for strategy in Strategies.all where strategy.name != ObservationStrategy.name { compared.append(strategy.name) }
        let names = compared.joined(separator: ", ")
        check(disagreements == 0, "\(randomCount) random workloads (FASTSTORE_SEED=\(seed)): \(names) deliver the same callbacks")

        print(failures == 0 ? "self-test passed" : "self-test: \(failures) failure(s)")
        return failures == 0
    }
}
