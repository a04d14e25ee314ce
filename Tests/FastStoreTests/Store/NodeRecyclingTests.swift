import FastStoreTestSupport
import Foundation
import Testing

@testable import FastStore

/// The store's node recycler (`_NodeRecycler`): a drain's list copies take
/// the storage of nodes an earlier drain replaced, only once nothing else
/// can reach them, and the values those nodes held are released in the
/// drain that replaced them.
@Suite struct NodeRecyclingTests {
    final class Token: @unchecked Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    struct Row: Equatable, Sendable {
        var value: Int
        var label: String
        var token: Token
        static func == (a: Row, b: Row) -> Bool { a.value == b.value && a.label == b.label && a.token === b.token }
        init(_ value: Int) {
            self.value = value
            self.label = "row \(value)"
            self.token = Token(value)
        }
    }

    struct Doc: Sendable {
        var rows: VersionedList<Row>
        var total = 0
    }
    typealias State = Versioned<Doc>

    enum Edit: Sendable, CustomStringConvertible {
        case set(Int, Int)
        case insert(Int, Int)
        case remove(Int)
        case bulk(Int, Int, Int)  // start, count, value
        var description: String {
            switch self {
            case .set(let i, let v): "rows[\(i)] = \(v)"
            case .insert(let i, let v): "insert \(v) at \(i)"
            case .remove(let i): "remove at \(i)"
            case .bulk(let s, let n, let v): "rows[\(s) ..< \(s + n)] = \(v)"
            }
        }
    }

    static func reduce(_ state: inout State, _ edit: Edit) {
        switch edit {
        case .set(let i, let v): state.rows[i] = Row(v)
        case .insert(let i, let v): state.rows.insert(Row(v), at: i)
        case .remove(let i): state.rows.remove(at: i)
        case .bulk(let start, let n, let v): for i in start ..< start + n { state.rows[i] = Row(v) }
        }
        state.total += 1
    }

    static func apply(_ edit: Edit, to plain: inout [Row]) {
        switch edit {
        case .set(let i, let v): plain[i] = Row(v)
        case .insert(let i, let v): plain.insert(Row(v), at: i)
        case .remove(let i): plain.remove(at: i)
        case .bulk(let start, let n, let v): for i in start ..< start + n { plain[i] = Row(v) }
        }
    }

    static func randomEdit(count: Int, step: Int, using rng: inout SeededGenerator) -> Edit {
        switch Int.random(in: 0 ..< 20, using: &rng) {
        case 0 ..< 12: return .set(Int.random(in: 0 ..< count, using: &rng), step)
        case 12 ..< 15: return .insert(Int.random(in: 0 ... count, using: &rng), step)
        case 15 ..< 18 where count > 1: return .remove(Int.random(in: 0 ..< count, using: &rng))
        default:
            let n = Int.random(in: 1 ... min(80, count), using: &rng)
            return .bulk(Int.random(in: 0 ... count - n, using: &rng), n, step)
        }
    }

    /// Compares rows by value and label: a fresh `Row(v)` has a new token.
    static func sameValues(_ list: some Collection<Row>, _ plain: [Row]) -> Bool {
        list.count == plain.count && zip(list, plain).allSatisfy { $0.value == $1.value && $0.label == $1.label }
    }

    /// Random edits through a store, with a consumer of the whole list and
    /// some published states kept: every kept state, and every old and new
    /// list the consumer is given, must still hold what it held when it was
    /// published, after later drains reused whatever they could.
    @Test func aNodeAnythingStillHoldsIsNeverReused() {
        var rng = SeededGenerator.fromEnvironment(fallback: 0x2E_C7C1E5)
        let seed = rng.seed
        var plain = (0 ..< 700).map(Row.init)
        let store = Store<State, Edit>(state: State(Doc(rows: VersionedList(plain))), reducer: Self.reduce)
        let consumer = StateConsumer<State>()
        // NB: copied out in the callback: a list kept here would keep its
        // nodes from reuse (correctly), and the test would reuse nothing.
        var delivered: (old: [Row]?, new: [Row])?
        consumer.add({ $0.rows }) { (old: VersionedList<Row>?, new: VersionedList<Row>) in delivered = (old.map(Array.init), Array(new)) }
        let subscription = consumer.connect(to: store)
        var kept: [(state: State, plain: [Row], step: Int)] = []
        var failures = 0
        for step in 1 ... 600 {
            let edit = Self.randomEdit(count: plain.count, step: step, using: &rng)
            let before = plain
            Self.apply(edit, to: &plain)
            delivered = nil
            store.dispatch(edit)
            if let (old, new) = delivered {
                if let old, !Self.sameValues(old, before) {
                    Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)): step \(step), \(edit): the old list given changed after it was published")
                    failures += 1
                }
                if !Self.sameValues(new, plain) {
                    Issue.record("seed \(seed): step \(step), \(edit): the new list given is not the state")
                    failures += 1
                }
            }
            if Int.random(in: 0 ..< 4, using: &rng) == 0 { kept.append((store.state, plain, step)) }
            if kept.count > 40 { kept.remove(at: Int.random(in: 0 ..< kept.count, using: &rng)) }
            for entry in kept where step % 5 == 0 && !Self.sameValues(entry.state.rows, entry.plain) {
                Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)): after step \(step), the state kept at step \(entry.step) changed")
                failures += 1
            }
            if failures > 3 { break }
        }
        #expect(Self.sameValues(store.state.rows, plain), "seed \(seed)")
        #expect(store._recycler.reuses > 600, "the drains' copies reused spare nodes (\(store._recycler.reuses) reuses)")
        subscription.cancel()
    }

    /// A bulk-built list's leaves keep implicit slots through their first
    /// written element: the copy of such a leaf takes the storage of one an
    /// earlier drain replaced (same layout) instead of allocating, so a
    /// dispatch that writes a leaf nobody wrote before reuses a spare for
    /// every node of its path. Each version still tells exactly what was
    /// written, and a kept version never changes.
    @Test func firstWritesToBulkBuiltLeavesReuseSpares() {
        // 16,384 rows: 1,024 leaves under a list of height 3, so a write
        // copies the state's box and four list nodes.
        let rowCount = 16_384
        var plain = (0 ..< rowCount).map(Row.init)
        let store = Store<State, Edit>(state: State(Doc(rows: VersionedList(plain))), reducer: Self.reduce)
        // Element 3 of leaf 3k (mod the leaves): a leaf no earlier dispatch wrote.
        func index(_ k: Int) -> Int { (3 * k % (rowCount / 16)) * 16 + 3 }

        // Nothing holds the replaced states: every copy can take a spare.
        let warmUp = 10, writes = 300
        var reusesAfterWarmUp = 0
        for k in 0 ..< writes {
            store.dispatch(.set(index(k), -k))
            plain[index(k)] = Row(-k)
            if k == warmUp - 1 { reusesAfterWarmUp = store._recycler.reuses }
        }
        let reused = store._recycler.reuses - reusesAfterWarmUp
        #expect(reused == 5 * (writes - warmUp), "\(reused) spares taken for \(writes - warmUp) writes of 5 nodes each")
        #expect(Self.sameValues(store.state.rows, plain))

        // Versions kept across such writes: each tells exactly what was
        // written, and none changes.
        var kept: [(state: State, plain: [Row])] = []
        for k in writes ..< writes + 40 {
            let old = store.state
            store.dispatch(.set(index(k), -k))
            plain[index(k)] = Row(-k)
            let changes = store.state.rows.difference(from: old.rows)
            #expect(changes.updated == [index(k)] && changes.inserted.isEmpty && changes.removed.isEmpty,
                    "write \(k) at \(index(k)): \(changes)")
            kept.append((old, plain))
            kept[kept.count - 1].plain[index(k)] = old.rows[index(k)]
        }
        for entry in kept { #expect(Self.sameValues(entry.state.rows, entry.plain)) }
        // A second element of a written leaf makes its slots explicit:
        // still exactly that element reported, the first one kept.
        let old = store.state
        store.dispatch(.set(4, 1))
        plain[4] = Row(1)
        #expect(store.state.rows.difference(from: old.rows).updated == [4])
        #expect(Self.sameValues(store.state.rows, plain))
    }

    /// The values a drain replaced are released by the time it ends, as
    /// without the recycler: a node emptied for reuse releases its items.
    @Test(arguments: [false, true])
    func replacedValuesAreReleasedInTheDrainThatReplacedThem(withConsumer: Bool) {
        let store = Store<State, Edit>(state: State(Doc(rows: VersionedList((0 ..< 500).map(Row.init)))), reducer: Self.reduce)
        let consumer = StateConsumer<State>()
        var seen = 0
        consumer.add({ $0.rows }) { (_: VersionedList<Row>?, _: VersionedList<Row>) in seen += 1 }
        let subscription = withConsumer ? consumer.connect(to: store) : nil
        for step in 0 ..< 200 {
            let i = (step &* 37) % 500
            weak let replaced = store.state.rows[i].token
            store.dispatch(step % 3 == 0 ? .remove(i) : .set(i, 1_000 + step))
            if step % 3 == 0 { store.dispatch(.insert(i, 2_000 + step)) }
            #expect(replaced == nil, "step \(step): the replaced row's token was released by the end of its drain")
        }
        #expect(store._recycler.reuses > 0)
        if withConsumer { #expect(seen >= 200) }
        subscription?.cancel()
    }

    /// Readers on other threads keep and read published states while the
    /// store drains: none sees a state change under it (a node reused while
    /// a reader held it would).
    @Test func readersOnOtherThreadsSeeStatesThatNeverChange() {
        let rows = 300
        let store = Store<State, Edit>(state: State(Doc(rows: VersionedList((0 ..< rows).map { _ in Row(0) })))) { state, edit in
            // Every edit adds one to a row and to the total: a published
            // state's rows always sum to its total.
            guard case .set(let i, _) = edit else { return }
            state.rows[i] = Row(state.rows[i].value + 1)
            state.total += 1
        }
        let edits = 3_000
        let torn = ManagedCounter()
        let done = DispatchSemaphore(value: 0)
        // NB: threads, not tasks: two spinning readers would hold both of a
        // two-core machine's cooperative threads.
        for _ in 0 ..< 2 {
            let reader = Thread {
                var held: [State] = []
                while store.state.total < edits {
                    held.append(store.state)
                    if held.count > 8 { held.removeFirst() }
                    for state in held where state.rows.reduce(0, { $0 + $1.value }) != state.total {
                        torn.increment()
                    }
                }
                done.signal()
            }
            reader.start()
        }
        for k in 0 ..< edits { store.dispatch(.set((k &* 7919) % rows, 0)) }
        done.wait()
        done.wait()
        #expect(torn.value == 0, "readers saw a published state change")
        #expect(store._recycler.reuses > 0)
    }

    // MARK: Found by review

    final class Probe: @unchecked Sendable {
        let onDeinit: () -> Void
        init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }
    struct ProbedRow: @unchecked Sendable { var value: Int; var probe: Probe? }
    struct ProbedDoc: @unchecked Sendable { var rows: VersionedList<ProbedRow> }
    enum ProbeAction: Sendable { case log, overwriteTwice, temporary }
    final class StoreBox: @unchecked Sendable { var store: Store<Versioned<ProbedDoc>, ProbeAction>? }

    /// A value a reducer drops (a row written twice, the second time
    /// through a copy written back; a list local to the reducer) may call
    /// its store from its `deinit`, as it could before the recycler: the
    /// recycler empties nodes outside the store's lock. With no
    /// subscribers, it emptied them under the lock: "Recursive call to
    /// lock".
    @Test(arguments: [ProbeAction.overwriteTwice, .temporary])
    func aValueTheReducerDropsMayCallTheStoreFromItsDeinit(action: ProbeAction) {
        let box = StoreBox()
        let logged = ManagedCounter()
        let probe = { Probe { box.store?.dispatch(.log) } }
        let rows = (0 ..< 100).map { ProbedRow(value: $0, probe: nil) }
        let store = Store<Versioned<ProbedDoc>, ProbeAction>(state: Versioned(ProbedDoc(rows: VersionedList(rows)))) { state, action in
            switch action {
            case .log:
                logged.increment()
            case .overwriteTwice:
                state.rows[0] = ProbedRow(value: -1, probe: probe())
                var copy = state.rows
                copy[0] = ProbedRow(value: -2, probe: nil)
                state.rows = copy
            case .temporary:
                var a = VersionedList([ProbedRow(value: 0, probe: nil)])
                a[0] = ProbedRow(value: 1, probe: probe())
                var b = a
                b.append(ProbedRow(value: 2, probe: nil))
                _ = (a.count, b.count)
            }
        }
        box.store = store
        let finished = returnsOnAnotherThread {
            store.dispatch(action)
            store.dispatch(action)
        }
        #expect(finished, "the dispatches returned (no deadlock on the store's lock)")
        if finished {
            store.waitUntilIdle()
            #expect(logged.value == 2)
        }
    }

    /// Copies a reducer makes and drops are released before the next
    /// action of the batch, as without the recycler (it kept them to the
    /// end of the batch: 64 temporary lists of 10,000 rows alive at once).
    @Test func copiesTheReducerDropsAreReleasedBeforeTheNextAction() {
        let census = Census()
        var peak = 0
        let store = Store<Int, Int>(state: 0) { state, n in
            peak = max(peak, census.value)
            var a = VersionedList((0 ..< n).map { _ in PayloadRow(payload: Payload(census, bytes: 0)) })
            a[0] = PayloadRow(payload: Payload(census, bytes: 0))
            var b = a
            b.append(PayloadRow(payload: nil))
            state &+= a.count &+ b.count
        }
        store.dispatch(contentsOf: Array(repeating: 2_000, count: 64))
        #expect(peak == 0, "rows of earlier actions' temporaries were alive when an action started (\(peak))")
        #expect(census.value == 0)
    }

    struct BoxedDoc: @unchecked Sendable {
        var blob: Blob
        var note: String
        var count: Int?
    }

    /// A `Store`'s root box is copied for each drain's write into a spare
    /// box (the published state holds the one it replaces), and the
    /// replaced box is emptied once nothing holds it: every state a
    /// consumer is given and every state kept holds its own value, and
    /// every payload a replaced box held is released. Roots whose optional
    /// has a tag byte (`Int`) and whose has none (a struct of references).
    @Test func recycledRootBoxesHoldTheirValuesAndReleaseWhatTheyHeld() {
        let census = Census()
        func doc(_ n: Int) -> BoxedDoc {
            BoxedDoc(
                blob: Blob(payload: Payload(census, bytes: 0), tag: n),
                note: "note \(n) " + String(repeating: "x", count: 24),
                count: n.isMultiple(of: 3) ? nil : n)
        }
        func holds(_ value: BoxedDoc, _ n: Int) -> Bool {
            value.blob.tag == n && value.note == doc(n).note && value.count == (n.isMultiple(of: 3) ? nil : n)
        }
        do {
            let store = Store<Versioned<BoxedDoc>, Int>(state: Versioned(doc(0))) { state, n in state.value = doc(n) }
            let consumer = StateConsumer<Versioned<BoxedDoc>>()
            var told: [(old: Int?, new: Int)] = []
            consumer.add({ $0.blob.tag }) { (old: Int?, new: Int) in told.append((old, new)) }
            let subscription = consumer.connect(to: store)
            var kept: [(state: Versioned<BoxedDoc>, n: Int)] = []
            for n in 1 ... 300 {
                store.dispatch(n)
                #expect(holds(store.state.value, n), "the state after action \(n)")
                if n.isMultiple(of: 7) { kept.append((store.state, n)) }
            }
            for entry in kept { #expect(holds(entry.state.value, entry.n), "the state kept after action \(entry.n)") }
            // NB: the first call is the consumer's when it connects.
            #expect(told.map(\.new) == Array(0 ... 300))
            #expect(told.map(\.old) == [nil] + Array(0 ..< 300))
            #expect(store._recycler.reuses > 200, "the drains' copies reused spare boxes (\(store._recycler.reuses) reuses)")
            kept = []
            #expect(census.value == 1, "the payloads held: only the state's (\(census.value))")
            subscription.cancel()
        }
        #expect(census.value == 0)

        let counter = Store<Versioned<Int>, Int>(state: Versioned(0)) { state, n in state.value &+= n }
        let consumer = StateConsumer<Versioned<Int>>()
        var sums: [Int] = []
        consumer.add({ $0.value }) { (_: Int?, new: Int) in sums.append(new) }
        let subscription = consumer.connect(to: counter)
        var states: [Versioned<Int>] = []
        for n in 1 ... 200 {
            counter.dispatch(n)
            states.append(counter.state)
        }
        #expect(states.map(\.value) == (1 ... 200).map { $0 * ($0 + 1) / 2 })
        #expect(sums == (0 ... 200).map { $0 * ($0 + 1) / 2 })
        #expect(counter._recycler.reuses > 0)
        subscription.cancel()
    }

    // MARK: Found by the second review

    /// Counts the payloads alive, per test (tests run in parallel).
    final class Census: @unchecked Sendable {
        let counter = ManagedCounter()
        var value: Int { counter.value }
    }
    final class Payload: @unchecked Sendable {
        let census: Census
        let bytes: [UInt8]
        init(_ census: Census, bytes: Int) {
            self.census = census
            self.bytes = [UInt8](repeating: 1, count: bytes)
            census.counter.add(1)
        }
        deinit { census.counter.add(-1) }
    }
    struct Blob: @unchecked Sendable { var payload: Payload; var tag = 0 }
    struct PayloadRow: @unchecked Sendable { var payload: Payload? }

    /// A reducer that loops over temporaries (a list or a box written
    /// through a copy, then both dropped) frees each iteration's as it
    /// ends, as without the recycler: a node the batch made is never kept.
    /// (Kept, 64 iterations' rows, or 64 boxes of 1 MB, were alive at once.)
    @Test func temporariesOfOneActionAreFreedAsTheyDie() {
        let census = Census()
        var peakRows = 0
        var peakBoxes = 0
        let store = Store<Int, Int>(state: 0) { state, n in
            for _ in 0 ..< 64 {
                peakRows = max(peakRows, census.value)
                var a = VersionedList((0 ..< n).map { _ in PayloadRow(payload: Payload(census, bytes: 0)) })
                a[0] = PayloadRow(payload: Payload(census, bytes: 0))
                var b = a
                b.append(PayloadRow(payload: nil))
                state &+= a.count &+ b.count
            }
            for i in 0 ..< 64 {
                peakBoxes = max(peakBoxes, census.value)
                let a = Versioned(Blob(payload: Payload(census, bytes: 1 << 20)))
                var b = a
                b.tag = i
                state &+= a.tag &+ b.tag
            }
        }
        store.dispatch(500)
        #expect(peakRows == 0, "rows of earlier iterations' temporaries were alive when an iteration started (\(peakRows))")
        #expect(peakBoxes == 0, "boxes of earlier iterations were alive when an iteration started (\(peakBoxes))")
        #expect(census.value == 0)
    }

    /// A batch's last action's temporaries are gone before its subscribers
    /// are told, as without the recycler.
    @Test func temporariesAreGoneBeforeTheSubscribersAreTold() {
        let census = Census()
        var seenBySubscriber = -1
        let store = Store<Int, Int>(state: 0) { state, n in
            let a = Versioned(Blob(payload: Payload(census, bytes: n)))
            var b = a
            b.tag = 1
            state &+= a.tag &+ b.tag
        }
        let subscription = store.subscribe { _ in seenBySubscriber = census.value }
        store.dispatch(1 << 16)
        #expect(seenBySubscriber == 0, "a temporary of the reducer was alive when the subscriber ran")
        subscription.cancel()
    }

    struct PlainDoc: @unchecked Sendable { var probe: Probe?; var n = 0 }
    struct BigDoc: @unchecked Sendable { var probe: Probe?; var pad: InlineArray<520, Int> = .init(repeating: 0) }
    final class PlainStoreBox: @unchecked Sendable { var store: Store<PlainDoc, Int>? }
    final class BigStoreBox: @unchecked Sendable { var store: Store<Versioned<BigDoc>, Int>? }

    /// The state a publish replaces is released after the store's lock, so
    /// that its values may call the store from their `deinit`: plain
    /// state, and a `Versioned` root too big for the recycler to keep.
    /// (Released under the lock: "Recursive call to lock", before the
    /// recycler too.)
    @Test func theReplacedStateIsReleasedOutsideTheLock() {
        let plainBox = PlainStoreBox()
        let plain = Store<PlainDoc, Int>(state: PlainDoc(probe: Probe { plainBox.store?.dispatch(0) })) { state, n in
            if n == 1 { state.probe = nil }
            state.n += 1
        }
        plainBox.store = plain
        let bigBox = BigStoreBox()
        let big = Store<Versioned<BigDoc>, Int>(state: Versioned(BigDoc(probe: Probe { bigBox.store?.dispatch(0) }))) { state, n in
            if n == 1 { state.probe = nil }
        }
        bigBox.store = big
        let finished = returnsOnAnotherThread {
            plain.dispatch(1)
            big.dispatch(1)
        }
        #expect(finished, "the dispatches returned (no deadlock on the store's lock)")
        if finished {
            plain.waitUntilIdle()
            big.waitUntilIdle()
            #expect(plain.state.n == 2)
        }
    }
}

/// A counter several threads increment.
final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { add(1) }
    func add(_ n: Int) { lock.lock(); count += n; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
