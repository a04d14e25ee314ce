import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import FastStoreTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The durability contract, checked by killing a process: a child
/// (`PersistenceCrashChild`) saves a store to a file, dispatches seeded
/// actions and prints `ack N` each time `waitUntilSaved()` returned; the
/// test kills it with SIGKILL at a random moment, reopens the file, and
/// checks that it holds the reference state after some prefix of the
/// actions, at least as long as every acknowledged one.
///
/// `FASTSTORE_CRASH_RUNS` sets the number of kills (default 200),
/// `FASTSTORE_SEED` the seed; a failure names the run's parameters.
@Suite struct PersistenceCrashTests {
    static var runs: Int { ProcessInfo.processInfo.environment["FASTSTORE_CRASH_RUNS"].flatMap(Int.init) ?? 200 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["FASTSTORE_SEED"].flatMap(UInt64.init) ?? 0xC0FF_EE00 }

    /// The child's executable, built beside the test bundle.
    static var childPath: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return bundle.appendingPathComponent("PersistenceCrashChild").path
    }

    @Test func aKilledProcessLosesNothingAcknowledged() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.childPath), "no child at \(Self.childPath)")
        let folder = temporaryDirectory()
        var rng = SeededGenerator(seed: Self.seed)
        let count = 4_000
        var killedMidway = 0
        var longestAck = 0
        for run in 0..<Self.runs {
            let runSeed = rng.next()
            let ackEvery = Int(rng.next() % 25) + 1
            let durability = rng.next() % 3 == 0 ? "grouped" : "every"
            let compactAfter = Int(rng.next() % 30) + 1
            let killAfterMicroseconds = UInt32(rng.next() % 150_000) + 2_000
            let parameters = "run \(run): seed \(runSeed), ack every \(ackEvery), \(durability), compact after \(compactAfter), kill after \(killAfterMicroseconds) µs (FASTSTORE_SEED=\(Self.seed))"
            let path = folder.appendingPathComponent("run\(run).sqlite").path

            let child = Process()
            child.executableURL = URL(fileURLWithPath: Self.childPath)
            child.arguments = [path, String(runSeed), String(count), String(ackEvery), durability, String(compactAfter)]
            let output = Pipe()
            child.standardOutput = output
            let reader = OutputReader(output.fileHandleForReading)
            try child.run()
            usleep(killAfterMicroseconds)
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            let lines = reader.lines()
            if !lines.contains("done") { killedMidway += 1 }
            // NB: only whole lines: the kill may cut the last one.
            let acknowledged = lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max() ?? 0
            longestAck = max(longestAck, acknowledged)

            guard FileManager.default.fileExists(atPath: path) else {
                // Killed before the file was made: nothing was acknowledged.
                #expect(acknowledged == 0, "\(parameters): acknowledged \(acknowledged) with no file")
                continue
            }
            let reopened: PersistentState<CrashModel.State>
            do {
                reopened = try PersistentState(path: path, initial: CrashModel.initial())
            } catch {
                Issue.record("\(parameters): the file does not reopen: \(error)")
                continue
            }
            let step = reopened.state.step
            #expect(step >= acknowledged, "\(parameters): the file holds \(step) actions, \(acknowledged) were acknowledged")
            let expected = CrashModel.reference(CrashModel.actions(seed: runSeed, count: count), count: step)
            #expect(CrashModel.canonical(reopened.state) == CrashModel.canonical(expected),
                    "\(parameters): the file holds a state no prefix of \(step) actions produced")
            try reopened.close()
        }
        // The kills must land while the child works, not only after it.
        #expect(killedMidway >= Self.runs / 2, "only \(killedMidway) of \(Self.runs) kills landed before the child finished")
        #expect(longestAck > 0, "no run acknowledged anything")
    }
}

/// Reads a pipe to its end on a thread of its own, so that the child never
/// blocks on a full pipe.
final class OutputReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
        thread.start()
    }

    /// The whole lines read (waits for the end of the output).
    func lines() -> [String] {
        done.wait()
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if !text.hasSuffix("\n") { lines.removeLast() }  // cut by the kill
        return lines
    }
}
