// `fsobservation`: a deterministic driver for the instruction counts of the
// Observation fixtures (ObservationFixtures.swift, the same as the
// `ObservationBenchmarks` suite's).
//
// Builds one fixture (1,000 tracked rows), makes 200 warm-up actions, then
// exactly ACTIONS actions (one row renamed, what was invalidated tracked
// again; perNode then reads `state` once outside any tracking), and prints
// the number of rows invalidated. Run it under
// `valgrind --tool=callgrind` with ACTIONS and 2 × ACTIONS: the difference
// of the two counts divided by ACTIONS is the instructions per action, with
// set-up and warm-up cancelled out (`scripts/instructions.sh` does this for
// the entries `observation:FIXTURE`).
//
//   fsobservation FIXTURE ACTIONS
//
// FIXTURE: perNode, perNodeMain (perNode on a MainStore), dispatchOnly,
// classes or classesBehindAStore.
import Foundation
import ObservationFixtures

let fixtures = ["perNode", "perNodeMain", "dispatchOnly", "classes", "classesBehindAStore"]
let arguments = CommandLine.arguments
guard arguments.count == 3, fixtures.contains(arguments[1]), let actions = Int(arguments[2]), actions > 0 else {
    FileHandle.standardError.write(Data("usage: fsobservation FIXTURE ACTIONS (FIXTURE: \(fixtures.joined(separator: ", ")))\n".utf8))
    exit(2)
}
let act: () -> Int
switch arguments[1] {
case "perNode":
    let fixture = makePerNode()
    // NB: after each action's re-tracks, one `state` read outside any
    // tracking: the thread's latest read of the store is then one no
    // tracking holds, so the earlier-read rule (docs/observation.md,
    // "Races") schedules no re-notification. Those run on a global queue
    // after real milliseconds, and what they cost the main thread (the
    // re-tracks they cause, the hub's lock contended) varied from run to run
    // with the machine's load: 42,400 to 59,213 per action. The rule's
    // price is counted apart (ObservationExtraInvalidationMeasurement).
    act = {
        let invalidated = fixture.act()
        _ = fixture.store.state
        return invalidated
    }
case "perNodeMain":
    // NB: top-level code runs on the main actor, where a MainStore is read.
    let fixture = MainStoreFixture()
    act = {
        let invalidated = fixture.act()
        _ = fixture.store.state
        return invalidated
    }
case "dispatchOnly":
    let fixture = makePerNode(tracked: false)
    act = { fixture.act() }
case "classes":
    let fixture = ClassesFixture()
    act = { fixture.act() }
default:
    let fixture = ClassesStoreFixture()
    act = { fixture.act() }
}
for _ in 0..<200 { _ = act() }
var invalidated = 0
for _ in 0..<actions { invalidated += act() }
print(invalidated)
