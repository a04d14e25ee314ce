import FastStore
import Observation
import Foundation

// What SwiftUI does with a list of 1,000 rows on screen: each row's `body`
// is one `withObservationTracking` call reading that row's title, and an
// invalidated row is evaluated (tracked) again. One row is renamed per
// action (round robin, never the same row twice in a row). Reported per
// action: dispatch + reduce + publish + Observation's notifications +
// re-tracking every row that was invalidated.
//
// - `Observation.FastStore.perNode.rows1000`: a store of versioned state
//   (`Versioned<AppState>` with an `IdentifiedList` of rows); each row
//   reads `store.state.rows[id: id]?.title`. One row is invalidated.
// - `Observation.FastStore.wholeState.rows1000`: the same store and reads
//   over plain state (`[Row]`): the store is observed as a whole, so every
//   row is invalidated and tracked again on every action.
// - `Observation.Classes.rows1000`: Apple's Observation with one
//   observable class per row (what `@Observable` expands to), mutated in
//   place. One row is invalidated.
// - `Observation.ClassesBehindAStore.rows1000`: the same classes mutated
//   through a minimal store (a lock and a reducer over the row models, the
//   shape of a unidirectional store over `@Observable` state): what a
//   dispatch adds to the classes' action, without FastStore.
// - `Observation.FastStore.dispatchOnly.rows1000`: the perNode store's
//   action with nothing tracked on it (other fixtures' registrations may be
//   live in the process): what of perNode's action is the dispatch.
//
// Names have no spaces (package-benchmark's threshold files break on them).

public let rowCount = 1_000

public struct Row: Identifiable, Equatable, Sendable {
    public let id: Int
    public var title: String
    public init(id: Int, title: String) { self.id = id; self.title = title }
}

public struct VersionedApp: Sendable {
    public var rows: IdentifiedList<Row>
    public init(rows: IdentifiedList<Row>) { self.rows = rows }
}
public struct PlainApp: Sendable {
    public var rows: [Row]
    public init(rows: [Row]) { self.rows = rows }
}

public enum Rename: Sendable { case rename(Int, String) }

/// The rows a tracking fired for, in the order they fired.
///
/// NB: under a lock: a store tells some trackings again asynchronously, from
/// another thread (per-node Observation's re-notifications, among them one
/// per action from the earlier-read rule: docs/observation.md, "Races").
public final class FiredRows: @unchecked Sendable {
    let lock = NSLock()
    var _ids: [Int] = []
    public init() {}

    public func append(_ id: Int) {
        lock.lock()
        _ids.append(id)
        lock.unlock()
    }

    /// The rows fired since the last call, in the order they fired.
    public func take() -> [Int] {
        lock.lock()
        let taken = _ids
        _ids.removeAll(keepingCapacity: true)
        lock.unlock()
        return taken
    }
}

/// Row `id` tracked: `read` inside `withObservationTracking`, its id
/// appended to `fired` when it is invalidated.
@inlinable @inline(__always)
public func track(_ id: Int, _ fired: FiredRows, _ read: () -> Void) {
    let box = _Unchecked(fired)
    withObservationTracking(read, onChange: { box.value.append(id) })
}

public struct _Unchecked<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}

/// The stores' fixture: a store, 1,000 tracked rows, the next row to rename.
public final class StoreFixture<State>: @unchecked Sendable {
    public let store: Store<State, Rename>
    public let read: (Store<State, Rename>, Int) -> String?
    public let fired = FiredRows()
    public var next = 0
    public var step = 0

    public init(_ store: Store<State, Rename>, tracked: Bool = true, read: @escaping (Store<State, Rename>, Int) -> String?) {
        self.store = store
        self.read = read
        if tracked { for id in 0..<rowCount { retrack(id) } }
    }

    @inlinable @inline(__always)
    public func retrack(_ id: Int) {
        let store = store, read = read
        track(id, fired) { _ = read(store, id) }
    }

    /// One action; returns the number of rows invalidated (each tracked again).
    @inlinable @inline(__always)
    public func act() -> Int {
        step &+= 1
        store.dispatch(.rename(next, "title \(step)"))
        next = (next + 7) % rowCount
        let invalidated = fired.take()
        for id in invalidated { retrack(id) }
        return invalidated.count
    }
}

/// The perNode fixtures' state: 1,000 rows in an `IdentifiedList`.
public func perNodeState() -> Versioned<VersionedApp> {
    Versioned(VersionedApp(rows: IdentifiedList((0..<rowCount).map { Row(id: $0, title: "row \($0)") })))
}

/// The perNode fixtures' reducer.
public func renameRow(_ state: inout Versioned<VersionedApp>, _ action: Rename) {
    switch action { case .rename(let id, let title): state.rows[id: id]?.title = title }
}

public func makePerNode(tracked: Bool = true) -> StoreFixture<Versioned<VersionedApp>> {
    let store = Store<Versioned<VersionedApp>, Rename>(state: perNodeState(), reducer: renameRow)
    return StoreFixture(store, tracked: tracked) { store, id in store.state.rows[id: id]?.title }
}

/// perNode on a `MainStore` (written in place), driven on the main actor
/// (`fsobservation perNodeMain`): the same state, reducer, rows and reads.
@MainActor
public final class MainStoreFixture {
    public let store = MainStore<Versioned<VersionedApp>, Rename>(state: perNodeState(), reducer: renameRow)
    public let fired = FiredRows()
    public var next = 0
    public var step = 0

    public init() { for id in 0..<rowCount { retrack(id) } }

    public func retrack(_ id: Int) {
        let store = store
        track(id, fired) { _ = store.state.rows[id: id]?.title }
    }

    /// One action; returns the number of rows invalidated (each tracked again).
    public func act() -> Int {
        step &+= 1
        store.dispatch(.rename(next, "title \(step)"))
        next = (next + 7) % rowCount
        let invalidated = fired.take()
        for id in invalidated { retrack(id) }
        return invalidated.count
    }
}

public func makeWholeState() -> StoreFixture<PlainApp> {
    let store = Store<PlainApp, Rename>(state: PlainApp(rows: (0..<rowCount).map { Row(id: $0, title: "row \($0)") })) { state, action in
        switch action { case .rename(let id, let title): state.rows[id].title = title }
    }
    return StoreFixture(store) { store, id in store.state.rows[id].title }
}

/// One observable class per row, as `@Observable` expands it.
public final class RowModel: Observable, @unchecked Sendable {
    @usableFromInline let registrar = ObservationRegistrar()
    @usableFromInline var _title: String
    public init(title: String) { _title = title }
    @inlinable public var title: String {
        get { registrar.access(self, keyPath: \.title); return _title }
        set { registrar.withMutation(of: self, keyPath: \.title) { _title = newValue } }
    }
}

public final class ClassesFixture: @unchecked Sendable {
    public let rows = (0..<rowCount).map { RowModel(title: "row \($0)") }
    public let fired = FiredRows()
    public var next = 0
    public var step = 0

    public init() { for id in 0..<rowCount { retrack(id) } }

    @inlinable @inline(__always)
    public func retrack(_ id: Int) {
        let row = rows[id]
        track(id, fired) { _ = row.title }
    }

    @inlinable @inline(__always)
    public func act() -> Int {
        step &+= 1
        rows[next].title = "title \(step)"
        next = (next + 7) % rowCount
        let invalidated = fired.take()
        for id in invalidated { retrack(id) }
        return invalidated.count
    }
}

/// The classes behind a minimal unidirectional store: actions reduced
/// under a lock, the reducer mutating the row models.
public final class ClassesStoreFixture: @unchecked Sendable {
    public let classes = ClassesFixture()
    public let lock = NSLock()
    public var step = 0

    public init() {}

    @inlinable
    public func dispatch(_ action: Rename) {
        lock.lock()
        defer { lock.unlock() }
        switch action { case .rename(let id, let title): classes.rows[id].title = title }
    }

    @inlinable @inline(__always)
    public func act() -> Int {
        step &+= 1
        dispatch(.rename(classes.next, "title \(step)"))
        classes.next = (classes.next + 7) % rowCount
        let invalidated = classes.fired.take()
        for id in invalidated { classes.retrack(id) }
        return invalidated.count
    }
}

