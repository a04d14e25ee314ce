// A `Decoder` that reads a value straight from the binary value encoding
// (`_ValueBytes`), with no tree of the value between: how a saved file's
// snapshot opens.
//
// Each value is read where it lies. An object's fields are looked up by
// key; they are tried first in the order they were written, which is the
// order a type's `Codable` conformance reads them, so a field costs one
// key comparison, not a search. Every length, count and tag is checked:
// bytes that are not a value throw `DecodingError.dataCorrupted` naming
// the coding path and the byte, never trap.

/// The bytes being decoded, lent for the decoding only: once it ends they
/// are withdrawn (`withdraw()`), so that a decoder a value kept reads no
/// bytes (it throws as at their end) rather than memory no longer lent.
internal final class _BinaryInput {
    private(set) var buffer: UnsafeRawBufferPointer

    init(lending bytes: UnsafeRawBufferPointer) {
        buffer = bytes
    }

    func withdraw() { buffer = UnsafeRawBufferPointer(start: nil, count: 0) }

    @inline(__always)
    func reader(at position: Int) -> _ValueBytes.Reader { _ValueBytes.Reader(buffer, position: position) }
}

internal enum _BinaryDecoding {
    /// The value of type `T` in `bytes` (the whole of them).
    ///
    /// - Complexity: O(size of the value).
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        let input = _BinaryInput(lending: bytes)
        defer { input.withdraw() }
        var end = 0
        let value = try _ValueDecoder.decode(T.self, input: input, at: 0, end: &end, depth: 0, path: .root)
        guard end == bytes.count else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "\(bytes.count - end) bytes after the value, at byte \(end)"))
        }
        return value
    }
}

/// Where a value stands: its parent's decoder, and its key or position
/// there. The coding path is built from it only when asked for (an error,
/// a value's `codingPath`), so that decoding a value allocates no path.
internal struct _DecodingPath {
    let parent: _ValueDecoder?
    let key: (any CodingKey)?
    /// The position in an unkeyed container, or -1.
    let index: Int

    static var root: _DecodingPath { _DecodingPath(parent: nil, key: nil, index: -1) }

    var codingPath: [any CodingKey] {
        var path = parent?.codingPath ?? []
        if let key { path.append(key) } else if index >= 0 { path.append(_AnyCodingKey(intValue: index)) }
        return path
    }
}

/// The `Decoder` handed to one value's `init(from:)`.
internal final class _ValueDecoder: Decoder {
    let input: _BinaryInput
    /// Where the value's tag is.
    let start: Int
    let depth: Int
    let path: _DecodingPath

    // An object's fields: where they start, how many, and the next one in
    // written order (`cursorPosition` its key).
    private var fieldsStart = 0
    private var fieldCount = 0
    private var cursorIndex = 0
    private var cursorPosition = 0
    /// Whether the cursor's field was handed out and the cursor waits for
    /// where its value ends (`advanceCursor(to:)`).
    private var cursorWaits = false
    private var scanned = false
    /// Where the value ends, once known.
    private var knownEnd: Int?

    init(input: _BinaryInput, start: Int, depth: Int, path: _DecodingPath) {
        self.input = input
        self.start = start
        self.depth = depth
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    // MARK: Values

    /// The value of type `T` at `position`; `end` is set to where it ends.
    @inline(__always)
    static func decode<T: Decodable>(
        _ type: T.Type, input: _BinaryInput, at position: Int, end: inout Int, depth: Int, path: @autoclosure () -> _DecodingPath
    ) throws -> T {
        var reader = input.reader(at: position)
        if let scalar = try scalar(T.self, &reader, { path().codingPath }) {
            end = reader.position
            return scalar
        }
        guard depth < _ValueBytes.maximumDepth else {
            throw corrupted(path().codingPath, "values nested deeper than \(_ValueBytes.maximumDepth)", at: position)
        }
        let decoder = _ValueDecoder(input: input, start: position, depth: depth + 1, path: path())
        let value = try T(from: decoder)
        end = try decoder.end()
        return value
    }

    /// Where this value ends.
    func end() throws -> Int {
        if let knownEnd { return knownEnd }
        var reader = input.reader(at: start)
        do { try reader.skipValue(depth: depth) } catch { throw Self.corrupted(codingPath, error) }
        knownEnd = reader.position
        return reader.position
    }

    static func corrupted(_ path: [any CodingKey], _ reason: String, at position: Int) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: "\(reason), at byte \(position)"))
    }

    static func corrupted(_ path: [any CodingKey], _ damage: _ValueBytes.Damage) -> DecodingError {
        corrupted(path, damage.reason, at: damage.position)
    }

    static func mismatch(_ type: Any.Type, _ path: [any CodingKey], found tag: UInt8, at position: Int) -> DecodingError {
        let found = _ValueBytes.Tag(rawValue: tag).map { "\($0)" } ?? "tag \(tag)"
        return DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: path, debugDescription: "expected \(type), found \(found) at byte \(position)"))
    }

    /// `T` read at the reader when it is a standard library scalar; `nil`
    /// (the reader unmoved) otherwise.
    @inline(__always)
    static func scalar<T>(_ type: T.Type, _ reader: inout _ValueBytes.Reader, _ path: () -> [any CodingKey]) throws -> T? {
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self, &reader, path), to: T.self) }
        if T.self == String.self { return unsafeBitCast(try string(&reader, path), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try bool(&reader, path), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try double(&reader, path), to: T.self) }
        if !_PatchDecoder.isScalar(T.self) { return nil }
        switch type {
        case is Float.Type:
            let start = reader.position
            let value = try double(&reader, path)
            let float = Float(value)
            guard float.isFinite || !value.isFinite else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: path(), debugDescription: "the number at byte \(start) does not fit in Float"))
            }
            return float as? T
        case is Int8.Type: return try integer(Int8.self, &reader, path) as? T
        case is Int16.Type: return try integer(Int16.self, &reader, path) as? T
        case is Int32.Type: return try integer(Int32.self, &reader, path) as? T
        case is Int64.Type: return try integer(Int64.self, &reader, path) as? T
        case is UInt.Type: return try integer(UInt.self, &reader, path) as? T
        case is UInt8.Type: return try integer(UInt8.self, &reader, path) as? T
        case is UInt16.Type: return try integer(UInt16.self, &reader, path) as? T
        case is UInt32.Type: return try integer(UInt32.self, &reader, path) as? T
        case is UInt64.Type: return try integer(UInt64.self, &reader, path) as? T
        default: return nil
        }
    }

    @inline(__always)
    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ reader: inout _ValueBytes.Reader, _ path: () -> [any CodingKey]) throws -> I {
        let start = reader.position
        do {
            let tag = try reader.byte()
            let result: I?
            switch tag {
            case _ValueBytes.Tag.int.rawValue: result = I(exactly: try reader.int64())
            case _ValueBytes.Tag.double.rawValue: result = I(exactly: try reader.double())
            default: throw mismatch(I.self, path(), found: tag, at: start)
            }
            guard let result else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: path(), debugDescription: "the number at byte \(start) does not fit in \(I.self)"))
            }
            return result
        } catch let damage as _ValueBytes.Damage {
            throw corrupted(path(), damage)
        }
    }

    @inline(__always)
    static func string(_ reader: inout _ValueBytes.Reader, _ path: () -> [any CodingKey]) throws -> String {
        let start = reader.position
        do {
            let tag = try reader.byte()
            guard tag == _ValueBytes.Tag.string.rawValue else { throw mismatch(String.self, path(), found: tag, at: start) }
            return try reader.string()
        } catch let damage as _ValueBytes.Damage {
            throw corrupted(path(), damage)
        }
    }

    @inline(__always)
    static func bool(_ reader: inout _ValueBytes.Reader, _ path: () -> [any CodingKey]) throws -> Bool {
        let start = reader.position
        do {
            let tag = try reader.byte()
            switch tag {
            case _ValueBytes.Tag.true.rawValue: return true
            case _ValueBytes.Tag.false.rawValue: return false
            default: throw mismatch(Bool.self, path(), found: tag, at: start)
            }
        } catch let damage as _ValueBytes.Damage {
            throw corrupted(path(), damage)
        }
    }

    static func double(_ reader: inout _ValueBytes.Reader, _ path: () -> [any CodingKey]) throws -> Double {
        let start = reader.position
        do {
            let tag = try reader.byte()
            switch tag {
            case _ValueBytes.Tag.double.rawValue: return try reader.double()
            case _ValueBytes.Tag.int.rawValue: return Double(try reader.int64())
            default: throw mismatch(Double.self, path(), found: tag, at: start)
            }
        } catch let damage as _ValueBytes.Damage {
            throw corrupted(path(), damage)
        }
    }

    // MARK: Containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if !scanned {
            var reader = input.reader(at: start)
            do {
                let tag = try reader.byte()
                guard tag == _ValueBytes.Tag.object.rawValue else { throw Self.mismatch([String: Any].self, codingPath, found: tag, at: start) }
                fieldCount = try reader.length()
            } catch let damage as _ValueBytes.Damage {
                throw Self.corrupted(codingPath, damage)
            }
            scanned = true
            fieldsStart = reader.position
            cursorPosition = reader.position
            if fieldCount == 0 { knownEnd = reader.position }
        }
        return KeyedDecodingContainer(_Keyed<Key>(decoder: self))
    }

    /// The count of the array this value is, and where its first element
    /// starts.
    func arrayHeader() throws -> (count: Int, position: Int) {
        var reader = input.reader(at: start)
        do {
            let tag = try reader.byte()
            guard tag == _ValueBytes.Tag.array.rawValue else { throw Self.mismatch([Any].self, codingPath, found: tag, at: start) }
            return (try reader.length(), reader.position)
        } catch let damage as _ValueBytes.Damage {
            throw Self.corrupted(codingPath, damage)
        }
    }

    /// The elements of the array this value is, read in place into an
    /// array of their count (what `[T](from:)` does through an unkeyed
    /// container, without growing the array or a container's calls).
    ///
    /// - Complexity: O(size of the value).
    func decodeArray<T: Decodable>(of type: T.Type) throws -> [T] {
        let (count, first) = try arrayHeader()
        var elements: [T] = []
        // NB: a count is checked against the bytes left, not against the
        // elements' size: the reservation is capped (damage could ask for
        // more memory than exists).
        elements.reserveCapacity(Swift.min(count, _ValueBytes.maximumReservation))
        var position = first
        for index in 0 ..< count {
            var end = 0
            elements.append(try Self.decode(T.self, input: input, at: position, end: &end, depth: depth,
                                            path: _DecodingPath(parent: self, key: nil, index: index)))
            position = end
        }
        finished(at: position)
        return elements
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (count, position) = try arrayHeader()
        return _Unkeyed(decoder: self, count: count, position: position)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { _Single(decoder: self) }

    /// Records that the whole value was read up to `end`.
    func finished(at end: Int) { knownEnd = end }

    /// Where the value of the field `key` starts (past its key), or `nil`.
    /// Tries the next field in written order first; `advance` moves that
    /// order past the field found there.
    @inline(__always)
    func field(_ key: some CodingKey, advance: Bool) throws -> Int? {
        var name = key.stringValue
        do {
            if cursorIndex < fieldCount, !cursorWaits {
                var reader = input.reader(at: cursorPosition)
                if try reader.readString(equalTo: &name) {
                    if advance {
                        // NB: the cursor moves past the value when it is decoded
                        // (`advanceCursor(to:)`), which knows where it ends.
                        cursorIndex += 1
                        cursorWaits = true
                    }
                    return reader.position
                }
            }
            return try search(&name)
        } catch {
            throw Self.corrupted(codingPath, error)
        }
    }

    /// The field `name` found by reading every key.
    private func search(_ name: inout String) throws(_ValueBytes.Damage) -> Int? {
        var reader = input.reader(at: fieldsStart)
        for _ in 0 ..< fieldCount {
            if try reader.readString(equalTo: &name) { return reader.position }
            try reader.skipValue(depth: depth)
        }
        return nil
    }

    /// Gives the cursor's field back after its value failed to decode (a
    /// type may catch the error and go on): the cursor stays at that field.
    @inline(__always)
    func cancelCursor() {
        guard cursorWaits else { return }
        cursorWaits = false
        cursorIndex -= 1
    }

    /// Moves the written-order cursor past a value found there, which ends
    /// at `end`.
    @inline(__always)
    func advanceCursor(to end: Int) {
        guard cursorWaits else { return }
        cursorWaits = false
        cursorPosition = end
        if cursorIndex == fieldCount { knownEnd = end }
    }

    struct _Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: _ValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        var allKeys: [Key] {
            var keys: [Key] = []
            var reader = decoder.input.reader(at: decoder.fieldsStart)
            for _ in 0 ..< decoder.fieldCount {
                guard let name = try? reader.string(), (try? reader.skipValue(depth: decoder.depth)) != nil else { break }
                if let key = Key(stringValue: name) { keys.append(key) }
            }
            return keys
        }

        func contains(_ key: Key) -> Bool { (try? decoder.field(key, advance: false)) != nil }

        @inline(__always)
        private func position(of key: Key, advance: Bool) throws -> Int {
            guard let position = try decoder.field(key, advance: advance) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no value for the key '\(key.stringValue)'"))
            }
            return position
        }

        private func child(_ key: Key) -> _DecodingPath { _DecodingPath(parent: decoder, key: key, index: -1) }

        /// A scalar field, read in place.
        @inline(__always)
        private func scalar<R>(_ key: Key, _ read: (inout _ValueBytes.Reader, () -> [any CodingKey]) throws -> R) throws -> R {
            var reader = decoder.input.reader(at: try position(of: key, advance: true))
            do {
                let value = try read(&reader) { self.codingPath + [key] }
                decoder.advanceCursor(to: reader.position)
                return value
            } catch {
                decoder.cancelCursor()
                throw error
            }
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            let position = try position(of: key, advance: false)
            var reader = decoder.input.reader(at: position)
            guard (try? reader.byte()) == _ValueBytes.Tag.null.rawValue else { return false }
            _ = try decoder.field(key, advance: true)
            decoder.advanceCursor(to: reader.position)
            return true
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(key) { try _ValueDecoder.bool(&$0, $1) } }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(key) { try _ValueDecoder.string(&$0, $1) } }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(key) { try _ValueDecoder.double(&$0, $1) } }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(key) { try _ValueDecoder.integer(Int.self, &$0, $1) } }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(key) { try _ValueDecoder.integer(Int64.self, &$0, $1) } }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let position = try position(of: key, advance: true)
            var end = 0
            do {
                let value = try _ValueDecoder.decode(T.self, input: decoder.input, at: position, end: &end, depth: decoder.depth, path: child(key))
                decoder.advanceCursor(to: end)
                return value
            } catch {
                decoder.cancelCursor()
                throw error
            }
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try nested(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try nested(key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            let key = _AnyCodingKey(stringValue: "super")
            guard let position = try decoder.field(key, advance: false) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no value for the key 'super'"))
            }
            return try nested(at: position, _DecodingPath(parent: decoder, key: key, index: -1))
        }

        func superDecoder(forKey key: Key) throws -> any Decoder { try nested(key) }

        /// A decoder for the value at `key`, which the caller reads as it
        /// likes; the cursor moves past it (found by skipping it), so that
        /// fields read this way in written order cost no search.
        private func nested(_ key: Key) throws -> _ValueDecoder {
            let position = try position(of: key, advance: true)
            var reader = decoder.input.reader(at: position)
            do {
                try reader.skipValue(depth: decoder.depth)
            } catch {
                decoder.cancelCursor()
                throw _ValueDecoder.corrupted(codingPath + [key], error)
            }
            decoder.advanceCursor(to: reader.position)
            let nested = try nested(at: position, child(key))
            nested.finished(at: reader.position)
            return nested
        }

        private func nested(at position: Int, _ path: _DecodingPath) throws -> _ValueDecoder {
            guard decoder.depth < _ValueBytes.maximumDepth else {
                throw _ValueDecoder.corrupted(path.codingPath, "values nested deeper than \(_ValueBytes.maximumDepth)", at: position)
            }
            return _ValueDecoder(input: decoder.input, start: position, depth: decoder.depth + 1, path: path)
        }
    }

    struct _Unkeyed: UnkeyedDecodingContainer {
        let decoder: _ValueDecoder
        let total: Int
        var position: Int
        private(set) var currentIndex = 0

        init(decoder: _ValueDecoder, count: Int, position: Int) {
            self.decoder = decoder
            self.total = count
            self.position = position
            if count == 0 { decoder.finished(at: position) }
        }

        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { total }
        var isAtEnd: Bool { currentIndex >= total }

        private func child(_ index: Int) -> _DecodingPath { _DecodingPath(parent: decoder, key: nil, index: index) }

        private func requireMore() throws {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, DecodingError.Context(
                    codingPath: codingPath + [_AnyCodingKey(intValue: currentIndex)], debugDescription: "the array has \(total) elements"))
            }
        }

        private mutating func moved(to end: Int) {
            position = end
            currentIndex += 1
            if currentIndex == total { decoder.finished(at: end) }
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { return false }
            var reader = decoder.input.reader(at: position)
            guard (try? reader.byte()) == _ValueBytes.Tag.null.rawValue else { return false }
            moved(to: reader.position)
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try requireMore()
            var end = 0
            let value = try _ValueDecoder.decode(T.self, input: decoder.input, at: position, end: &end, depth: decoder.depth, path: child(currentIndex))
            moved(to: end)
            return value
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

        mutating func superDecoder() throws -> any Decoder { try next() }

        /// A decoder for the next element; the container moves past it.
        private mutating func next() throws -> _ValueDecoder {
            try requireMore()
            guard decoder.depth < _ValueBytes.maximumDepth else {
                throw _ValueDecoder.corrupted(child(currentIndex).codingPath, "values nested deeper than \(_ValueBytes.maximumDepth)", at: position)
            }
            let element = _ValueDecoder(input: decoder.input, start: position, depth: decoder.depth + 1, path: child(currentIndex))
            moved(to: try element.end())
            return element
        }
    }

    struct _Single: SingleValueDecodingContainer {
        let decoder: _ValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool {
            var reader = decoder.input.reader(at: decoder.start)
            guard (try? reader.byte()) == _ValueBytes.Tag.null.rawValue else { return false }
            decoder.finished(at: reader.position)
            return true
        }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            var end = 0
            let value = try _ValueDecoder.decode(T.self, input: decoder.input, at: decoder.start, end: &end, depth: decoder.depth, path: decoder.path)
            decoder.finished(at: end)
            return value
        }
    }
}
