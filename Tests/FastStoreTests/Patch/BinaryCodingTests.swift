@_spi(Testing) import FastStore
import FastStoreTestSupport
import Foundation
import Testing

/// The binary value encoding a saved file's snapshot and log use
/// (`_StateBytes`): a value decodes back to itself, checked against
/// Foundation's JSON coders as the reference on seeded random states; an
/// encoding the streaming encoder cannot take in order goes through the
/// tree; damaged bytes throw, never trap.
@Suite struct BinaryCodingTests {
    /// Both coders, each value: the binary round trip gives what the JSON
    /// round trip gives (compared as sorted-key JSON).
    private func expectSameAsJSON<T: Codable>(_ value: T, _ comment: @autoclosure () -> String = "") throws {
        let bytes = try _StateBytes.encode(value)
        let decoded = try bytes.withUnsafeBytes { try _StateBytes.decode(T.self, from: $0) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let viaJSON = try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(value))
        #expect(try encoder.encode(decoded) == encoder.encode(viaJSON), "\(comment())")
    }

    @Test func randomStatesRoundTripAsJSONDoes() throws {
        var rng = SeededGenerator.fromEnvironment(fallback: 0xB1_4A_12)
        var state = CodableTreeGen.state(&rng)
        for step in 0 ..< 200 {
            CodableTreeGen.mutate(&state, &rng)
            try expectSameAsJSON(state, "seed \(rng.seed), step \(step)")
        }
    }

    struct Scalars: Codable, Equatable {
        var int: Int, int8: Int8, int16: Int16, int32: Int32, int64: Int64
        var uint: UInt, uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64
        var double: Double, float: Float, bool: Bool, string: String
        var optional: Int?, absent: String?, nested: [[Int?]], map: [String: Double], intKeys: [Int: String]
        var choice: Choice, date: Date, data: Data
    }

    enum Choice: Codable, Equatable {
        case none
        case one(Int)
        case pair(label: String, Double)
    }

    @Test func everyScalarAndStandardShapeRoundTripsExactly() throws {
        let values = [
            Scalars(int: .min, int8: .min, int16: .min, int32: .min, int64: .max, uint: UInt(Int64.max), uint8: .max, uint16: .max,
                    uint32: .max, uint64: UInt64(Int64.max), double: -0.0, float: .greatestFiniteMagnitude, bool: true,
                    string: "é ✓ 👩‍👩‍👧", optional: nil, absent: nil, nested: [[], [nil, 1]], map: ["": .infinity, "k": -1.5e300],
                    intKeys: [3: "c", -1: ""], choice: .pair(label: "x", 2.5), date: Date(timeIntervalSince1970: 1.25), data: Data([0, 255, 7])),
            Scalars(int: 0, int8: 0, int16: 1, int32: -1, int64: .min, uint: 0, uint8: 0, uint16: 0, uint32: 0, uint64: 0,
                    double: .leastNonzeroMagnitude, float: -0.0, bool: false, string: String(repeating: "x", count: 300),
                    optional: 42, absent: "here", nested: [], map: [:], intKeys: [:], choice: .none, date: .distantPast, data: Data()),
        ]
        for value in values {
            let bytes = try _StateBytes.encode(value)
            let decoded = try bytes.withUnsafeBytes { try _StateBytes.decode(Scalars.self, from: $0) }
            #expect(decoded == value)
            // NB: exact where JSON is not: the sign of a zero.
            #expect(decoded.double.bitPattern == value.double.bitPattern)
            #expect(decoded.float.bitPattern == value.float.bitPattern)
        }
    }

    @Test func anUnsignedAboveInt64MaxIsRefusedAsAPatchRefusesIt() {
        #expect(throws: EncodingError.self) { try _StateBytes.encode([UInt64.max]) }
    }

    /// A type that writes a nested container after its parent went on, and
    /// one that encodes a single value twice: the streaming encoder cannot
    /// write these in order, and encodes them through the tree instead.
    struct OutOfOrder: Codable, Equatable {
        var a: Int
        var inner: [String: Int]
        var b: String

        enum CodingKeys: String, CodingKey { case a, inner, b }

        init(a: Int, inner: [String: Int], b: String) { self.a = a; self.inner = inner; self.b = b }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var nested = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .inner)
            try container.encode(a, forKey: .a)
            try container.encode(b, forKey: .b)
            // NB: written after the parent went on.
            for (key, value) in inner.sorted(by: { $0.key < $1.key }) {
                try nested.encode(value, forKey: CodingKeys(rawValue: key)!)
            }
        }
    }

    @Test func containersWrittenOutOfOrderStillRoundTrip() throws {
        let value = OutOfOrder(a: 7, inner: ["a": 1, "b": 2], b: "text")
        let decoded = try _StateBytes.encode([value, value]).withUnsafeBytes { try _StateBytes.decode([OutOfOrder].self, from: $0) }
        #expect(decoded == [value, value])
    }

    /// Fields read in another order than written, some skipped, and keys
    /// looked up that are not there.
    struct Reordered: Decodable, Equatable {
        var c: String
        var a: Int
        var missing: Int?
        enum CodingKeys: String, CodingKey { case a, b, c, missing }
        init(c: String, a: Int) { self.c = c; self.a = a }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            c = try container.decode(String.self, forKey: .c)
            a = try container.decode(Int.self, forKey: .a)
            missing = try container.decodeIfPresent(Int.self, forKey: .missing)
        }
    }

    struct Written: Encodable {
        var a: Int, b: [Int], c: String
    }

    @Test func fieldsReadInAnyOrderAndSkipped() throws {
        let bytes = try _StateBytes.encode([Written(a: 1, b: [1, 2, 3], c: "x"), Written(a: 2, b: [], c: "y")])
        let decoded = try bytes.withUnsafeBytes { try _StateBytes.decode([Reordered].self, from: $0) }
        #expect(decoded == [Reordered(c: "x", a: 1), Reordered(c: "y", a: 2)])
    }

    @Test func aWrongShapeNamesTheCodingPath() throws {
        struct Row: Codable { var id: Int; var title: String }
        struct Other: Codable { var id: Int; var title: Int }
        let bytes = try _StateBytes.encode(["rows": [Row(id: 1, title: "a"), Row(id: 2, title: "b")]])
        do {
            _ = try bytes.withUnsafeBytes { try _StateBytes.decode([String: [Other]].self, from: $0) }
            Issue.record("decoded a string as an Int")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue } == ["rows", "[0]", "title"])
        }
    }

    /// Every truncation and seeded single-byte changes of an encoded state
    /// either decode (a changed byte may still be a value) or throw a
    /// `DecodingError`: none traps.
    @Test func damagedBytesThrowAndNeverTrap() throws {
        var rng = SeededGenerator.fromEnvironment(fallback: 0xDA_3A6E)
        let state = CodableTreeGen.state(&rng)
        let bytes = try _StateBytes.encode(state)
        var thrown = 0
        func attempt(_ damaged: [UInt8]) {
            do {
                _ = try damaged.withUnsafeBytes { try _StateBytes.decode(CodableState.self, from: $0) }
            } catch is DecodingError {
                thrown += 1
            } catch {
                Issue.record("not a DecodingError: \(error)")
            }
        }
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 400)) { attempt(Array(bytes[..<length])) }
        for _ in 0 ..< 1_500 {
            var damaged = bytes
            damaged[Int.random(in: 0 ..< damaged.count, using: &rng)] = UInt8.random(in: 0 ... 255, using: &rng)
            attempt(damaged)
        }
        attempt(bytes + [0])
        #expect(thrown > 400, "seed \(rng.seed)")
    }

    @Test func damagedPackedPatchesThrowAndNeverTrap() throws {
        var rng = SeededGenerator.fromEnvironment(fallback: 0x9A7C4)
        var state = CodableTreeGen.state(&rng)
        var thrown = 0
        for _ in 0 ..< 200 {
            let before = state
            CodableTreeGen.mutate(&state, &rng)
            let patch = try StatePatch(from: before, to: state)
            let bytes = _StateBytes.pack(patch)
            let unpacked = try bytes.withUnsafeBytes { try _StateBytes.unpack(StatePatch<CodableState>.self, from: $0) }
            #expect(unpacked == patch, "seed \(rng.seed)")
            guard !bytes.isEmpty else { continue }
            for _ in 0 ..< 10 {
                var damaged = bytes
                if Bool.random(using: &rng) {
                    damaged[Int.random(in: 0 ..< damaged.count, using: &rng)] = UInt8.random(in: 0 ... 255, using: &rng)
                } else {
                    damaged.removeLast(Int.random(in: 1 ... damaged.count, using: &rng))
                }
                do {
                    _ = try damaged.withUnsafeBytes { try _StateBytes.unpack(StatePatch<CodableState>.self, from: $0) }
                } catch {
                    thrown += 1
                }
            }
        }
        #expect(thrown > 200, "seed \(rng.seed)")
    }

    /// Values nested deeper than the reader allows throw rather than
    /// exhaust the stack. (Run on a thread of its own with the stack a
    /// main thread has: a debug build's frames for 512 levels of `Codable`
    /// recursion need more than a test runner's thread gives.)
    @Test func deepNestingThrows() {
        var bytes: [UInt8] = []
        for _ in 0 ..< 100_000 { bytes += [7, 2] }  // an array of one, nested
        bytes.append(1)
        let deep = bytes
        let valueThrew = Box(), patchThrew = Box()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            valueThrew.value = (try? deep.withUnsafeBytes { try _StateBytes.decode(PatchValue.self, from: $0) }) == nil
            let patch: [UInt8] = [16, 2, 34] + deep
            patchThrew.value = (try? patch.withUnsafeBytes { try _StateBytes.unpack(StatePatch<CodableState>.self, from: $0) }) == nil
            done.signal()
        }
        thread.stackSize = 64 << 20
        thread.start()
        done.wait()
        #expect(valueThrew.value)
        #expect(patchThrew.value)
    }

    private final class Box: @unchecked Sendable { var value = false }
}

/// A decoder a value kept past its decoding reads nothing: the bytes were
/// lent for the decoding only.
@Suite struct BinaryDecoderLifetimeTests {
    final class Keeper: Decodable, @unchecked Sendable {
        let decoder: any Decoder
        init(from decoder: any Decoder) throws { self.decoder = decoder }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    @Test func aKeptDecoderThrowsAfterTheDecodingEnded() throws {
        let bytes = try _StateBytes.encode(["a": 1, "b": 2])
        let kept = try bytes.withUnsafeBytes { try _StateBytes.decode(Keeper.self, from: $0) }
        #expect(throws: DecodingError.self) {
            _ = try kept.decoder.container(keyedBy: Key.self).decode(Int.self, forKey: Key(stringValue: "a"))
        }
        #expect(throws: DecodingError.self) { _ = try kept.decoder.singleValueContainer().decode(Int.self) }
    }
}

/// Regressions from a review of the binary coders: each `Codable` pattern
/// below round-trips as it does through Foundation's JSON coders, or
/// throws where JSON throws; none leaves bytes that decode to another
/// value.
@Suite struct BinaryCodingReviewTests {
    /// Binary and JSON round trips agree (compared as sorted-key JSON).
    private func expectSameAsJSON<In: Encodable, Out: Codable>(_ value: In, as type: Out.Type, _ comment: String = "") throws {
        let bytes = try _StateBytes.encode(value)
        let binary = try bytes.withUnsafeBytes { try _StateBytes.decode(Out.self, from: $0) }
        let json = try JSONDecoder().decode(Out.self, from: try JSONEncoder().encode(value))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(binary), as: UTF8.self) == String(decoding: try encoder.encode(json), as: UTF8.self), "\(comment)")
    }

    // A field whose decoding fails and is caught, then fields after it.
    enum Status: String, Codable { case open, done, unknown }
    struct InnerWritten: Codable { var status: String; var name: String }
    struct OuterWritten: Codable { var inner: InnerWritten; var note: String? }
    struct Inner: Codable {
        var status: Status
        var name: String
        var note: String?
        enum CodingKeys: String, CodingKey { case status, name, note }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            status = (try? container.decode(Status.self, forKey: .status)) ?? .unknown
            name = try container.decode(String.self, forKey: .name)
            note = try container.decodeIfPresent(String.self, forKey: .note)
        }
    }
    struct Outer: Codable { var inner: Inner; var note: String? }

    @Test func aCaughtFieldErrorLeavesTheFieldsAfterItWhereTheyAre() throws {
        let written = [OuterWritten(inner: InnerWritten(status: "archived", name: "n"), note: "outer"),
                       OuterWritten(inner: InnerWritten(status: "open", name: "m"), note: nil)]
        try expectSameAsJSON(written, as: [Outer].self)
    }

    // A subclass encoding its superclass's key again: the last one wins.
    class Base: Codable {
        var kind = "base"
        enum CodingKeys: String, CodingKey { case kind }
    }
    final class Derived: Base {
        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("derived", forKey: .kind)
        }
    }

    struct Kind: Codable { var kind: String }

    @Test func aKeyEncodedTwiceKeepsTheLastAsJSONDoes() throws {
        try expectSameAsJSON([Derived()], as: [Kind].self)
    }

    // A superclass encoder handed out and never written to, and one
    // written after its parent went on.
    struct Unwritten: Codable {
        var a = 5
        enum CodingKeys: String, CodingKey { case a }
        init() {}
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            _ = container.superEncoder()
            try container.encode(a, forKey: .a)
        }
    }

    struct Late: Encodable {
        enum CodingKeys: String, CodingKey { case a }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            let late = container.superEncoder()
            try container.encode(1, forKey: .a)
            var single = late.singleValueContainer()
            try single.encode(2)
        }
    }

    struct AOnly: Codable { var a: Int }

    @Test func superEncodersUnwrittenOrWrittenLateRoundTripAsJSONDoes() throws {
        try expectSameAsJSON([Unwritten(), Unwritten()], as: [AOnly].self)
        try expectSameAsJSON([Late()], as: [[String: Int]].self)
    }

    // Errors caught by the type mid-way: an element that fails in a lossy
    // array, and a write to a container after its parent went on.
    struct Failing: Encodable {
        var fails: Bool
        var value: Int
        struct Refused: Error {}
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if fails { throw Refused() }
            try container.encode(value)
        }
    }

    struct Lossy: Encodable {
        var items: [Failing]
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for item in items { try? container.encode(item) }
        }
    }

    struct Swallowed: Encodable {
        enum CodingKeys: String, CodingKey { case a, nested, x }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var nested = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .nested)
            try container.encode(1, forKey: .a)
            try? nested.encode(42, forKey: .x)
        }
    }

    @Test func errorsATypeCatchesLeaveNoBrokenBytes() throws {
        let lossy = Lossy(items: [Failing(fails: false, value: 1), Failing(fails: true, value: 2), Failing(fails: false, value: 3)])
        let bytes = try _StateBytes.encode(lossy)
        let decoded = try bytes.withUnsafeBytes { try _StateBytes.decode([Int?].self, from: $0) }
        #expect(decoded.compactMap { $0 } == [1, 3], "\(decoded)")
        let swallowed = try _StateBytes.encode(Swallowed()).withUnsafeBytes { try _StateBytes.decode(PatchValue.self, from: $0) }
        #expect(swallowed == .object(["a": .int(1), "nested": .object(["x": .int(42)])]), "\(swallowed)")
    }

    /// A count that fits the bytes left but not memory (32 M elements of a
    /// kilobyte each) throws instead of reserving them.
    struct Big: Codable, Identifiable {
        var id: Int
        var payload: [Int] = []
        typealias Sixteen = (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)
        static let zeros: Sixteen = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        // NB: a kilobyte, so that 32 M of them are more than memory holds.
        var padding: (Sixteen, Sixteen, Sixteen, Sixteen, Sixteen, Sixteen, Sixteen, Sixteen) = (zeros, zeros, zeros, zeros, zeros, zeros, zeros, zeros)
        enum CodingKeys: String, CodingKey { case id, payload }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
        }
    }

    @Test func aHugeCountThrowsInsteadOfReserving() {
        let count = 1 << 25
        var bytes: [UInt8] = [7]
        var zigzag = UInt64(count) << 1
        while zigzag >= 0x80 { bytes.append(UInt8(truncatingIfNeeded: zigzag) | 0x80); zigzag >>= 7 }
        bytes.append(UInt8(zigzag))
        bytes += [UInt8](repeating: 1, count: count)
        #expect(throws: DecodingError.self) {
            _ = try bytes.withUnsafeBytes { try _StateBytes.decode(IdentifiedList<Big>.self, from: $0) }
        }
    }

    @Test func numbersBeyondTheirTypeThrow() throws {
        let huge = try _StateBytes.encode([1e300])
        #expect(throws: DecodingError.self) { _ = try huge.withUnsafeBytes { try _StateBytes.decode([Float].self, from: $0) } }
        let eleven: [UInt8] = [4] + [UInt8](repeating: 0xFF, count: 9) + [0x7F]
        #expect(throws: DecodingError.self) { _ = try eleven.withUnsafeBytes { try _StateBytes.decode(Int64.self, from: $0) } }
    }
}
