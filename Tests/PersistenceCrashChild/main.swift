import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import Foundation

// The process `PersistenceCrashTests` kills: opens a state file, saves a
// store to it, dispatches the seeded actions, and after every `ackEvery`
// actions waits until they are saved and prints `ack N` (N actions
// acknowledged). Killed with SIGKILL at a random moment by the test.
//
// Usage: PersistenceCrashChild PATH SEED COUNT ACK_EVERY DURABILITY(every|grouped) COMPACT_AFTER
//        PersistenceCrashChild migrate PATH
//        PersistenceCrashChild history PATH COUNT UNDOS EXTRA
//        PersistenceCrashChild open PATH
//        PersistenceCrashChild hold PATH

/// Writes a line to standard output at once (unbuffered: the process may
/// be killed right after).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
// `PersistenceCrashChild migrate PATH`: opens a file of version 1 as
// version 2 (`CrashModel.migrate`), prints `migrated`, closes it.
if arguments.count == 3, arguments[1] == "migrate" {
    do {
        let file = try PersistentState(
            path: arguments[2], options: PersistenceOptions(version: 2),
            migrations: [.from(version: 1, CrashModel.State.self, convert: CrashModel.migrate)],
            initial: CrashModel.StateV2(titles: [], done: [], note: "", step: -1))
        say("migrated")
        try file.close()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("PersistenceCrashChild: \(error)\n".utf8))
        exit(1)
    }
}
// `PersistenceCrashChild open PATH`: opens the file, prints `opened` (and
// closes it) or `refused ERROR`.
if arguments.count == 3, arguments[1] == "open" {
    do {
        let file = try PersistentState(path: arguments[2], initial: CrashModel.initial())
        say("opened")
        try file.close()
    } catch {
        say("refused \(error)")
    }
    exit(0)
}
// `PersistenceCrashChild hold PATH`: opens the file, prints `opened`, and
// keeps it open until its standard input ends; then closes it.
if arguments.count == 3, arguments[1] == "hold" {
    do {
        let file = try PersistentState(path: arguments[2], initial: CrashModel.initial())
        say("opened")
        _ = FileHandle.standardInput.readDataToEndOfFile()
        try file.close()
        exit(0)
    } catch {
        say("refused \(error)")
        exit(1)
    }
}
// `PersistenceCrashChild history PATH COUNT UNDOS EXTRA`: opens the file
// with its history, dispatches COUNT seeded actions (one batch each),
// undoes UNDOS of them, saves the history, then dispatches EXTRA more and
// waits until they are saved, prints `saved` and kills itself with SIGKILL
// (no close).
if arguments.count == 6, arguments[1] == "history", let count = Int(arguments[3]), let undos = Int(arguments[4]),
   let extra = Int(arguments[5]) {
    do {
        let file = try PersistentState(path: arguments[2], initial: CrashModel.initial())
        let store = Store(state: file.state, reducer: CrashModel.reduce)
        try file.keepSaving(store)
        let history = try file.history(of: store)
        let actions = CrashModel.actions(seed: 7, count: count + extra)
        for action in actions.prefix(count) {
            store.dispatch(action)
            store.waitUntilIdle()
        }
        for _ in 0..<undos { try history.undo() }
        let saved = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                let written = try await file.saveHistory()
                if !written { FileHandle.standardError.write(Data("PersistenceCrashChild: the history was not saved\n".utf8)); exit(1) }
            } catch {
                FileHandle.standardError.write(Data("PersistenceCrashChild: \(error)\n".utf8)); exit(1)
            }
            saved.signal()
        }
        saved.wait()
        for action in actions.dropFirst(count) { store.dispatch(action) }
        try file.waitUntilSaved()
        say("saved")
        kill(getpid(), SIGKILL)
    } catch {
        FileHandle.standardError.write(Data("PersistenceCrashChild: \(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count == 7, let seed = UInt64(arguments[2]), let count = Int(arguments[3]), let ackEvery = Int(arguments[4]),
      let compactAfter = Int(arguments[6]), ["every", "grouped"].contains(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: PersistenceCrashChild PATH SEED COUNT ACK_EVERY every|grouped COMPACT_AFTER\n".utf8))
    exit(2)
}
let options = PersistenceOptions(
    durability: arguments[5] == "every" ? .everyBatch : .grouped(.milliseconds(5)),
    compactAfter: compactAfter)
do {
    let file = try PersistentState(path: arguments[1], options: options, initial: CrashModel.initial())
    let store = Store(state: file.state, reducer: CrashModel.reduce)
    try file.keepSaving(store)
    let actions = CrashModel.actions(seed: seed, count: count)
    for (index, action) in actions.enumerated() {
        store.dispatch(action)
        if (index + 1) % ackEvery == 0 {
            try file.waitUntilSaved()
            say("ack \(index + 1)")
        }
    }
    try file.waitUntilSaved()
    say("ack \(count)")
    say("done")
    try file.close()
} catch {
    FileHandle.standardError.write(Data("PersistenceCrashChild: \(error)\n".utf8))
    exit(1)
}
