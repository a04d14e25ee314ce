import FastStoreTestSupport
import Testing

@Suite struct SeededGeneratorTests {
    @Test func sameSeedSameSequence() {
        var a = SeededGenerator(seed: 42)
        var b = SeededGenerator(seed: 42)
        var c = SeededGenerator(seed: 43)
        let xs = (0..<8).map { _ in a.next() }
        let ys = (0..<8).map { _ in b.next() }
        let zs = (0..<8).map { _ in c.next() }
        #expect(xs == ys)
        #expect(xs != zs)
    }
}
