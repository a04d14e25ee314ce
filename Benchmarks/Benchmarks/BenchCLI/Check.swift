import Foundation
import BenchCore

/// The CI check: does the subject strategy (faststore) keep its lead?
///
/// Thresholds file (JSON):
/// ```
/// { "subject": "faststore", "reference": "full-copy",
///   "checks": [ { "profile": "todo", "entities": 1000,
///                 "maxAllocationsPerDispatch": 8, "maxMedianRatio": 0.5 } ] }
/// ```
/// `maxAllocationsPerDispatch` bounds the subject's jemalloc allocation
/// count per dispatch (deterministic for single-threaded profiles);
/// `maxMedianRatio` bounds subject median / reference median, both measured
/// in the same run (so a slow or noisy machine slows both); `maxMeanRatio`
/// the same with the mean time per dispatch (the measured phase's wall
/// clock over its dispatches). A check may name its own `subject` and
/// `reference` strategies (e.g. `faststore` against `faststore-shared`);
/// the file's are the default.
public struct Thresholds: Codable, Sendable {
    public struct Check: Codable, Sendable {
        var profile: String
        var entities: Int?
        var maxAllocationsPerDispatch: Double?
        var maxMedianRatio: Double?
        /// Bounds subject mean / reference mean (time per dispatch: wall
        /// clock of the measured phase over its dispatches, 1 / throughput).
        var maxMeanRatio: Double?
        /// This check's subject and reference, instead of the file's.
        var subject: String?
        var reference: String?
        /// Bounds the subject's selector runs per dispatch: consumers whose
        /// selection did not change must be skipped.
        var maxEvaluationsPerDispatch: Double?
        var maxConsumerBytes: Int?
        /// Scaling: the subject's median at `entities` over its median at
        /// `growthFrom` (a smaller size of the same profile, same run).
        var growthFrom: Int?
        var maxMedianGrowth: Double?
        /// Scaling: the subject's consumer bytes at `entities` may exceed
        /// those at `growthFrom` by at most this many bytes.
        var maxConsumerBytesGrowth: Int?
        /// Why the limits are what they are (measured values, known gaps).
        var note: String?
    }
    var subject: String
    var reference: String
    var checks: [Check]

    /// Reads and decodes the thresholds file at `path`.
    public static func load(_ path: String) throws(UsageError) -> Thresholds {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw UsageError("--check '\(path)': cannot read it (\((error as NSError).localizedDescription))")
        }
        do { return try JSONDecoder().decode(Thresholds.self, from: data) } catch {
            throw UsageError("--check '\(path)': not a thresholds file: \(error)")
        }
    }

    /// Refuses thresholds that name a strategy, a profile or a size this run
    /// does not measure (the check would fail after the whole run).
    func checkCovered(by plan: RunPlan) throws(UsageError) {
        for strategy in [subject, reference] where !plan.strategies.contains(strategy) {
            throw UsageError("--check: the thresholds compare '\(subject)' with '\(reference)', and this run does not measure '\(strategy)'")
        }
        for (i, check) in checks.enumerated() {
            for strategy in [check.subject, check.reference].compactMap({ $0 }) where !plan.strategies.contains(strategy) {
                throw UsageError("--check: checks[\(i)] compares '\(check.subject ?? subject)' with '\(check.reference ?? reference)', and this run does not measure '\(strategy)'")
            }
            guard let profile = plan.profiles.first(where: { $0.name == check.profile }) else {
                throw UsageError("--check: checks[\(i)] is about profile '\(check.profile)', which this run does not measure (it runs \(plan.profiles.map(\.name).joined(separator: ", ")))")
            }
            let sizes = plan.cells.filter { $0.profile.name == profile.name }.map(\.entities)
            for size in [check.entities, check.growthFrom].compactMap({ $0 }) where !sizes.contains(size) {
                throw UsageError("--check: checks[\(i)] needs profile '\(check.profile)' at \(size) entities; this run measures it at \(sizes.map(String.init).joined(separator: ", "))")
            }
        }
    }
}

public enum CIChecker {
    /// Prints one line per check and returns whether all passed.
    public static func run(_ thresholds: Thresholds, results: [CellResult], profiles: [ProfileSpec], quick: Bool) -> Bool {
        var passed = true
        func report(_ ok: Bool, _ text: String) {
            print("\(ok ? "PASS" : "FAIL")  \(text)")
            if !ok { passed = false }
        }
        print("\nCI check: \(thresholds.subject) against \(thresholds.reference)")
        for check in thresholds.checks {
            guard let profile = profiles.first(where: { $0.name == check.profile }) else {
                report(false, "\(check.profile): profile not in this run")
                continue
            }
            let size = check.entities ?? (quick ? profile.quickEntities : profile.entities)
            let subjectName = check.subject ?? thresholds.subject
            let referenceName = check.reference ?? thresholds.reference
            // NB: a check with its own pair names it, so that its lines are
            // not read as the file's subject against the file's reference.
            let pair = check.subject != nil || check.reference != nil
            let name = "\(check.profile).N\(size)" + (pair ? "[\(subjectName) vs \(referenceName)]" : "")
            guard let subject = results.first(where: { $0.profile == check.profile && $0.entities == size && $0.strategy == subjectName }) else {
                report(false, "\(name): no result for '\(subjectName)' (strategy not in this build or size not run)")
                continue
            }
            if let limit = check.maxAllocationsPerDispatch {
                report(subject.allocationsPerDispatch <= limit,
                       "\(name).allocations: \(String(format: "%.2f", subject.allocationsPerDispatch)) per dispatch (limit \(limit))")
            }
            if let limit = check.maxEvaluationsPerDispatch {
                report(subject.evaluationsPerDispatch <= limit,
                       "\(name).selectorRuns: \(String(format: "%.2f", subject.evaluationsPerDispatch)) per dispatch (limit \(limit); callbacks \(String(format: "%.2f", subject.callbacksPerDispatch)))")
            }
            if let limit = check.maxConsumerBytes {
                report(subject.consumerBytes <= limit,
                       "\(name).consumerBytes: \(subject.consumerBytes) (limit \(limit))")
            }
            if let from = check.growthFrom {
                guard let small = results.first(where: { $0.profile == check.profile && $0.entities == from && $0.strategy == subjectName }) else {
                    report(false, "\(name): no result for '\(subjectName)' at \(from) entities")
                    continue
                }
                if let limit = check.maxMedianGrowth {
                    let growth = subject.medianNs / max(small.medianNs, 1)
                    report(growth <= limit,
                           "\(name).medianGrowthFromN\(from): \(Format.duration(subject.medianNs)) / \(Format.duration(small.medianNs)) = \(String(format: "%.2f", growth)) (limit \(limit))")
                }
                if let limit = check.maxConsumerBytesGrowth {
                    let growth = subject.consumerBytes - small.consumerBytes
                    report(growth <= limit,
                           "\(name).consumerBytesGrowthFromN\(from): \(growth) bytes (limit \(limit))")
                }
            }
            if check.maxMedianRatio != nil || check.maxMeanRatio != nil {
                guard let reference = results.first(where: { $0.profile == check.profile && $0.entities == size && $0.strategy == referenceName }) else {
                    report(false, "\(name): no result for reference '\(referenceName)'")
                    continue
                }
                if let limit = check.maxMedianRatio {
                    let ratio = subject.medianNs / max(reference.medianNs, 1)
                    report(ratio <= limit,
                           "\(name).medianRatio: \(Format.duration(subject.medianNs)) / \(Format.duration(reference.medianNs)) = \(String(format: "%.3f", ratio)) (limit \(limit))")
                }
                if let limit = check.maxMeanRatio {
                    let ratio = subject.meanNs / max(reference.meanNs, 1)
                    report(ratio <= limit,
                           "\(name).meanRatio: \(Format.duration(subject.meanNs)) / \(Format.duration(reference.meanNs)) = \(String(format: "%.3f", ratio)) (limit \(limit))")
                }
            }
        }
        return passed
    }
}
