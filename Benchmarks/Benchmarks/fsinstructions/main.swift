// `fsinstructions`: a deterministic driver for instruction counts.
//
// Builds one profile's workload (seeded), attaches its consumers, warms up,
// then makes exactly DISPATCHES single dispatches (each waited for), and
// prints the checksum of what the consumers received. Run it under
// `valgrind --tool=callgrind` with DISPATCHES and 2 × DISPATCHES: the
// difference of the two counts divided by DISPATCHES is the instructions per
// dispatch, with set-up and warm-up cancelled out
// (`scripts/instructions.sh` does this).
//
//   fsinstructions PROFILE.json ENTITIES DISPATCHES [STRATEGY]
import Foundation
import BenchCore
import StrategyKit

let arguments = CommandLine.arguments
guard arguments.count >= 4, let entities = Int(arguments[2]), let dispatches = Int(arguments[3]),
      entities > 0, dispatches > 0 else {
    FileHandle.standardError.write(Data("usage: fsinstructions PROFILE.json ENTITIES DISPATCHES [STRATEGY]\n".utf8))
    exit(2)
}
let strategyName = arguments.count > 4 ? arguments[4] : "faststore"
guard let strategy = Strategies.named(strategyName) else {
    FileHandle.standardError.write(Data("fsinstructions: unknown strategy '\(strategyName)'; valid: \(Strategies.names.joined(separator: ", "))\n".utf8))
    exit(2)
}
let profile: ProfileSpec
do {
    profile = try ProfileLoader.load(URL(fileURLWithPath: arguments[1]))
} catch {
    FileHandle.standardError.write(Data("fsinstructions: \(error)\n".utf8))
    exit(2)
}
// NB: a setup's instructions would not cancel out (they run with every
// dispatch); fsbench measures those profiles, outside the setup.
guard !profile.hasSetup else {
    FileHandle.standardError.write(Data("fsinstructions: \(profile.name) has a setup before each dispatch, which instruction counts cannot leave out; measure it with fsbench\n".utf8))
    exit(2)
}
let warmup = 200
// NB: the same actions whatever DISPATCHES is (up to this many), so that
// generating them cancels out between two runs too.
let generated = 20_000
guard dispatches <= generated else {
    FileHandle.standardError.write(Data("fsinstructions: at most \(generated) dispatches\n".utf8))
    exit(2)
}
let workload = Workload(profile: profile, entities: entities, maxDispatches: generated, seconds: 1, warmup: warmup)
let subject = strategy.make(workload)
subject.attachConsumers()
for action in workload.actions.prefix(warmup) { subject.dispatch(action) }
subject.waitUntilIdle()
for action in workload.actions.dropFirst(warmup).prefix(dispatches) {
    subject.dispatch(action)
    subject.waitUntilIdle()
}
let totals = subject.delivered
print("dispatches \(dispatches) callbacks \(totals.callbacks) checksum \(totals.checksum)")
