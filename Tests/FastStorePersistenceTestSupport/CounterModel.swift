import FastStore
import FastStorePersistence
import Foundation

/// The small state of the history-across-a-relaunch tests: a counter, a
/// `Double` (for non-finite values and signed zeros) and a tag, with an
/// action that changes nothing (it changes the history, not the state).
public enum CounterModel {
    public struct State: Codable, Sendable, Equatable {
        public var n = 0
        public var x = 0.0
        public var tag = ""
        public init() {}
    }

    public enum Action: Sendable {
        case inc, dec
        case set(Double)
        case tag(String)
        case noop
    }

    public static func reduce(_ state: inout State, _ action: Action) {
        switch action {
        case .inc: state.n += 1
        case .dec: state.n -= 1
        case .set(let x): state.x = x
        case .tag(let tag): state.tag = tag
        case .noop: break
        }
    }

    /// The file at `path` opened, a store from its state saved to it, and
    /// its history made.
    public static func open(_ path: String, options: PersistenceOptions = .init(), limit: Int = 1000) throws
        -> (PersistentState<State>, Store<State, Action>, StoreHistory<State, Action>) {
        let file = try PersistentState(path: path, options: options, initial: State())
        let store = Store(state: file.state, reducer: reduce)
        try file.keepSaving(store)
        return (file, store, try file.history(of: store, limit: .entries(limit)))
    }

    /// What a kill leaves at this moment: the database file and its WAL,
    /// copied to `copy` (every write is committed and synced with WAL and
    /// full syncs; call it when nothing writes).
    public static func crashCopy(_ path: String, to copy: String) throws {
        let fm = FileManager.default
        for suffix in ["", "-wal", "-shm"] { try? fm.removeItem(atPath: copy + suffix) }
        for suffix in ["", "-wal"] where fm.fileExists(atPath: path + suffix) {
            try fm.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
    }
}
