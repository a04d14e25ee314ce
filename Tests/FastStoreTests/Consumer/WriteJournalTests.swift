import FastStoreTestSupport
import Testing

@testable import FastStore

/// The write journal's links against a dictionary from stamp to link: links
/// journaled in random order (as nested writes journal them: a parent's
/// stamp taken before its child's and journaled after), looked up among the
/// last few and far back, before and after the journal sorts them.
@Suite("The write journal's links")
struct WriteJournalTests {
    @Test func lookupsMatchADictionaryWhateverTheOrder() {
        var generator = SeededGenerator.fromEnvironment(fallback: 0x10_57A4)
        let seed = generator.seed
        for round in 0 ..< 40 {
            let journal = _WriteJournal()
            var reference: [UInt64: (node: UInt64, from: UInt64)] = [:]
            var pending = Array(UInt64(1) ... UInt64(Int.random(in: 1 ... 300, using: &generator)))
            // Mostly increasing, with runs journaled in reverse (nesting).
            var order: [UInt64] = []
            while !pending.isEmpty {
                let run = min(pending.count, Int.random(in: 1 ... 14, using: &generator))
                let chunk = pending.prefix(run)
                pending.removeFirst(run)
                order += Bool.random(using: &generator) ? Array(chunk.reversed()) : Array(chunk)
            }
            for (k, stamp) in order.enumerated() {
                let node = UInt64.random(in: 1 ... 5, using: &generator)
                let from = stamp - 1
                journal._write(NodeID(rawValue: node), from: VersionStamp(rawValue: from), to: VersionStamp(rawValue: stamp), .passThrough)
                reference[stamp] = (node, from)
                // Look up a recent stamp, a far one, and one never journaled.
                for probe in [stamp, order[Int.random(in: 0 ... k, using: &generator)], UInt64(order.count + 1 + k)] {
                    let link = journal.link(producing: VersionStamp(rawValue: probe))
                    let expected = reference[probe]
                    guard link?.node.rawValue == expected?.node, link?.from.rawValue == expected?.from else {
                        Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)), round \(round), after \(k + 1) links: stamp \(probe) gave \(String(describing: link)), expected \(String(describing: expected))")
                        return
                    }
                }
            }
            #expect(journal.writes.count == order.count)
        }
    }

    @Test func chainsWalkBackThroughOutOfOrderLinks() {
        let journal = _WriteJournal()
        let node = NodeID(rawValue: 7)
        let other = NodeID(rawValue: 8)
        // A node written 40 times, each write journaled after 3 writes of
        // another node that took later stamps (a parent over its children).
        var stamp: UInt64 = 100
        var previous: UInt64 = 1
        var firsts: [UInt64] = []
        for _ in 0 ..< 40 {
            let own = stamp
            for k in 1 ... 3 {
                journal._write(other, from: VersionStamp(rawValue: own + UInt64(k) - 1), to: VersionStamp(rawValue: own + UInt64(k)), .passThrough)
            }
            journal._write(node, from: VersionStamp(rawValue: previous), to: VersionStamp(rawValue: own), .passThrough)
            firsts.append(own)
            previous = own
            stamp += 10
        }
        #expect(journal.chains(node, from: VersionStamp(rawValue: 1), to: VersionStamp(rawValue: previous)))
        #expect(journal.chains(node, from: VersionStamp(rawValue: firsts[5]), to: VersionStamp(rawValue: previous)))
        #expect(!journal.chains(node, from: VersionStamp(rawValue: 2), to: VersionStamp(rawValue: previous)), "no write started at 2")
        #expect(!journal.chains(other, from: VersionStamp(rawValue: 1), to: VersionStamp(rawValue: previous)), "another node's links")
        journal.reset()
        #expect(journal.link(producing: VersionStamp(rawValue: previous)) == nil)
        journal._write(node, from: VersionStamp(rawValue: 3), to: VersionStamp(rawValue: 4), .passThrough)
        #expect(journal.chains(node, from: VersionStamp(rawValue: 3), to: VersionStamp(rawValue: 4)))
    }

    /// A bulk drain grows the buffers past what a journal keeps; the next
    /// reset lets them go. Regression: the reset shrank the buffers before
    /// forgetting the writes, moving a bulk drain's writes into the small
    /// buffer (a heap overflow the whole suite only sometimes crashed on).
    @Test func aResetAfterABulkDrainShrinksAndStartsEmpty() {
        let journal = _WriteJournal()
        let bulk = _WriteJournal._keptCapacity * 3
        for stamp in 1 ... bulk {
            journal._write(NodeID(rawValue: UInt64(stamp % 7)), from: VersionStamp(rawValue: UInt64(stamp - 1)),
                           to: VersionStamp(rawValue: UInt64(stamp)), .element(_ElementKey(_canonicalBits: stamp)))
        }
        #expect(journal._capacity > _WriteJournal._keptCapacity)
        var copied: [(node: NodeID, kind: _WriteKind)] = []
        journal._exchangeWrites(&copied)
        #expect(copied.count == bulk)
        #expect(copied.enumerated().allSatisfy { $1.node.rawValue == UInt64(($0 + 1) % 7) && $1.kind == .element(_ElementKey(_canonicalBits: $0 + 1)) })
        journal.reset()
        #expect(journal._capacity == _WriteJournal._initialCapacity)
        #expect(journal.writes.isEmpty)
        #expect(journal.link(producing: VersionStamp(rawValue: UInt64(bulk))) == nil)
        for stamp in 1 ... 100 {
            journal._write(NodeID(rawValue: 1), from: VersionStamp(rawValue: UInt64(stamp - 1)), to: VersionStamp(rawValue: UInt64(stamp)), .passThrough)
        }
        #expect(journal.writes.count == 100)
        #expect(journal.chains(NodeID(rawValue: 1), from: VersionStamp(rawValue: 0), to: VersionStamp(rawValue: 100)))
    }

    /// A drain's changes reuse the buffer of an earlier drain: the writes
    /// copied into it are exactly the journal's, whether the buffer held
    /// more, fewer or as many, and a copy of the buffer someone kept (a
    /// watcher on another thread) is left as it was.
    @Test func writesExchangedIntoAnEarlierBufferAreExactlyTheJournals() {
        func journal(_ count: Int, node base: UInt64) -> _WriteJournal {
            let journal = _WriteJournal()
            for k in 0 ..< count {
                journal._write(NodeID(rawValue: base + UInt64(k)), from: VersionStamp(rawValue: UInt64(k)),
                               to: VersionStamp(rawValue: UInt64(k + 1)), k % 2 == 0 ? .content : .order)
            }
            return journal
        }
        func expected(_ count: Int, node base: UInt64) -> [String] {
            (0 ..< count).map { "\(base + UInt64($0)) \($0 % 2 == 0 ? _WriteKind.content : .order)" }
        }
        func described(_ writes: [(node: NodeID, kind: _WriteKind)]) -> [String] {
            writes.map { "\($0.node.rawValue) \($0.kind)" }
        }
        for (held, count) in [(0, 0), (0, 3), (5, 2), (2, 5), (3, 3), (4, 0), (1, 17)] {
            var buffer: [(node: NodeID, kind: _WriteKind)] = []
            journal(held, node: 100)._exchangeWrites(&buffer)
            let kept = buffer
            journal(count, node: 500)._exchangeWrites(&buffer)
            #expect(described(buffer) == expected(count, node: 500), "\(held) held, \(count) written")
            #expect(described(kept) == expected(held, node: 100), "the kept copy, \(held) held")
            var unshared = kept
            unshared.reserveCapacity(32)
            let storage = unshared.withUnsafeBufferPointer { $0.baseAddress }
            journal(count, node: 900)._exchangeWrites(&unshared)
            #expect(described(unshared) == expected(count, node: 900), "unshared, \(held) held, \(count) written")
            // NB: written in the buffer's own storage: nothing allocated.
            if count <= 32 {
                #expect(unshared.withUnsafeBufferPointer { $0.baseAddress } == storage, "reallocated: \(held) held, \(count) written")
            }
        }
    }
}
