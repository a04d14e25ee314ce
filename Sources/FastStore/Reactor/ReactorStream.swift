/// An asynchronous sequence of actions, mutations or states: what a
/// ``Reactor``'s `mutate(action:)` returns and its `transform` hooks take
/// and return (RxSwift's `Observable` in ReactorKit).
///
/// ```swift
/// func mutate(action: Action) -> ReactorStream<Mutation> {
///     switch action {
///     case .toggleBookmarked:
///         return .just(.toggleBookmarked)                       // known now: reduced before send returns
///     case .refresh:
///         return ReactorStream { emit in                        // over time
///             emit(.setLoading(true))
///             emit(.setItems(await api.items()))
///             emit(.setLoading(false))
///         }
///     }
/// }
/// ```
///
/// A stream made from elements known now (``just(_:)``, ``of(_:)``,
/// ``empty``, ``init(elements:)``) is taken by a reactor synchronously. Other
/// streams are cold: each iteration runs them anew (as an `Observable` is
/// subscribed anew). The stream of a reactor's ``Reactor/states`` and of its
/// pulses are hot and can be iterated once.
public struct ReactorStream<Element: Sendable>: AsyncSequence, Sendable {
    /// Where the elements come from.
    enum _Source: Sendable {
        /// Elements known now.
        case elements([Element])
        /// A new asynchronous run per iteration.
        case make(@Sendable () -> AsyncStream<Element>)
        /// A hot stream, iterated once (a reactor's states and pulses).
        case hot(AsyncStream<Element>)
        /// A reactor's own pipe (see `_ReactorChannel`): its identity tells
        /// a reactor that a transform hook returned its input unchanged.
        case channel(_ReactorChannel<Element>)
        /// Elements pulled from other streams by the iterating task itself,
        /// with no task in between (`map`, `filter`, `concat`): a new pull
        /// function per iteration.
        case chained(@Sendable () -> _Pull)
    }

    /// Pulls the next element of a chained stream.
    typealias _Pull = () async -> Element?

    let _source: _Source

    init(_source: _Source) { self._source = _source }

    /// A stream of `elements`, known now.
    ///
    /// - Complexity: O(1) plus copying `elements`.
    public init<Elements: Sequence>(elements: Elements) where Elements.Element == Element {
        _source = .elements(Array(elements))
    }

    /// A stream whose elements `body` emits over time; it ends when `body`
    /// returns, and `body`'s task is cancelled when the iteration stops
    /// (the reactor goes away, say).
    ///
    /// - Complexity: O(1); each iteration starts one task.
    public init(_ body: @escaping @Sendable (_ emit: Emitter) async -> Void) {
        _source = .make {
            AsyncStream { continuation in
                let task = Task {
                    await body(Emitter(continuation: continuation))
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }

    /// A stream of the elements of any `Sendable` asynchronous sequence
    /// (a sequence that throws ends the stream at its error).
    ///
    /// - Complexity: O(1); each iteration starts one task.
    public init<Source: AsyncSequence & Sendable>(_ source: Source) where Source.Element == Element {
        _source = .make {
            AsyncStream { continuation in
                let task = Task {
                    do {
                        for try await element in source { continuation.yield(element) }
                    } catch {}
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }

    /// A stream of one element.
    ///
    /// - Complexity: O(1).
    public static func just(_ element: Element) -> ReactorStream { ReactorStream(_source: .elements([element])) }

    /// A stream of the given elements.
    ///
    /// - Complexity: O(`elements.count`).
    public static func of(_ elements: Element...) -> ReactorStream { ReactorStream(_source: .elements(elements)) }

    /// A stream with no elements.
    ///
    /// - Complexity: O(1).
    public static var empty: ReactorStream { ReactorStream(_source: .elements([])) }

    /// The elements of `streams` as they come, from all of them at once: how
    /// a `transform` hook merges a global stream (the current user, say)
    /// into a reactor's. Ends when every stream has ended.
    ///
    /// - Complexity: O(`streams.count`); each iteration starts one task per
    ///   stream.
    public static func merge(_ streams: ReactorStream...) -> ReactorStream { merge(streams) }

    /// ``merge(_:)-swift.type.method`` of an array of streams.
    ///
    /// - Complexity: as the variadic form.
    public static func merge(_ streams: [ReactorStream]) -> ReactorStream {
        if streams.allSatisfy({ if case .elements = $0._source { true } else { false } }) {
            return concat(streams)
        }
        return ReactorStream(_source: .make {
            AsyncStream { continuation in
                let task = Task {
                    await withTaskGroup(of: Void.self) { group in
                        for stream in streams {
                            group.addTask { for await element in stream { continuation.yield(element) } }
                        }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        })
    }

    /// The elements of each stream of `streams`, one stream after the other.
    ///
    /// - Complexity: O(`streams.count`) (plus the elements, when all are
    ///   known now); else one task per iteration.
    public static func concat(_ streams: ReactorStream...) -> ReactorStream { concat(streams) }

    /// ``concat(_:)-swift.type.method`` of an array of streams.
    ///
    /// - Complexity: as the variadic form.
    public static func concat(_ streams: [ReactorStream]) -> ReactorStream {
        var known: [Element] = []
        for stream in streams {
            guard case .elements(let elements) = stream._source else {
                return ReactorStream(_source: .chained {
                    let remaining = _IteratorBox<Element>(streams: streams)
                    return { await remaining.next() }
                })
            }
            known += elements
        }
        return ReactorStream(_source: .elements(known))
    }

    /// The stream of `transform` applied to each element.
    ///
    /// - Complexity: O(1), or O(n) for n elements known now.
    public func map<T: Sendable>(_ transform: @escaping @Sendable (Element) -> T) -> ReactorStream<T> {
        compactMap(transform)
    }

    /// The stream of the non-`nil` results of `transform`.
    ///
    /// - Complexity: O(1), or O(n) for n elements known now.
    public func compactMap<T: Sendable>(_ transform: @escaping @Sendable (Element) -> T?) -> ReactorStream<T> {
        if case .elements(let elements) = _source { return ReactorStream<T>(elements: elements.compactMap(transform)) }
        let source = self
        return ReactorStream<T>(_source: .chained {
            let base = _IteratorBox<Element>(streams: [source])
            return {
                while let element = await base.next() {
                    if let mapped = transform(element) { return mapped }
                }
                return nil
            }
        })
    }

    /// The stream of the elements `isIncluded` accepts.
    ///
    /// - Complexity: O(1), or O(n) for n elements known now.
    public func filter(_ isIncluded: @escaping @Sendable (Element) -> Bool) -> ReactorStream {
        compactMap { isIncluded($0) ? $0 : nil }
    }

    /// Emits elements into a stream made with
    /// ``init(_:)-((ReactorStream<Element>.Emitter)->Void)``.
    public struct Emitter: Sendable {
        let continuation: AsyncStream<Element>.Continuation

        /// Emits `element`.
        ///
        /// - Complexity: O(1).
        public func callAsFunction(_ element: Element) {
            continuation.yield(element)
        }
    }

    /// Starts an iteration (a new run of a cold stream).
    ///
    /// - Complexity: O(1); a cold stream starts its task.
    public func makeAsyncIterator() -> Iterator {
        switch _source {
        case .elements(let elements): Iterator(_state: .elements(elements, 0))
        case .make(let make): Iterator(_state: .stream(make().makeAsyncIterator()))
        case .hot(let stream): Iterator(_state: .stream(stream.makeAsyncIterator()))
        case .channel(let channel): Iterator(_state: .channel(channel))
        case .chained(let makePull): Iterator(_state: .chained(makePull()))
        }
    }

    /// The iterator of a ``ReactorStream``.
    public struct Iterator: AsyncIteratorProtocol {
        enum _State {
            case elements([Element], Int)
            case stream(AsyncStream<Element>.Iterator)
            case channel(_ReactorChannel<Element>)
            case chained(_Pull)
        }

        var _state: _State

        /// The next element, or `nil` when the stream ended.
        ///
        /// - Complexity: O(1) for elements known now; else waits for the
        ///   stream.
        public mutating func next() async -> Element? {
            switch _state {
            case .elements(let elements, let index):
                guard index < elements.count else { return nil }
                _state = .elements(elements, index + 1)
                return elements[index]
            case .stream(var iterator):
                let element = await iterator.next()
                _state = .stream(iterator)
                return element
            case .channel(let channel):
                return await channel.next()
            case .chained(let pull):
                return await pull()
            }
        }
    }
}

/// The iteration of several streams one after the other, pulled by the
/// iterating task.
///
/// NB: a class so that a pull closure can advance it; used by one
/// iteration only.
final class _IteratorBox<Element: Sendable> {
    private var streams: ArraySlice<ReactorStream<Element>>
    private var current: ReactorStream<Element>.Iterator?

    init(streams: [ReactorStream<Element>]) { self.streams = streams[...] }

    func next() async -> Element? {
        while true {
            if current == nil {
                guard let stream = streams.popFirst() else { return nil }
                current = stream.makeAsyncIterator()
            }
            if let element = await current!.next() { return element }
            current = nil
        }
    }
}

extension ReactorStream {
    /// Whether `self` is `other`'s own pipe: a transform hook returned its
    /// input unchanged.
    func _isSamePipe(as other: ReactorStream) -> Bool {
        if case .channel(let mine) = _source, case .channel(let theirs) = other._source { return mine === theirs }
        return false
    }
}
