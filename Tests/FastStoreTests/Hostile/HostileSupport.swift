@_spi(Testing) import FastStore
import FastStoreTestSupport

// Support for the hostile review of the change-tracking fast path: a fast
// `StateConsumer` and the naive reference, registered with the same
// selectors and fed the same states, each logging its callbacks as text.

/// A reducer action that runs a closure (the review's reducers are ad hoc).
struct HostileEdit<S>: @unchecked Sendable {
    let body: (inout S) -> Void
    init(_ body: @escaping (inout S) -> Void) { self.body = body }
}

func hostileStore<S>(_ state: S) -> Store<S, HostileEdit<S>> {
    Store(state: state, reducer: { state, edit in edit.body(&state) })
}

/// A fast consumer and a naive one with the same consumers.
final class HostilePair<State> {
    let fast = StateConsumer<State>()
    let naive = NaiveConsumer<State>()
    var fastLog: [String] = []
    var naiveLog: [String] = []
    private var nextID = 0
    private var subscriptions: [StoreSubscription] = []

    init() {}

    /// Registers `select` with both consumers (the `(old: T?, new: T)`
    /// shape); `show` turns a selection into the logged text.
    func add<T: Hashable>(_ name: String, show: @escaping (T) -> String = { "\($0)" }, _ select: @escaping (State) -> T) {
        let id = nextID
        nextID += 1
        fast.add(select) { [unowned self] (old: T?, new: T) in
            self.fastLog.append("\(name): \(old.map(show) ?? "nil") -> \(show(new))")
        }
        naive.add(id: id, baselineIsNil: false, select: { AnyHashable(select($0)) }) { [unowned self] old, new in
            let oldText: String
            if case .some(.some(let value)) = old { oldText = show(value.base as! T) } else { oldText = "nil" }
            self.naiveLog.append("\(name): \(oldText) -> \(new.map { show($0.base as! T) } ?? "nil")")
        }
    }

    func consume(_ state: State) {
        fast.consume(newState: state)
        naive.consume(newState: state)
    }

    /// Feeds both from `store`: the fast one with `connect`, the naive one
    /// with the current state and a subscription.
    func connect<A>(to store: Store<State, A>) {
        subscriptions.append(fast.connect(to: store))
        naive.consume(newState: store.state)
        subscriptions.append(store.subscribe { [unowned self] in self.naive.consume(newState: $0) })
    }

    /// The callbacks since the last call, as (fast, naive).
    func take() -> (fast: [String], naive: [String]) {
        defer { fastLog = []; naiveLog = [] }
        return (fastLog, naiveLog)
    }
}

// MARK: The review state

struct RRow: Hashable, Sendable {
    var title: String
    var n = 0
}

struct RItem: Hashable, Identifiable {
    var id: Int
    var node: Versioned<RRow>
}

enum RMode: Hashable {
    case idle
    case editing(Versioned<RRow>)
}

/// Elements that are not `Equatable`: collection consumers of them use the
/// identity-predicted overload.
struct RDoc {
    var name: String
    var hidden = false
}

struct RApp {
    var a = Versioned(RRow(title: "a"))
    var b = Versioned(RRow(title: "b"))
    var settings = Versioned(RRow(title: "s"))
    var rows = VersionedList((0..<5).map { Versioned(RRow(title: "r\($0)")) })
    var numbers = VersionedList([3, -1, 4, -1, 5])
    var items = IdentifiedList((0..<3).map { RItem(id: $0, node: Versioned(RRow(title: "i\($0)"))) })
    var dict = VersionedDictionary<String, Versioned<RRow>>(
        uniqueKeysWithValues: [("x", Versioned(RRow(title: "dx"))), ("y", Versioned(RRow(title: "dy")))])
    var plainDict: [String: Int] = ["k": 1, "j": 2]
    var array = [RItem(id: 0, node: Versioned(RRow(title: "arr0"))), RItem(id: 1, node: Versioned(RRow(title: "arr1")))]
    var mode = RMode.editing(Versioned(RRow(title: "m")))
    var pair = (Versioned(RRow(title: "p")), 0)
    var docs = VersionedList([RDoc(name: "d0"), RDoc(name: "d1", hidden: true), RDoc(name: "d2")])
    var treeDoc = Versioned(RRow(title: "tree"))
    var treeDoc2 = Versioned(RRow(title: "tree2"))
    var counter = 0
}

typealias RState = Versioned<RApp>

func rowTitles(_ rows: [Versioned<RRow>]) -> String { rows.map { "\($0.title)/\($0.n)" }.joined(separator: ",") }
