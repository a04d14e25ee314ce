import FastStore
import Testing

// A type-check: FastStore's selectors that take the state itself
// (`{ $0.counter }`, `{ state in state.counter }`, key paths, functions)
// still resolve, unambiguously, with ReSwiftConsumer's optional-state forms
// (StateConsumer+OptionalState.swift) in the same overload set. Each `add`
// below is a compile error if it became ambiguous; `$0.counter` only
// type-checks when `$0` is the state, not an optional, so these can only be
// FastStore's `(State) -> T` forms. The expectations check they behave as
// those forms do.
//
// Selectors that read no member (`{ $0 }`, `{ _ in 1 }`) fit both overload
// sets; they must stay unambiguous too, and behave as before the
// optional-state forms existed.

private struct AppState: Equatable {
    var counter = 0
    var name: String? = nil
    var works: [String] = []
}

private func selectCounter(_ state: AppState) -> Int { state.counter }
private func selectOptionalCounter(_ state: AppState?) -> Int? { state?.counter }

@Suite struct StateConsumerSelectorResolutionTests {
    @Test func stateSelectorsResolveToTheStateForms() {
        let consumer = StateConsumer<AppState>()
        var log: [String] = []

        // Non-optional selections.
        let h1: ConsumerHandle<AppState> = consumer.add({ $0.counter }) { (old: Int?, new: Int) in log.append("1 \(old as Any) \(new)") }
        let h2: ConsumerHandle<AppState> = consumer.add({ $0.counter }) { (new: Int) in log.append("2 \(new)") }
        let h3: ConsumerHandle<AppState> = consumer.add({ $0.counter }) { (old: Int, new: Int) in log.append("3 \(old) \(new)") }
        consumer.add({ state in state.counter }) { (new: Int) in log.append("4 \(new)") }
        consumer.add({ state in
            let counter = state.counter
            return counter * 10
        }) { (new: Int) in log.append("5 \(new)") }
        consumer.add(\.counter) { (new: Int) in log.append("6 \(new)") }
        consumer.add(selectCounter) { (new: Int) in log.append("7 \(new)") }
        consumer.add({ $0.works }) { (old: [String]?, new: [String]) in log.append("8 \(new)") }
        consumer.add({ $0 }) { (new: AppState) in log.append("9 \(new.counter)") }

        // Optional selections of the state itself.
        consumer.add({ $0.name }) { (old: String?, new: String?) in log.append("10 \(new ?? "nil")") }
        consumer.add({ $0.name }) { (new: String?) in log.append("11 \(new ?? "nil")") }
        consumer.add({ $0.name }) { (old: String?, new: String) in log.append("12 \(new)") }

        // Predicted selections.
        consumer.add({ $0.counter }, { (old: Int?, new: Int?) in log.append("13 \(new ?? -1)") },
                     predict: { old, new in old == new })

        // A function of the optional state goes to the optional-state forms.
        consumer.add(selectOptionalCounter) { (new: Int) in log.append("14 \(new)") }

        _ = (h1, h2, h3)
        consumer.consume(newState: AppState())
        #expect(log == ["1 nil 0", "2 0", "4 0", "5 0", "6 0", "7 0", "8 []", "9 0", "13 0", "14 0"])
        log = []
        consumer.consume(newState: AppState(counter: 1, name: "n"))
        #expect(log == ["1 Optional(0) 1", "2 1", "3 0 1", "4 1", "5 10", "6 1", "7 1", "9 1",
                        "10 n", "11 n", "12 n", "13 1", "14 1"])
        #expect(consumer.count == 14)
    }

    @Test func selectorsBothSetsAcceptStayUnambiguous() {
        let consumer = StateConsumer<AppState>()
        var log: [String] = []
        consumer.add({ $0 }) { (new: AppState) in log.append("a \(new.counter)") }
        consumer.add({ $0 }) { (old: AppState?, new: AppState) in log.append("b \(old?.counter ?? -1) \(new.counter)") }
        consumer.add({ $0 }) { (old: AppState, new: AppState) in log.append("c \(old.counter) \(new.counter)") }
        consumer.add({ $0 }) { (old: AppState?, new: AppState?) in log.append("d \(new?.counter ?? -1)") }
        consumer.add({ $0 }) { (new: AppState?) in log.append("e \(new?.counter ?? -1)") }
        consumer.add({ $0 }, { (old: AppState?, new: AppState?) in log.append("f \(new?.counter ?? -1)") },
                     predict: { $0 == $1 })
        consumer.add({ _ in 1 }) { (new: Int) in log.append("g \(new)") }
        consumer.add({ _ in 1 }) { (old: Int?, new: Int) in log.append("h \(new)") }
        consumer.add({ _ in 1 }) { (old: Int?, new: Int?) in log.append("i \(new ?? -1)") }
        consumer.add({ _ in 1 }) { (new: Int?) in log.append("j \(new ?? -1)") }

        consumer.consume(newState: AppState())
        #expect(log == ["a 0", "b -1 0", "d 0", "e 0", "f 0", "g 1", "h 1", "i 1", "j 1"])
        log = []
        consumer.consume(newState: AppState(counter: 1))
        #expect(log == ["a 1", "b 0 1", "c 0 1", "d 1", "e 1", "f 1"])
        log = []
        consumer.consume(newState: AppState(counter: 1))
        #expect(log == [])
    }
}
