@testable import FastStore
import FastStoreTestSupport
import Testing

/// The store's queue machine (`_DispatchQueueState`) against a naive
/// reference: one list of queued items, actions and markers, taken from the
/// front.
@Suite struct DispatchQueueStateTests {
    enum Item: Equatable { case action(Int), marker(Int) }

    /// What the queue must do: the drain takes a marker when it is first,
    /// else every action up to the next marker.
    struct Reference {
        var items: [Item] = []
        var isDraining = false

        mutating func take() -> [Item] {
            guard let first = items.first else { return [] }
            if case .marker = first { return [items.removeFirst()] }
            let end = items.firstIndex { if case .marker = $0 { true } else { false } } ?? items.count
            defer { items.removeFirst(end) }
            return Array(items[..<end])
        }
    }

    /// One take of the drain, checked against the reference's; as the
    /// drain does, the queue is finished only when the take found nothing.
    static func drainStep(_ queue: inout _DispatchQueueState<Int, Int>, _ reference: inout Reference, _ context: String) {
        var batch: [Int] = []
        let taken: [Item]
        switch queue.takeNext(into: &batch) {
        case .actions:
            #expect(!batch.isEmpty, "\(context)")
            taken = batch.map(Item.action)
        case .marker(let marker): taken = [.marker(marker)]
        case .nothing: taken = []
        }
        #expect(taken == reference.take(), "\(context)")
        if taken.isEmpty {
            #expect(queue.finishIfIdle() != nil, "\(context)")
            reference.isDraining = false
        }
    }

    @Test(arguments: 0 ..< 20)
    func takesFollowTheReference(seedOffset: UInt64) {
        var generator = SeededGenerator.fromEnvironment(fallback: 0xD15_0000 &+ seedOffset)
        let seed = generator.seed
        var queue = _DispatchQueueState<Int, Int>()
        var reference = Reference()
        var next = 0
        for step in 0 ..< 2_000 {
            switch Int.random(in: 0 ..< 10, using: &generator) {
            case 0 ..< 3:
                next += 1
                let mustDrain = queue.enqueue(next)
                #expect(mustDrain == !reference.isDraining, "seed \(seed), step \(step)")
                // A drain that starts takes its first action directly.
                if !mustDrain { reference.items.append(.action(next)) }
                reference.isDraining = true
            case 3 ..< 5:
                let actions = (0 ..< Int.random(in: 0 ... 3, using: &generator)).map { _ in next += 1; return next }
                let mustDrain = queue.enqueue(contentsOf: actions)
                reference.items += actions.map(Item.action)
                #expect(mustDrain == (!reference.isDraining && !actions.isEmpty), "seed \(seed), step \(step)")
                if !actions.isEmpty { reference.isDraining = true }
            case 5 ..< 7:
                next += 1
                let mustDrain = queue.enqueue(marker: next)
                #expect(mustDrain == !reference.isDraining, "seed \(seed), step \(step)")
                if !mustDrain { reference.items.append(.marker(next)) }
                reference.isDraining = true
            default:
                guard reference.isDraining else { continue }
                Self.drainStep(&queue, &reference, "seed \(seed), step \(step)")
            }
            #expect(queue.isIdle == (!reference.isDraining && reference.items.isEmpty), "seed \(seed), step \(step)")
            #expect(queue.isDraining == reference.isDraining, "seed \(seed), step \(step)")
            #if FASTSTORE_INTERNAL_CHECKS
            queue._invariantCheck()
            #endif
        }
    }

    /// An owned store's queue (`MainStore`): the owning thread drains at
    /// once, taking what other threads queued first; other threads queue
    /// and schedule one drain on it. Work never waits with no drain running
    /// or scheduled.
    @Test(arguments: 0 ..< 20)
    func ownerClaimsFollowTheReference(seedOffset: UInt64) {
        var generator = SeededGenerator.fromEnvironment(fallback: 0x0_7E4_0000 &+ seedOffset)
        let seed = generator.seed
        var queue = _DispatchQueueState<Int, Int>()
        var reference = Reference()
        var scheduled = false
        var next = 0
        var claims = (first: 0, queued: 0)
        for step in 0 ..< 2_000 {
            switch Int.random(in: 0 ..< 10, using: &generator) {
            case 0 ..< 2:
                // The owning thread dispatches.
                next += 1
                let claim = queue.enqueueOnOwner(next)
                switch claim {
                case .queued:
                    #expect(reference.isDraining, "seed \(seed), step \(step)")
                    reference.items.append(.action(next))
                case .drainFirst:
                    #expect(!reference.isDraining && reference.items.isEmpty, "seed \(seed), step \(step)")
                    claims.first += 1
                case .drainQueue:
                    #expect(!reference.isDraining && !reference.items.isEmpty, "seed \(seed), step \(step)")
                    reference.items.append(.action(next))
                    claims.queued += 1
                }
                reference.isDraining = true
            case 2:
                // The owning thread dispatches a group.
                let actions = (0 ..< Int.random(in: 0 ... 3, using: &generator)).map { _ in next += 1; return next }
                guard !actions.isEmpty else { continue }  // `_dispatchOwned` returns first
                let mustDrain = queue.enqueue(contentsOf: actions)
                reference.items += actions.map(Item.action)
                #expect(mustDrain == (!reference.isDraining && !reference.items.isEmpty), "seed \(seed), step \(step)")
                if mustDrain { reference.isDraining = true }
            case 3 ..< 5:
                // Another thread dispatches (a group).
                let actions = (0 ..< Int.random(in: 0 ... 3, using: &generator)).map { _ in next += 1; return next }
                let schedule = queue.enqueueForOwner(contentsOf: actions)
                reference.items += actions.map(Item.action)
                let expected = !reference.isDraining && !scheduled && !reference.items.isEmpty
                #expect(schedule == expected, "seed \(seed), step \(step)")
                if schedule { scheduled = true }
            case 5:
                // Another thread asks for a history move.
                next += 1
                let schedule = queue.enqueueForOwner(marker: next)
                reference.items.append(.marker(next))
                #expect(schedule == (!reference.isDraining && !scheduled), "seed \(seed), step \(step)")
                if schedule { scheduled = true }
            case 6:
                // The scheduled drain runs (or the owning thread drains early).
                let claimed = queue.claimOwnerDrain()
                #expect(claimed == (!reference.isDraining && !reference.items.isEmpty), "seed \(seed), step \(step)")
                scheduled = false
                if claimed { reference.isDraining = true }
            default:
                guard reference.isDraining else { continue }
                Self.drainStep(&queue, &reference, "seed \(seed), step \(step)")
            }
            #expect(reference.isDraining || scheduled || reference.items.isEmpty,
                    "seed \(seed), step \(step): work waits with no drain running or scheduled")
            #expect(queue.isIdle == (!reference.isDraining && reference.items.isEmpty), "seed \(seed), step \(step)")
            #expect(queue.isDraining == reference.isDraining, "seed \(seed), step \(step)")
            #expect(queue.ownerDrainScheduled == scheduled, "seed \(seed), step \(step)")
            #if FASTSTORE_INTERNAL_CHECKS
            queue._invariantCheck()
            #endif
        }
        #expect(claims.first > 0 && claims.queued > 0, "both owner claims were exercised")
    }
}
