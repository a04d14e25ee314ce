import FastStore
import Foundation

// The app the scope and page-store tests run: rows with ids, a settings
// node, a counter, and actions that reach each part.

struct ScopeRow: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var done = false
}

struct ScopeSettings: Equatable, Sendable {
    var theme = "light"
    var fontSize = 12
}

struct ScopeAppState: Sendable {
    var rows: IdentifiedList<ScopeRow>
    var settings = Versioned(ScopeSettings())
    var counter = 0
}

enum ScopeRowAction: Equatable, Sendable {
    case toggle
    case rename(String)
}

enum ScopeSettingsAction: Equatable, Sendable {
    case setTheme(String)
    case setFontSize(Int)
}

enum ScopeAppAction: Equatable, Sendable {
    case row(Int, ScopeRowAction)
    case settings(ScopeSettingsAction)
    case increment
    case removeRow(Int)
}

typealias ScopeApp = Versioned<ScopeAppState>

func scopeReducer(_ state: inout ScopeApp, _ action: ScopeAppAction) {
    switch action {
    case .row(let id, .toggle): state.rows[id: id]?.done.toggle()
    case .row(let id, .rename(let title)): state.rows[id: id]?.title = title
    case .settings(.setTheme(let theme)): state.settings.theme = theme
    case .settings(.setFontSize(let size)): state.settings.fontSize = size
    case .increment: state.counter += 1
    case .removeRow(let id): _ = state.rows.remove(id: id)
    }
}

func makeScopeApp(rows: Int = 1_000) -> Store<ScopeApp, ScopeAppAction> {
    let rows = IdentifiedList((0..<rows).map { ScopeRow(id: $0, title: "row \($0)") })
    return Store(state: ScopeApp(ScopeAppState(rows: rows)), reducer: scopeReducer)
}

/// A count per key, for closures called on whatever thread the store
/// drains on.
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]
    func count(_ key: Int) { lock.withLock { counts[key, default: 0] += 1 } }
    subscript(key: Int) -> Int { lock.withLock { counts[key, default: 0] } }
    var total: Int { lock.withLock { counts.values.reduce(0, +) } }
}

/// A value read and written from several threads.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: Value
    init(_ value: Value) { _value = value }
    var value: Value {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
    func mutate<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&_value) } }
}
