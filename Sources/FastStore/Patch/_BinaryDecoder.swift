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

/// The bytes being decoded, owned (a copy), so that a decoder a value
/// kept stays valid.
internal final class _BinaryInput {
    private let storage: UnsafeMutableRawPointer
    let buffer: UnsafeRawBufferPointer

    init(copying bytes: UnsafeRawBufferPointer) {
        storage = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
        if let source = bytes.baseAddress, bytes.count > 0 { storage.copyMemory(from: source, byteCount: bytes.count) }
        buffer = UnsafeRawBufferPointer(start: storage, count: bytes.count)
    }

    deinit { storage.deallocate() }

    func reader(at position: Int) -> _ValueBytes.Reader { _ValueBytes.Reader(buffer, position: position) }
}

internal enum _BinaryDecoding {
    /// The value of type `T` in `bytes` (the whole of them).
    ///
    /// - Complexity: O(size of the value).
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        let input = _BinaryInput(copying: bytes)
        let (value, end) = try _ValueDecoder.decode(T.self, input: input, at: 0, depth: 0, path: .root)
        guard end == bytes.count else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "\(bytes.count - end) bytes after the value, at byte \(end)"))
        }
        return value
    }
}

/// The `Decoder` handed to one value's `init(from:)`.
internal final class _ValueDecoder: Decoder {
    let input: _BinaryInput
    /// Where the value's tag is.
    let start: Int
    let depth: Int
    let pathNode: _CodingPathNode

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

    init(input: _BinaryInput, start: Int, depth: Int, path: _CodingPathNode) {
        self.input = input
        self.start = start
        self.depth = depth
        self.pathNode = path
    }

    var codingPath: [any CodingKey] { pathNode.path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    // MARK: Values

    /// The value of type `T` at `position`, and where it ends.
    static func decode<T: Decodable>(
        _ type: T.Type, input: _BinaryInput, at position: Int, depth: Int, path: @autoclosure () -> _CodingPathNode
    ) throws -> (T, Int) {
        var reader = input.reader(at: position)
        if let scalar = try scalar(T.self, &reader, path) { return (scalar, reader.position) }
        guard depth < _ValueBytes.maximumDepth else {
            throw corrupted(path(), "values nested deeper than \(_ValueBytes.maximumDepth)", at: position)
        }
        let decoder = _ValueDecoder(input: input, start: position, depth: depth + 1, path: path())
        let value = try T(from: decoder)
        return (value, try decoder.end())
    }

    /// Where this value ends.
    func end() throws -> Int {
        if let knownEnd { return knownEnd }
        var reader = input.reader(at: start)
        do { try reader.skipValue(depth: depth) } catch { throw Self.corrupted(pathNode, error) }
        knownEnd = reader.position
        return reader.position
    }

    static func corrupted(_ path: _CodingPathNode, _ reason: String, at position: Int) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: path.path, debugDescription: "\(reason), at byte \(position)"))
    }

    static func corrupted(_ path: _CodingPathNode, _ damage: _ValueBytes.Damage) -> DecodingError {
        corrupted(path, damage.reason, at: damage.position)
    }

    static func mismatch(_ type: Any.Type, _ path: @autoclosure () -> _CodingPathNode, found tag: UInt8, at position: Int) -> DecodingError {
        let found = _ValueBytes.Tag(rawValue: tag).map { "\($0)" } ?? "tag \(tag)"
        return DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: path().path, debugDescription: "expected \(type), found \(found) at byte \(position)"))
    }

    /// `T` read at the reader when it is a standard library scalar; `nil`
    /// (the reader unmoved) otherwise.
    @inline(__always)
    static func scalar<T>(_ type: T.Type, _ reader: inout _ValueBytes.Reader, _ path: () -> _CodingPathNode) throws -> T? {
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self, &reader, path), to: T.self) }
        if T.self == String.self { return unsafeBitCast(try string(&reader, path), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try bool(&reader, path), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try double(&reader, path), to: T.self) }
        switch type {
        case is Float.Type: return Float(try double(&reader, path)) as? T
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
    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ reader: inout _ValueBytes.Reader, _ path: () -> _CodingPathNode) throws -> I {
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
                    codingPath: path().path, debugDescription: "the number at byte \(start) does not fit in \(I.self)"))
            }
            return result
        } catch let damage as _ValueBytes.Damage {
            throw corrupted(path(), damage)
        }
    }

    @inline(__always)
    static func string(_ reader: inout _ValueBytes.Reader, _ path: () -> _CodingPathNode) throws -> String {
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
    static func bool(_ reader: inout _ValueBytes.Reader, _ path: () -> _CodingPathNode) throws -> Bool {
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

    static func double(_ reader: inout _ValueBytes.Reader, _ path: () -> _CodingPathNode) throws -> Double {
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
                guard tag == _ValueBytes.Tag.object.rawValue else { throw Self.mismatch([String: Any].self, pathNode, found: tag, at: start) }
                fieldCount = try reader.length()
            } catch let damage as _ValueBytes.Damage {
                throw Self.corrupted(pathNode, damage)
            }
            scanned = true
            fieldsStart = reader.position
            cursorPosition = reader.position
            if fieldCount == 0 { knownEnd = reader.position }
        }
        return KeyedDecodingContainer(_Keyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        var reader = input.reader(at: start)
        let count: Int
        do {
            let tag = try reader.byte()
            guard tag == _ValueBytes.Tag.array.rawValue else { throw Self.mismatch([Any].self, pathNode, found: tag, at: start) }
            count = try reader.length()
        } catch let damage as _ValueBytes.Damage {
            throw Self.corrupted(pathNode, damage)
        }
        return _Unkeyed(decoder: self, count: count, position: reader.position)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { _Single(decoder: self) }

    /// Records that the whole value was read up to `end`.
    func finished(at end: Int) { knownEnd = end }

    /// Where the value of the field `key` starts (past its key), or `nil`.
    /// Tries the next field in written order first; `advance` moves that
    /// order past the field found there.
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
            var reader = input.reader(at: fieldsStart)
            for _ in 0 ..< fieldCount {
                if try reader.readString(equalTo: &name) { return reader.position }
                try reader.skipValue(depth: depth)
            }
            return nil
        } catch {
            throw Self.corrupted(pathNode, error)
        }
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

        private func position(of key: Key, advance: Bool) throws -> Int {
            guard let position = try decoder.field(key, advance: advance) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no value for the key '\(key.stringValue)'"))
            }
            return position
        }

        private func child(_ key: Key) -> _CodingPathNode { _CodingPathNode(parent: decoder.pathNode, key: _AnyCodingKey(key)) }

        func decodeNil(forKey key: Key) throws -> Bool {
            let position = try position(of: key, advance: false)
            var reader = decoder.input.reader(at: position)
            guard (try? reader.byte()) == _ValueBytes.Tag.null.rawValue else { return false }
            _ = try decoder.field(key, advance: true)
            decoder.advanceCursor(to: reader.position)
            return true
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let position = try position(of: key, advance: true)
            let (value, end) = try _ValueDecoder.decode(T.self, input: decoder.input, at: position, depth: decoder.depth, path: child(key))
            decoder.advanceCursor(to: end)
            return value
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
            return _ValueDecoder(input: decoder.input, start: position, depth: decoder.depth + 1,
                                 path: _CodingPathNode(parent: decoder.pathNode, key: key))
        }

        func superDecoder(forKey key: Key) throws -> any Decoder { try nested(key) }

        /// A decoder for the value at `key`, which the caller reads as it
        /// likes (the cursor does not move past it).
        private func nested(_ key: Key) throws -> _ValueDecoder {
            guard decoder.depth < _ValueBytes.maximumDepth else {
                throw _ValueDecoder.corrupted(decoder.pathNode, "values nested deeper than \(_ValueBytes.maximumDepth)", at: decoder.start)
            }
            return _ValueDecoder(input: decoder.input, start: try position(of: key, advance: false), depth: decoder.depth + 1, path: child(key))
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

        private func child(_ index: Int) -> _CodingPathNode {
            _CodingPathNode(parent: decoder.pathNode, key: _AnyCodingKey(intValue: index))
        }

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
            let index = currentIndex
            let (value, end) = try _ValueDecoder.decode(T.self, input: decoder.input, at: position, depth: decoder.depth, path: child(index))
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
                throw _ValueDecoder.corrupted(decoder.pathNode, "values nested deeper than \(_ValueBytes.maximumDepth)", at: position)
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
            let (value, end) = try _ValueDecoder.decode(T.self, input: decoder.input, at: decoder.start, depth: decoder.depth, path: decoder.pathNode)
            decoder.finished(at: end)
            return value
        }
    }
}
