import Foundation
import Synchronization
import BenchCLI
import BenchCore
import JemallocMeter
import StrategyKit

/// `fsbench --self-test`: checks the harness itself (run by
/// scripts/bench-ci.sh). Returns whether every check passed.
enum SelfTest {
    final class Box {
        var value: Int
        init(_ value: Int) { self.value = value }
    }

    typealias Check = (_ ok: Bool, _ text: @autoclosure () -> String) -> Void

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

        // 2. Malformed profiles are rejected naming the field; the
        //    structural fixture is accepted.
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
        do {
            let spec = try ProfileLoader.parse(Data(ProfileFixtures.removal.utf8), file: "fixture-removal.json")
            check(spec.hasStructuralActions, "the profile with insert, remove, move and sort actions is accepted")
        } catch {
            check(false, "the profile with insert, remove, move and sort actions is accepted: \(error)")
        }

        // 3. The report bolds only the winner of each comparison.
        checkReport(check)

        // 4. The strategies agree on every shipped profile, on the removal
        //    rule and on random workloads.
        checkAgreement(profiles: profiles, check)

        print(failures == 0 ? "self-test passed" : "self-test: \(failures) failure(s)")
        return failures == 0
    }
}
