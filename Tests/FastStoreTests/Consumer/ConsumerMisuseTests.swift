import FastStore
import Testing

/// Consumer API misuse ends in a precondition failure naming the problem.
@Suite struct ConsumerMisuseTests {
    @Test func aBagRefusesAConsumerOfAnotherStateConsumer() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let mine = StateConsumer<Int>(), other = StateConsumer<Int>()
            let bag = ConsumerBag(mine)
            bag.add(other.add({ $0 }) { (_: Int) in })
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("not registered with the bag's StateConsumer"), "got: \(message)")
    }
}
