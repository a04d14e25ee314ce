// The binary encoding of values: one format for what a patch carries (a
// history's packed entries, `_PatchBytes`; a saved file's log) and for a
// whole saved state (`_BinaryEncoder`, `_BinaryDecoder`). Its data model is
// `PatchValue`'s, the JSON data model.
//
// A value is a tag byte and its payload:
//
// | tag | payload |
// |---|---|
// | `null`, `false`, `true` | none |
// | `int` | a zigzag varint |
// | `double` | its 8 bytes, little-endian |
// | `string` | a varint byte count, then UTF-8 |
// | `array` | a varint element count, then the elements |
// | `object` | a varint field count, then per field its key (a varint byte count and UTF-8) and its value |
//
// Counts and lengths are varints read the same whether written in the
// fewest bytes or padded to five (`reserveCount`, `fillCount`: a streaming
// encoder writes a container's count once it is known). An object's fields
// come in any order; a key appears once.

internal enum _ValueBytes {
    enum Tag: UInt8 {
        case absent = 0, null, `false`, `true`, int, double, string, array, object
        case set = 16, edit
        case field = 32, index, id, key
    }

    /// Containers and patch paths nest at most this deep in what is read.
    static let maximumDepth = 512
    /// The most elements reserved ahead for a count read: a count is
    /// checked against the bytes left, not against what each element takes
    /// in memory.
    static let maximumReservation = 4_096

    // MARK: Writing

    @inline(__always)
    static func appendInt(_ value: Int64, to bytes: inout [UInt8]) {
        var zigzag = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while zigzag >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: zigzag) | 0x80)
            zigzag >>= 7
        }
        bytes.append(UInt8(zigzag))
    }

    @inline(__always)
    static func appendDouble(_ value: Double, to bytes: inout [UInt8]) {
        var bits = value.bitPattern
        for _ in 0 ..< 8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    @inline(__always)
    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in
            appendInt(Int64(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    /// Writes five bytes to be filled in with a count (`fillCount`); returns
    /// where they are.
    static func reserveCount(in bytes: inout [UInt8]) -> Int {
        let position = bytes.count
        bytes.append(contentsOf: [0x80, 0x80, 0x80, 0x80, 0x00])
        return position
    }

    /// Fills the five bytes `reserveCount` wrote at `position` with `count`.
    ///
    /// - Precondition: `count < 2^34`.
    static func fillCount(_ count: Int, at position: Int, in bytes: inout [UInt8]) {
        precondition(count >= 0 && Int64(count) < (Int64(1) << 34), "FastStore: a container of \(count) values is too large to encode")
        var zigzag = UInt64(count) << 1
        for k in 0 ..< 4 {
            bytes[position + k] = UInt8(truncatingIfNeeded: zigzag) | 0x80
            zigzag >>= 7
        }
        bytes[position + 4] = UInt8(truncatingIfNeeded: zigzag)
    }

    /// Writes `value` (`nil`: the tag `absent`).
    ///
    /// - Complexity: O(size of the value).
    static func append(_ value: PatchValue?, to bytes: inout [UInt8]) {
        guard let value else {
            bytes.append(Tag.absent.rawValue)
            return
        }
        switch value {
        case .null: bytes.append(Tag.null.rawValue)
        case .bool(let b): bytes.append(b ? Tag.true.rawValue : Tag.false.rawValue)
        case .int(let i):
            bytes.append(Tag.int.rawValue)
            appendInt(i, to: &bytes)
        case .double(let d):
            bytes.append(Tag.double.rawValue)
            appendDouble(d, to: &bytes)
        case .string(let s):
            bytes.append(Tag.string.rawValue)
            appendString(s, to: &bytes)
        case .array(let elements):
            bytes.append(Tag.array.rawValue)
            appendInt(Int64(elements.count), to: &bytes)
            for element in elements { append(element, to: &bytes) }
        case .object(let fields):
            bytes.append(Tag.object.rawValue)
            appendInt(Int64(fields.count), to: &bytes)
            for (key, field) in fields {
                appendString(key, to: &bytes)
                append(field, to: &bytes)
            }
        }
    }

    // MARK: Reading

    /// What is wrong with bytes that do not read as values: where, and what.
    struct Damage: Error, CustomStringConvertible {
        let position: Int
        let reason: String
        var description: String { "\(reason) at byte \(position)" }
    }

    /// Reads values from bytes it does not own, checking every length and
    /// tag: bytes that are not what a writer wrote throw ``Damage``, never
    /// trap.
    struct Reader {
        let base: UnsafeRawPointer?
        let count: Int
        var position: Int

        init(_ buffer: UnsafeRawBufferPointer, position: Int = 0) {
            base = buffer.baseAddress
            count = buffer.count
            self.position = position
        }

        var isAtEnd: Bool { position >= count }

        func damage(_ reason: String, at position: Int? = nil) -> Damage {
            Damage(position: position ?? self.position, reason: reason)
        }

        @inline(__always)
        mutating func byte() throws(Damage) -> UInt8 {
            guard position < count, let base else { throw damage("the bytes end early") }
            defer { position += 1 }
            return base.load(fromByteOffset: position, as: UInt8.self)
        }

        @inline(__always)
        func peekByte() throws(Damage) -> UInt8 {
            guard position < count, let base else { throw damage("the bytes end early") }
            return base.load(fromByteOffset: position, as: UInt8.self)
        }

        mutating func tag() throws(Damage) -> Tag {
            let raw = try byte()
            guard let tag = Tag(rawValue: raw) else { throw damage("unknown tag \(raw)", at: position - 1) }
            return tag
        }

        @inline(__always)
        mutating func int64() throws(Damage) -> Int64 {
            var zigzag: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = try byte()
                guard shift < 63 || (shift == 63 && b <= 1) else { throw damage("a number beyond 64 bits") }
                zigzag |= UInt64(b & 0x7F) << shift
                if b < 0x80 { break }
                shift += 7
            }
            return Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        }

        mutating func int() throws(Damage) -> Int {
            let value = try int64()
            guard let result = Int(exactly: value) else { throw damage("\(value) is out of range") }
            return result
        }

        /// A count or a length: not negative, and at most the bytes left
        /// (each counted thing takes a byte at least).
        @inline(__always)
        mutating func length() throws(Damage) -> Int {
            let start = position
            let value = try int64()
            guard value >= 0, value <= Int64(count - position) else { throw damage("a count of \(value) with \(count - position) bytes left", at: start) }
            return Int(value)
        }

        mutating func double() throws(Damage) -> Double {
            guard position + 8 <= count, let base else { throw damage("the bytes end early") }
            var bits: UInt64 = 0
            for k in 0 ..< 8 { bits |= UInt64(base.load(fromByteOffset: position + k, as: UInt8.self)) << (8 * UInt64(k)) }
            position += 8
            return Double(bitPattern: bits)
        }

        /// The UTF-8 bytes of a string (its length read), in place.
        @inline(__always)
        mutating func stringBytes() throws(Damage) -> UnsafeRawBufferPointer {
            let length = try length()
            defer { position += length }
            return UnsafeRawBufferPointer(start: base.map { $0 + position }, count: length)
        }

        mutating func string() throws(Damage) -> String {
            String(decoding: try stringBytes(), as: UTF8.self)
        }

        /// Whether the string at the reader (its length and UTF-8) is
        /// `string`; the reader moves past it either way.
        @inline(__always)
        mutating func readString(equalTo string: inout String) throws(Damage) -> Bool {
            let bytes = try stringBytes()
            return string.withUTF8 { utf8 in utf8.count == bytes.count && utf8.elementsEqual(bytes) }
        }

        /// Moves past the value at the reader.
        ///
        /// - Complexity: O(size of the value).
        mutating func skipValue(depth: Int = 0) throws(Damage) {
            // NB: nothing is appended to `keys` when they are not checked.
            var keys: [UnsafeRawBufferPointer] = []
            try walk(depth: depth, keys: &keys, checkingKeys: false)
        }

        /// Moves past the value at the reader, checking it is one a writer
        /// writes: known tags, counts that fit, and no key twice in an
        /// object. What `_BinaryEncoder` checks its streamed bytes with.
        ///
        /// - Complexity: O(size of the value), plus O(k²) key comparisons
        ///   for an object of k ≤ 16 fields, O(k) expected above.
        mutating func validateValue() throws(Damage) {
            // NB: one buffer of the keys of the objects being read, each
            // object's after its parent's: no allocation per object.
            var keys: [UnsafeRawBufferPointer] = []
            try walk(depth: 0, keys: &keys, checkingKeys: true)
        }

        private mutating func walk(depth: Int, keys: inout [UnsafeRawBufferPointer], checkingKeys: Bool) throws(Damage) {
            guard depth < _ValueBytes.maximumDepth else { throw damage("values nested deeper than \(_ValueBytes.maximumDepth)") }
            let start = position
            switch try tag() {
            case .null, .false, .true: return
            case .int: _ = try int64()
            case .double:
                guard position + 8 <= count else { throw damage("the bytes end early") }
                position += 8
            case .string: _ = try stringBytes()
            case .array:
                for _ in 0 ..< (try length()) { try walk(depth: depth + 1, keys: &keys, checkingKeys: checkingKeys) }
            case .object:
                let fields = try length()
                let base = keys.count
                var seen: Set<String> = []
                for _ in 0 ..< fields {
                    let key = try stringBytes()
                    if checkingKeys {
                        if fields <= 16 {
                            for k in base ..< keys.count where keys[k].elementsEqual(key) { throw damage("a key twice in an object", at: start) }
                            keys.append(key)
                        } else if !seen.insert(String(decoding: key, as: UTF8.self)).inserted {
                            throw damage("a key twice in an object", at: start)
                        }
                    }
                    try walk(depth: depth + 1, keys: &keys, checkingKeys: checkingKeys)
                }
                if keys.count > base { keys.removeSubrange(base...) }
            case let other: throw damage("tag \(other) where a value belongs", at: start)
            }
        }

        /// The value at the reader (`nil`: the tag `absent`).
        ///
        /// - Complexity: O(size of the value).
        mutating func value(depth: Int = 0) throws(Damage) -> PatchValue? {
            guard depth < _ValueBytes.maximumDepth else { throw damage("values nested deeper than \(_ValueBytes.maximumDepth)") }
            switch try tag() {
            case .absent: return nil
            case .null: return .null
            case .false: return .bool(false)
            case .true: return .bool(true)
            case .int: return .int(try int64())
            case .double: return .double(try double())
            case .string: return .string(try string())
            case .array:
                let count = try length()
                var elements: [PatchValue] = []
                elements.reserveCapacity(Swift.min(count, _ValueBytes.maximumReservation))
                for _ in 0 ..< count { elements.append(try presentValue(depth: depth + 1)) }
                return .array(elements)
            case .object:
                let count = try length()
                var fields: [String: PatchValue] = [:]
                fields.reserveCapacity(Swift.min(count, _ValueBytes.maximumReservation))
                for _ in 0 ..< count {
                    let keyStart = position
                    let key = try string()
                    guard fields.updateValue(try presentValue(depth: depth + 1), forKey: key) == nil else {
                        throw damage("the key '\(key)' twice in an object", at: keyStart)
                    }
                }
                return .object(fields)
            case let other: throw damage("tag \(other) where a value belongs", at: position - 1)
            }
        }

        /// A value that may not be absent.
        mutating func presentValue(depth: Int = 0) throws(Damage) -> PatchValue {
            let start = position
            guard let value = try value(depth: depth) else { throw damage("an absent value where one belongs", at: start) }
            return value
        }
    }
}
