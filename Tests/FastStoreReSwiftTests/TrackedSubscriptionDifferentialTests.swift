@_spi(Testing) import FastStore
@_spi(Testing) import FastStoreReSwift
import FastStoreTestSupport
import Testing

// The facade's subscriptions against ReSwift's semantics, computed the naive
// way: at every dispatch each subscription's selection of the new state is
// compared with its selection of the state before, and a different one is
// delivered. `select` + `skipRepeats()` chains are tracked by the store's
// consumer (only evaluated when their reads were written, on versioned
// state); the other shapes run at every dispatch. Random states and
// mutations, seeded (`FASTSTORE_SEED` reproduces a run), on versioned and on
// plain state, with restores of earlier states, wholesale replacements,
// subscribing, replacing, unsubscribing and releasing subscribers between
// dispatches, and subscribing from inside a callback.

private struct Cell: Equatable, Sendable {
    var value = 0
    var flag = false
}

private struct Board: Equatable, Sendable {
    var rows: VersionedList<Cell>
    var title = "board"
    var counter = 0
}

/// The board's fields, read the way each state type reads them: through
/// `Versioned`'s dynamic members (tracked) or plainly.
private protocol BoardState: Equatable, Sendable {
    static func make(_ board: Board) -> Self
    var rows: VersionedList<Cell> { get set }
    var title: String { get set }
    var counter: Int { get set }
}

extension Board: BoardState {
    static func make(_ board: Board) -> Board { board }
}

extension Versioned: BoardState where Value == Board {
    static func make(_ board: Board) -> Versioned<Board> { Versioned(board) }
    var rows: VersionedList<Cell> {
        get { self[dynamicMember: \Board.rows] }
        set { self[dynamicMember: \Board.rows] = newValue }
    }
    var title: String {
        get { self[dynamicMember: \Board.title] }
        set { self[dynamicMember: \Board.title] = newValue }
    }
    var counter: Int {
        get { self[dynamicMember: \Board.counter] }
        set { self[dynamicMember: \Board.counter] = newValue }
    }
}

private enum Edit<S: BoardState>: FastStoreReSwift.Action {
    case set(Int, Int)
    case toggle(Int)
    case title(String)
    case bump
    case insert(Int)
    case remove(Int)
    case restore(S)
    case nothing
}

private func reducer<S: BoardState>(_ action: FastStoreReSwift.Action, _ state: S?) -> S {
    var state = state ?? S.make(Board(rows: VersionedList((0..<8).map { Cell(value: $0) })))
    guard let edit = action as? Edit<S> else { return state }
    switch edit {
    case .set(let i, let v): if state.rows.indices.contains(i) { state.rows[i].value = v }
    case .toggle(let i): if state.rows.indices.contains(i) { state.rows[i].flag.toggle() }
    case .title(let t): state.title = t
    case .bump: state.counter += 1
    case .insert(let i): state.rows.insert(Cell(value: 100 + i), at: min(i, state.rows.count))
    case .remove(let i): if state.rows.indices.contains(i) { state.rows.remove(at: i) }
    case .restore(let saved): state = saved
    case .nothing: break
    }
    return state
}

/// One subscriber: what it was delivered, and what the reference says it
/// should have been.
private final class Recorder<S: BoardState>: FastStoreReSwift.StoreSubscriber {
    typealias StoreSubscriberStateType = Int
    var shape: Int
    var received: [Int] = []
    var expected: [Int] = []
    /// The reference's selection of the last state (nil before the first).
    var last: Int?
    var onNewState: ((Int) -> Void)?
    init(shape: Int) { self.shape = shape }
    func newState(state: Int) {
        received.append(state)
        onNewState?(state)
    }

    static var shapes: Int { 7 }

    /// The selection this shape reads, computed naively.
    func select(_ state: S) -> Int { Self.select(shape, state) }

    static func select(_ shape: Int, _ state: S) -> Int {
        switch shape {
        case 0: return state.rows.count
        case 1: return state.rows.indices.contains(2) ? state.rows[2].value : -1
        case 2: return state.title.count
        case 3: return state.counter % 3
        case 4: return state.counter
        case 5: return state.rows.count * 2
        default: return state.rows.indices.contains(0) && state.rows[0].flag ? 1 : 0
        }
    }

    /// Whether this shape delivers only changed selections: all do, the
    /// custom predicate's too (the store adds `skipRepeats()` after it, an
    /// `Int` being `Equatable`), but that chain is not tracked.
    var skipsRepeats: Bool { true }

    /// Subscribes in this shape's chain.
    func subscribe(to store: FastStoreReSwift.Store<S>) {
        // NB: not `self.select`: the chain would hold the subscriber.
        let shape = self.shape
        let select = { (state: S) in Self.select(shape, state) }
        switch shape {
        case 0: store.subscribe(self) { $0.select { $0.rows.count }.skipRepeats() }
        case 1: store.subscribe(self) { $0.select { select($0) } }                  // auto skipRepeats
        case 2: store.subscribe(self) { $0.select(\.title).skipRepeats().select { $0.count } }
        case 3: store.subscribe(self) { $0.select { $0.counter % 3 } }
        case 4: store.subscribe(self) { $0.select { $0.counter }.skipRepeats { _, _ in false } }
        case 5: store.subscribe(self) { $0.select { $0.rows.count }.skipRepeats().select { $0 * 2 } }
        default: store.subscribe(self) { $0.select { select($0) }.skipRepeats() }
        }
    }

    /// The reference's step to `state`.
    func referenceStep(_ state: S) {
        let new = select(state)
        if last == nil || !skipsRepeats || last != new { expected.append(new) }
        last = new
    }
}

@Suite struct TrackedSubscriptionDifferentialTests {
    @Test(arguments: [0x5EED_0001, 0x5EED_0002, 0x5EED_0003] as [UInt64])
    func versionedSubscriptionsDeliverWhatReSwiftWould(seed: UInt64) {
        run(Versioned<Board>.self, seed: seed)
    }

    @Test(arguments: [0x5EED_0011, 0x5EED_0012] as [UInt64])
    func plainSubscriptionsDeliverWhatReSwiftWould(seed: UInt64) {
        run(Board.self, seed: seed)
    }

    private func run<S: BoardState>(_: S.Type, seed: UInt64) {
        var random = SeededGenerator.fromEnvironment(fallback: seed)
        let store = FastStoreReSwift.Store<S>(reducer: { reducer($0, $1) }, state: nil)
        var live: [Recorder<S>] = []
        var retired: [Recorder<S>] = []
        var published: [S] = [store.state]

        func subscribe(_ recorder: Recorder<S>) {
            recorder.last = nil
            recorder.referenceStep(store.state)
            recorder.subscribe(to: store)
        }
        for _ in 0..<12 {
            let recorder = Recorder<S>(shape: Int.random(in: 0..<Recorder<S>.shapes, using: &random))
            subscribe(recorder)
            live.append(recorder)
        }
        var events: [String] = []
        var guests = 0
        for step in 0..<600 {
            events.append("step \(step)")
            // NB: a guest not subscribed yet is neither unsubscribed nor
            // released (its host's callback would subscribe it later).
            let settled = live.indices.filter { live[$0].expected != [-999] }
            switch Int.random(in: 0..<20, using: &random) {
            case 0 where !settled.isEmpty:
                // Unsubscribed: delivered nothing more.
                let recorder = live.remove(at: settled.randomElement(using: &random)!)
                events.append("unsubscribe \(ObjectIdentifier(recorder))")
                store.unsubscribe(recorder)
                retired.append(recorder)
            case 1 where !settled.isEmpty:
                // Released: the store holds it weakly.
                events.append("release \(ObjectIdentifier(live.remove(at: settled.randomElement(using: &random)!)))")
            case 2:
                let recorder = Recorder<S>(shape: Int.random(in: 0..<Recorder<S>.shapes, using: &random))
                subscribe(recorder)
                events.append("subscribe \(ObjectIdentifier(recorder))")
                live.append(recorder)
            case 3 where !settled.isEmpty:
                // Subscribing again replaces the subscription (a new shape).
                let recorder = live.remove(at: settled.randomElement(using: &random)!)
                store.unsubscribe(recorder)
                retired.append(recorder)
                let again = Recorder<S>(shape: Int.random(in: 0..<Recorder<S>.shapes, using: &random))
                subscribe(again)
                events.append("again \(ObjectIdentifier(again)) for \(ObjectIdentifier(recorder))")
                live.append(again)
            case 5 where !live.isEmpty:
                // The same subscriber subscribed again, in another shape:
                // only the new subscription delivers.
                let recorder = live[Int.random(in: 0..<live.count, using: &random)]
                guard recorder.expected != [-999] else { break }
                recorder.shape = Int.random(in: 0..<Recorder<S>.shapes, using: &random)
                recorder.received = []
                recorder.expected = []
                subscribe(recorder)
                events.append("resubscribed \(ObjectIdentifier(recorder))")
            case 4 where !settled.isEmpty:
                // From inside a callback: the new one gets its first value
                // once that callback returns, within the same dispatch.
                let host = live[settled.randomElement(using: &random)!]
                let guest = Recorder<S>(shape: Int.random(in: 0..<Recorder<S>.shapes, using: &random))
                host.onNewState = { [unowned store, unowned host] _ in
                    host.onNewState = nil
                    guest.subscribe(to: store)
                }
                live.append(guest)
                events.append("guest \(ObjectIdentifier(guest)) of \(ObjectIdentifier(host))")
                guest.expected = [-999]     // marked: the first value is checked below
            default:
                let edit: Edit<S>
                switch Int.random(in: 0..<9, using: &random) {
                case 0: edit = .set(Int.random(in: 0..<10, using: &random), Int.random(in: 0..<3, using: &random))
                case 1: edit = .toggle(Int.random(in: 0..<10, using: &random))
                case 2: edit = .title(["a", "bb", "cc", "ddd"].randomElement(using: &random)!)
                case 3: edit = .bump
                case 4: edit = .insert(Int.random(in: 0..<10, using: &random))
                case 5: edit = .remove(Int.random(in: 0..<10, using: &random))
                case 6: edit = .restore(published.randomElement(using: &random)!)
                case 7: edit = .restore(S.make(Board(rows: VersionedList((0..<Int.random(in: 0..<6, using: &random)).map { Cell(value: $0) }))))
                default: edit = .nothing
                }
                events.append("\(edit)".prefix(40).description)
                store.dispatch(edit)
                published.append(store.state)
                for recorder in live where recorder.expected != [-999] { recorder.referenceStep(store.state) }
            }
            // A guest subscribed from a callback got the state of its
            // subscription as its first value; from then on, the reference.
            for recorder in live where recorder.expected == [-999] && !recorder.received.isEmpty {
                guests += 1
                recorder.expected = []
                recorder.last = nil
                recorder.expected = [recorder.received[0]]
                recorder.last = recorder.received[0]
                if recorder.select(store.state) != recorder.last! || !recorder.skipsRepeats {
                    recorder.referenceStep(store.state)
                }
            }
            for recorder in live + retired where recorder.expected != [-999] {
                if recorder.received != recorder.expected {
                    Issue.record("seed \(random.seed) step \(step) shape \(recorder.shape): received \(recorder.received.suffix(6)) expected \(recorder.expected.suffix(6)) recorder \(ObjectIdentifier(recorder)) events \(events.suffix(12))")
                    return
                }
            }
        }
        #expect(guests > 0, "subscriptions made from callbacks were exercised")
        // Released and unsubscribed subscribers are not counted (a released
        // one's untracked subscription is dropped at the next dispatch); a
        // guest whose host was never called was never subscribed.
        store.dispatch(Edit<S>.nothing)
        #expect(store._subscriptionCount == live.filter { $0.expected != [-999] }.count)
    }
}
