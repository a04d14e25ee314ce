/// An associative summary of a list's elements (a monoid over a per-element
/// value), kept up to date by a ``VersionedList`` or ``IdentifiedList`` it
/// is attached to.
///
/// A summary maps each element to a value (``summarize(_:)``) and combines
/// values with an associative ``combine(_:_:)`` whose neutral value is
/// ``identity``. Attached to a list (``VersionedList/attach(_:)``), it is
/// stored per tree node and updated along the written path, so
/// ``VersionedList/fold(_:)`` reads it in O(1) after any write.
///
///     enum Remaining: CountingSummary {
///         static func counts(_ todo: Todo) -> Bool { !todo.isDone }
///     }
///     var todos = IdentifiedList<Todo>(items)
///     todos.attach(Remaining.self)
///     todos[id: id]?.isDone = true        // O(log n), fold included
///     todos.fold(Remaining.self)          // O(1)
///
/// `combine` must be associative (`combine(a, combine(b, c)) ==
/// combine(combine(a, b), c)`) and `identity` neutral on both sides; it need
/// not be commutative (elements are combined in list order). The protocol's
/// requirements are static: a summary is a type, so that every version of
/// a list names it the same way.
///
/// `Value` is `Equatable`: a selection of a fold is compared like any other
/// selection, and internal checks compare stored summaries with recomputed
/// ones.
public protocol ListSummary<Element> {
    associatedtype Element
    associatedtype Value: Equatable

    /// The neutral value: the summary of no elements.
    static var identity: Value { get }

    /// The summary of one element.
    static func summarize(_ element: Element) -> Value

    /// The summary of two adjacent runs of elements, `a` before `b`.
    static func combine(_ a: Value, _ b: Value) -> Value

    /// FastStore's fold loops for this summary, specialized where the
    /// conformance is declared. Do not implement: the default is the only
    /// correct one.
    static func _foldKernels() -> AnyObject
}

extension ListSummary {
    // NB: `@inlinable` defaults: each conformance's witnesses are compiled
    // in the conforming module, for its concrete type, so the loops they
    // make are specialized even when the fold is attached through an
    // existential (`init(_:folds:)`).
    @inlinable
    public static func _foldKernels() -> AnyObject { _SummaryKernels<Self>() }

    /// The summary of `elements`, computed from scratch.
    ///
    /// - Complexity: O(n).
    @inlinable
    public static func fold<S: Sequence>(_ elements: S) -> Value where S.Element == Element {
        var value = identity
        for element in elements { value = combine(value, summarize(element)) }
        return value
    }
}

// MARK: Built-in summaries

/// A summary counting the elements for which ``counts(_:)`` is true.
public protocol CountingSummary<Element>: ListSummary where Value == Int {
    // NB: restated so that `Element` is inferred from `counts(_:)`.
    associatedtype Element
    /// Whether `element` is counted.
    static func counts(_ element: Element) -> Bool
}

extension CountingSummary {
    @inlinable public static var identity: Int { 0 }
    @inlinable public static func summarize(_ element: Element) -> Int { counts(element) ? 1 : 0 }
    @inlinable public static func combine(_ a: Int, _ b: Int) -> Int { a &+ b }
}

/// A summary adding up ``term(_:)`` over the elements.
///
/// Floating-point sums depend on grouping: the stored sum of a
/// floating-point term may differ in its last bits from a left-to-right
/// sum.
public protocol SumSummary<Element>: ListSummary where Value: AdditiveArithmetic {
    associatedtype Element
    associatedtype Value
    /// The term `element` adds.
    static func term(_ element: Element) -> Value
}

extension SumSummary {
    @inlinable public static var identity: Value { .zero }
    @inlinable public static func summarize(_ element: Element) -> Value { term(element) }
    @inlinable public static func combine(_ a: Value, _ b: Value) -> Value { a + b }
}

/// A summary keeping the least ``key(_:)`` of the elements (nil when there
/// are none).
public protocol MinimumSummary<Element>: ListSummary where Value == Key? {
    associatedtype Element
    associatedtype Key: Comparable
    /// The key of `element`.
    static func key(_ element: Element) -> Key
}

extension MinimumSummary {
    @inlinable public static var identity: Key? { nil }
    @inlinable public static func summarize(_ element: Element) -> Key? { key(element) }
    @inlinable public static func combine(_ a: Key?, _ b: Key?) -> Key? {
        guard let a else { return b }
        guard let b else { return a }
        return b < a ? b : a
    }
}

/// A summary keeping the greatest ``key(_:)`` of the elements (nil when
/// there are none).
public protocol MaximumSummary<Element>: ListSummary where Value == Key? {
    associatedtype Element
    associatedtype Key: Comparable
    /// The key of `element`.
    static func key(_ element: Element) -> Key
}

extension MaximumSummary {
    @inlinable public static var identity: Key? { nil }
    @inlinable public static func summarize(_ element: Element) -> Key? { key(element) }
    @inlinable public static func combine(_ a: Key?, _ b: Key?) -> Key? {
        guard let a else { return b }
        guard let b else { return a }
        return a < b ? b : a
    }
}
