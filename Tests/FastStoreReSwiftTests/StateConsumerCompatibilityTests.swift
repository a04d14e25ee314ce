import FastStoreReSwift
import Testing

// ReSwiftConsumer's StateConsumer API beyond its README: the optional-state
// selector forms with every callback shape, `consume(new:)`,
// `consume(old:new:)`, `init(initialState:)`, `predict`, `TypedConsumer`,
// `ConsumerBag`; next to FastStore's own `{ $0.counter }` forms, which stay
// unambiguous.

private struct State: Equatable {
    var count = 0
    var title: String? = nil
    var tags: [String] = []
    var map: [Int: String] = [:]
}

@Suite struct StateConsumerCompatibilityTests {
    @Test func optionalStateSelectorsWithEveryCallbackShape() {
        let consumer = StateConsumer<State>()
        var log: [String] = []
        consumer.add({ state in state?.count }) { (old: Int?, new: Int?) in log.append("T?T? \(old as Any) \(new as Any)") }
        consumer.add({ state in state?.count }) { (new: Int?) in log.append("T? \(new as Any)") }
        consumer.add({ state in state?.count }) { (new: Int) in log.append("T \(new)") }
        consumer.add({ state in state?.count }) { (old: Int, new: Int) in log.append("TT \(old) \(new)") }
        consumer.add({ state in state?.count }) { (old: Int?, new: Int) in log.append("T?T \(old as Any) \(new)") }
        consumer.add({ state in state?.title }) { (state: State?, new: String?) in
            log.append("S?T? \(state?.count ?? -1) \(new ?? "nil")")
        }
        consumer.add({ state in state?.title }) { (state: State?, new: String) in log.append("S?T \(state?.count ?? -1) \(new)") }
        consumer.add({ state in state?.title }) { (state: State, new: String?) in log.append("ST? \(state.count) \(new ?? "nil")") }
        consumer.add({ state in state?.title }) { (state: State, new: String) in log.append("ST \(state.count) \(new)") }

        consumer.consume(newState: State(count: 1))
        #expect(log == ["T?T? nil Optional(1)", "T? Optional(1)", "T 1", "T?T nil 1"],
                "title stays nil: no change for its consumers; (old, new) needs an old value")
        log = []
        consumer.consume(new: State(count: 2, title: "a"))
        #expect(log == [
            "T?T? Optional(1) Optional(2)", "T? Optional(2)", "T 2", "TT 1 2", "T?T Optional(1) 2",
            "S?T? 2 a", "S?T 2 a", "ST? 2 a", "ST 2 a",
        ])
        log = []
        consumer.consume(old: State(count: 2, title: "a"), new: State(count: 2, title: "a"))
        consumer.consume(new: nil)
        #expect(log == [], "an unchanged state calls nothing; a nil state is ignored")
        consumer.consume(newState: State(count: 2, title: nil))
        #expect(log == ["S?T? 2 nil", "ST? 2 nil"], "forms with a non-optional value skip nil")
    }

    @Test func nonOptionalSelectorsKeepFastStoreForms() {
        // `{ $0.count }` cannot take an optional state, so the optional-state
        // overloads do not make these ambiguous.
        let consumer = StateConsumer<State>()
        var log: [String] = []
        consumer.add({ $0.count }) { (old: Int?, new: Int) in log.append("count \(old as Any) \(new)") }
        consumer.add({ $0.tags }) { (old: [String]?, new: [String]) in log.append("tags \(new)") }
        consumer.add({ $0.title }) { (old: String?, new: String?) in log.append("title \(new as Any)") }
        consumer.add({ state in state?.tags }) { (old: [String]?, new: [String]) in log.append("tags? \(new)") }
        consumer.consume(newState: State(count: 1, tags: ["x"]))
        #expect(log == ["count nil 1", "tags [\"x\"]", "tags? [\"x\"]"])
    }

    @Test func predictForNonEquatableSelections() {
        // ReSwiftConsumer's PredictConsumerTests, with a synchronous callback.
        struct Mapped { let map: [Int: String] }
        let consumer = StateConsumer<State>()
        var results: [[Int: String]] = []
        let consumption: (([Int: String]?, [Int: String]) -> Void) = { _, new in results.append(new) }
        consumer.add({ state in state?.map }, consumption, predict: { old, new -> Bool in old == new })
        var wrapped: [Int] = []
        consumer.add({ (state: State?) -> Mapped? in state.map { Mapped(map: $0.map) } }, { (_: Mapped?, new: Mapped?) in
            wrapped.append(new?.map.count ?? -1)
        }, predict: { old, new in old?.map == new?.map })

        let a = State(map: [1: "a", 2: "b", 3: "c"])
        consumer.consume(newState: a)
        consumer.consume(newState: a)
        consumer.consume(newState: State(map: [1: "a"]))
        #expect(results == [a.map, [1: "a"]])
        #expect(wrapped == [3, 1])
    }

    @Test func initialStateAndConsumerProtocol() {
        let consumer = StateConsumer<State>(initialState: State(count: 5))
        var counts: [Int] = []
        consumer.add({ $0.count }) { (new: Int) in counts.append(new) }
        func feed<C: Consumer>(_ consumer: C, _ state: C.State) { consumer.consume(new: state) }
        feed(consumer, State(count: 6))
        #expect(counts == [6])
    }

    @Test func typedConsumersInABag() {
        let consumer = StateConsumer<State>()
        let bag = ConsumerBag(consumer)
        var seen: [String] = []
        let counter: TypedConsumer<State> = consumer.add({ state in state?.count }) { (new: Int) in seen.append("count \(new)") }
        bag.add(counter)
        bag.add(consumer.add({ state in state?.title }) { (new: String?) in seen.append("title \(new ?? "nil")") })
        consumer.add({ $0.tags }) { (new: [String]) in seen.append("tags \(new.count)") }
        consumer.consume(newState: State(count: 1, title: "t"))
        bag.removeAll()
        consumer.consume(newState: State(count: 2, title: "u", tags: ["x"]))
        #expect(seen == ["count 1", "title t", "tags 0", "tags 1"])
        #expect(consumer.count == 1)
    }
}
