// `_ValueDecoder`'s containers: an object's fields through the decoder's
// written-order cursor, an array's elements in turn, a single value.

extension _ValueDecoder {
    struct _Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: _ValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        var allKeys: [Key] { decoder.fieldNames().compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { (try? decoder.field(key, advance: false)) != nil }

        @inline(__always)
        private func position(of key: Key, advance: Bool) throws -> Int {
            guard let position = try decoder.field(key, advance: advance) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no value for the key '\(key.stringValue)'"))
            }
            return position
        }

        private func child(_ key: Key) -> _CodingPathLink { _CodingPathLink(parent: decoder, key: key) }

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
            let key = _PatchEncoder._Key(stringValue: "super")
            guard let position = try decoder.field(key, advance: false) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no value for the key 'super'"))
            }
            return try nested(at: position, _CodingPathLink(parent: decoder, key: key))
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

        private func nested(at position: Int, _ path: _CodingPathLink) throws -> _ValueDecoder {
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

        private func child(_ index: Int) -> _CodingPathLink { _CodingPathLink(parent: decoder, index: index) }

        private func requireMore() throws {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, DecodingError.Context(
                    codingPath: codingPath + [_PatchEncoder._Key(intValue: currentIndex)], debugDescription: "the array has \(total) elements"))
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
