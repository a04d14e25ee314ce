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

/// The `Decoder` handed to one value's `init(from:)`.
internal final class _ValueDecoder: Decoder, _CodingPathOwner {
    let input: _BinaryInput
    /// Where the value's tag is.
    let start: Int
    let depth: Int
    let path: _CodingPathLink

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

    init(input: _BinaryInput, start: Int, depth: Int, path: _CodingPathLink) {
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
        _ type: T.Type, input: _BinaryInput, at position: Int, end: inout Int, depth: Int, path: @autoclosure () -> _CodingPathLink
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
                                            path: _CodingPathLink(parent: self, index: index)))
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

    /// The keys of this object's fields, in written order (those before
    /// bytes that do not read, if any).
    func fieldNames() -> [String] {
        var names: [String] = []
        var reader = input.reader(at: fieldsStart)
        for _ in 0 ..< fieldCount {
            guard let name = try? reader.string(), (try? reader.skipValue(depth: depth)) != nil else { break }
            names.append(name)
        }
        return names
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
}
