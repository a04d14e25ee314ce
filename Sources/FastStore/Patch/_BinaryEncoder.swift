// An `Encoder` that writes a value straight into the binary value encoding
// (`_ValueBytes`), with no tree of the value between: what a saved file's
// snapshot holds.
//
// It streams: a container writes its tag and five bytes for its count when
// it is made, its values as they come, and its count once the value that
// made it has finished encoding (or once a container outside it is written
// to again). What cannot stream makes `encode(_:)` encode the value through
// its tree (`_PatchTree.of(_:lazy:)`) instead, which takes any order and
// keeps the last of a key written twice, as JSONEncoder does:
//
// - a container written to after its parent went on (`_OutOfOrder`);
// - a second single value, or a single value beside a container;
// - an error thrown inside a value, which its type may catch and go on
//   (`try?` around an element): the bytes already written for it cannot be
//   taken back;
// - bytes that do not read back as one value with no key twice in an
//   object (checked after streaming, `_ValueBytes.Reader.validateValue()`):
//   a key encoded twice (a subclass encoding its superclass's key again),
//   a `superEncoder()` handed out and never written to.

internal final class _BinaryEncoder {
    /// A container being written: where its count goes, and the count.
    private struct Open {
        let id: Int
        let countPosition: Int
        var count: Int
    }

    /// Thrown by a write to a container that is no longer open.
    struct _OutOfOrder: Error {}

    private(set) var bytes: [UInt8] = []
    private var open: [Open] = []
    private var nextID = 0
    /// Set when a write could not stream (see the file's notes): the bytes
    /// may not be the value.
    private var cannotStream = false

    func markOutOfOrder() { cannotStream = true }

    /// `value` in the binary value encoding.
    ///
    /// - Complexity: O(size of the value).
    /// - Throws: what the value's `encode(to:)` throws, and
    ///   `EncodingError.invalidValue` for an unsigned integer above
    ///   `Int64.max` (as a patch does).
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = _BinaryEncoder()
        do {
            try encoder.encodeValue(value, path: .root)
            encoder.closeAll(downTo: 0)
            if !encoder.cannotStream, Self.readsBack(encoder.bytes) { return encoder.bytes }
            throw _OutOfOrder()
        } catch is _OutOfOrder {
            var bytes: [UInt8] = []
            _ValueBytes.append(try _PatchTree.of(value, lazy: false).plain(), to: &bytes)
            return bytes
        }
    }

    /// Whether `bytes` read as exactly one value, with no key twice in an
    /// object.
    ///
    /// - Complexity: O(bytes).
    static func readsBack(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var reader = _ValueBytes.Reader(buffer)
            guard (try? reader.validateValue()) != nil else { return false }
            return reader.isAtEnd
        }
    }

    // MARK: Values

    /// Writes `value` at the end of the bytes.
    func encodeValue<T: Encodable>(_ value: T, path: _CodingPathLink) throws {
        if try encodeScalar(value) { return }
        let depth = open.count
        let start = bytes.count
        let encoder = _ValueEncoder(writer: self, path: path)
        do {
            try value.encode(to: encoder)
        } catch {
            // NB: the type may catch this and go on; what was written for
            // the value stays.
            markOutOfOrder()
            throw error
        }
        closeAll(downTo: depth)
        // NB: a value that made no container and wrote nothing is an empty
        // object, as JSONEncoder writes it.
        if bytes.count == start {
            bytes.append(_ValueBytes.Tag.object.rawValue)
            bytes.append(0)
        }
    }

    /// Writes `value` when it is a standard library scalar.
    @inline(__always)
    private func encodeScalar<T: Encodable>(_ value: T) throws -> Bool {
        if T.self == Int.self { writeInt(Int64(unsafeBitCast(value, to: Int.self))) }
        else if T.self == String.self { writeString(unsafeBitCast(value, to: String.self)) }
        else if T.self == Bool.self { writeBool(unsafeBitCast(value, to: Bool.self)) }
        else if T.self == Double.self { writeDouble(unsafeBitCast(value, to: Double.self)) }
        else if let scalar = try scalarOrMark(value) { _ValueBytes.append(scalar, to: &bytes) }
        else { return false }
        return true
    }

    /// `_PatchEncoder.scalar(_:)`, marking the bytes when it throws (a key
    /// may have been written for the value).
    private func scalarOrMark<T: Encodable>(_ value: T) throws -> PatchValue? {
        do {
            return try _PatchEncoder.scalar(value)
        } catch {
            markOutOfOrder()
            throw error
        }
    }

    @inline(__always) func writeNil() { bytes.append(_ValueBytes.Tag.null.rawValue) }
    @inline(__always) func writeBool(_ value: Bool) { bytes.append(value ? _ValueBytes.Tag.true.rawValue : _ValueBytes.Tag.false.rawValue) }
    @inline(__always) func writeInt(_ value: Int64) {
        bytes.append(_ValueBytes.Tag.int.rawValue)
        _ValueBytes.appendInt(value, to: &bytes)
    }
    @inline(__always) func writeDouble(_ value: Double) {
        bytes.append(_ValueBytes.Tag.double.rawValue)
        _ValueBytes.appendDouble(value, to: &bytes)
    }
    @inline(__always) func writeString(_ value: String) {
        bytes.append(_ValueBytes.Tag.string.rawValue)
        _ValueBytes.appendString(value, to: &bytes)
    }
    func writeUnsigned(_ value: UInt64) throws {
        guard let i = Int64(exactly: value) else {
            // NB: a key may have been written for it.
            markOutOfOrder()
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "\(value) exceeds Int64"))
        }
        writeInt(i)
    }

    // MARK: Containers

    /// Starts a container (`object` or `array`); returns its id.
    func openContainer(_ tag: _ValueBytes.Tag) -> Int {
        bytes.append(tag.rawValue)
        let position = _ValueBytes.reserveCount(in: &bytes)
        nextID += 1
        open.append(Open(id: nextID, countPosition: position, count: 0))
        return nextID
    }

    /// Makes container `id` the innermost open one (closing those inside
    /// it) and counts one more value in it, before that value is written.
    @inline(__always)
    func beginElement(of id: Int) throws {
        if open.last?.id != id {
            guard let index = open.lastIndex(where: { $0.id == id }) else {
                // NB: marked too, in case the type catches the error.
                markOutOfOrder()
                throw _OutOfOrder()
            }
            closeAll(downTo: index + 1)
        }
        open[open.count - 1].count += 1
    }

    /// Closes the containers above `depth`, writing their counts.
    func closeAll(downTo depth: Int) {
        while open.count > depth {
            let container = open.removeLast()
            _ValueBytes.fillCount(container.count, at: container.countPosition, in: &bytes)
        }
    }
}

/// The `Encoder` handed to one value's `encode(to:)`.
internal final class _ValueEncoder: Encoder, _CodingPathOwner {
    let writer: _BinaryEncoder
    let path: _CodingPathLink
    /// The container this value made (its id), once it made one.
    private var container: Int?
    private var containerIsObject = false
    /// Whether a single value was written for this value.
    private var wroteSingle = false

    /// Called before a single value is written: a second one, or one
    /// beside a container, cannot stream.
    func beginSingle() throws {
        guard container == nil, !wroteSingle else {
            writer.markOutOfOrder()
            throw _BinaryEncoder._OutOfOrder()
        }
        wroteSingle = true
    }

    init(writer: _BinaryEncoder, path: _CodingPathLink) {
        self.writer = writer
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func containerID(object: Bool) -> Int {
        if let container, containerIsObject == object { return container }
        // NB: a second container of another kind, or one after a single
        // value, cannot stream: the value is encoded through its tree.
        if container != nil || wroteSingle { writer.markOutOfOrder() }
        let id = writer.openContainer(object ? .object : .array)
        container = id
        containerIsObject = object
        return id
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(_Keyed<Key>(encoder: self, id: containerID(object: true)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        _Unkeyed(encoder: self, id: containerID(object: false))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { _Single(encoder: self) }

    func child(_ key: some CodingKey) -> _CodingPathLink { _CodingPathLink(parent: self, key: key) }
    func child(index: Int) -> _CodingPathLink { _CodingPathLink(parent: self, index: index) }

    struct _Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: _ValueEncoder
        let id: Int
        var codingPath: [any CodingKey] { encoder.codingPath }
        var writer: _BinaryEncoder { encoder.writer }

        @inline(__always)
        private func begin(_ key: Key) throws {
            try writer.beginElement(of: id)
            writer.writeKey(key.stringValue)
        }

        mutating func encodeNil(forKey key: Key) throws { try begin(key); writer.writeNil() }
        mutating func encode(_ value: Bool, forKey key: Key) throws { try begin(key); writer.writeBool(value) }
        mutating func encode(_ value: String, forKey key: Key) throws { try begin(key); writer.writeString(value) }
        mutating func encode(_ value: Double, forKey key: Key) throws { try begin(key); writer.writeDouble(value) }
        mutating func encode(_ value: Float, forKey key: Key) throws { try begin(key); writer.writeDouble(Double(value)) }
        mutating func encode(_ value: Int, forKey key: Key) throws { try begin(key); writer.writeInt(Int64(value)) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try begin(key); writer.writeInt(Int64(value)) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try begin(key); writer.writeInt(Int64(value)) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try begin(key); writer.writeInt(Int64(value)) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try begin(key); writer.writeInt(value) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { try begin(key); try writer.writeUnsigned(UInt64(value)) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try begin(key); writer.writeInt(Int64(value)) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try begin(key); writer.writeInt(Int64(value)) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try begin(key); writer.writeInt(Int64(value)) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { try begin(key); try writer.writeUnsigned(value) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try begin(key)
            try writer.encodeValue(value, path: encoder.child(key))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            nested(key).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            nested(key).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { nested(_PatchEncoder._Key(stringValue: "super")) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { nested(key) }

        /// An encoder for a value at `key`, written where it stands now.
        ///
        /// NB: these methods cannot throw; a container no longer open is
        /// reported by its next write (`_OutOfOrder`), and the whole value
        /// is then encoded through its tree.
        private func nested(_ key: some CodingKey) -> _ValueEncoder {
            if (try? writer.beginElement(of: id)) != nil {
                writer.writeKey(key.stringValue)
            } else {
                writer.markOutOfOrder()
            }
            return _ValueEncoder(writer: writer, path: encoder.child(key))
        }
    }

    struct _Unkeyed: UnkeyedEncodingContainer {
        let encoder: _ValueEncoder
        let id: Int
        private(set) var count = 0

        init(encoder: _ValueEncoder, id: Int) {
            self.encoder = encoder
            self.id = id
        }

        var codingPath: [any CodingKey] { encoder.codingPath }
        var writer: _BinaryEncoder { encoder.writer }

        @inline(__always)
        private mutating func begin() throws {
            try writer.beginElement(of: id)
            count += 1
        }

        mutating func encodeNil() throws { try begin(); writer.writeNil() }
        mutating func encode(_ value: Bool) throws { try begin(); writer.writeBool(value) }
        mutating func encode(_ value: String) throws { try begin(); writer.writeString(value) }
        mutating func encode(_ value: Double) throws { try begin(); writer.writeDouble(value) }
        mutating func encode(_ value: Float) throws { try begin(); writer.writeDouble(Double(value)) }
        mutating func encode(_ value: Int) throws { try begin(); writer.writeInt(Int64(value)) }
        mutating func encode(_ value: Int64) throws { try begin(); writer.writeInt(value) }
        mutating func encode(_ value: UInt8) throws { try begin(); writer.writeInt(Int64(value)) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let index = count
            try begin()
            try writer.encodeValue(value, path: encoder.child(index: index))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            nested().container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { nested().unkeyedContainer() }

        mutating func superEncoder() -> any Encoder { nested() }

        private mutating func nested() -> _ValueEncoder {
            let index = count
            if (try? begin()) == nil { writer.markOutOfOrder() }
            return _ValueEncoder(writer: writer, path: encoder.child(index: index))
        }
    }

    struct _Single: SingleValueEncodingContainer {
        let encoder: _ValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        var writer: _BinaryEncoder { encoder.writer }

        mutating func encodeNil() throws { try encoder.beginSingle(); writer.writeNil() }
        mutating func encode(_ value: Bool) throws { try encoder.beginSingle(); writer.writeBool(value) }
        mutating func encode(_ value: String) throws { try encoder.beginSingle(); writer.writeString(value) }
        mutating func encode(_ value: Double) throws { try encoder.beginSingle(); writer.writeDouble(value) }
        mutating func encode(_ value: Int) throws { try encoder.beginSingle(); writer.writeInt(Int64(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try encoder.beginSingle()
            try writer.encodeValue(value, path: encoder.path)
        }
    }
}

extension _BinaryEncoder {
    @inline(__always) func writeKey(_ key: String) { _ValueBytes.appendString(key, to: &bytes) }
}
