import Foundation

/// Reads and validates profiles.
public enum ProfileLoader {
    /// Largest entity count a profile may ask for.
    public static let maxEntities = 10_000_000
    /// Largest tree a profile may ask for, in nodes.
    public static let maxTreeNodes = 2_000_000
    /// Largest number of consumers a profile may ask for.
    public static let maxConsumers = 1_000_000

    /// Loads and validates the profile at `url`.
    public static func load(_ url: URL) throws(ProfileError) -> ProfileSpec {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ProfileError(file: url.path, field: "", expected: "a readable JSON file", found: "\(error.localizedDescription)")
        }
        return try parse(data, file: url.path)
    }

    /// Decodes and validates a profile from JSON `data`; `file` names it in errors.
    public static func parse(_ data: Data, file: String) throws(ProfileError) -> ProfileSpec {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            // NB: the debug description says where ("Number 1E400 is not
            // representable"); the localized one only that something is wrong.
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
            throw ProfileError(file: file, field: "", expected: "valid JSON", found: "a syntax error (\(detail))")
        }
        guard object is [String: Any] else {
            throw ProfileError(file: file, field: "", expected: "a JSON object", found: describe(object))
        }
        try checkKeys(object, path: "", file: file)
        try checkIntegers(object, path: "", file: file)
        let raw: RawProfile
        do { raw = try JSONDecoder().decode(RawProfile.self, from: data) } catch let error as DecodingError {
            throw translate(error, file: file)
        } catch {
            throw ProfileError(file: file, field: "", expected: "a profile", found: "\(error)")
        }
        return try validate(raw, file: file)
    }

    static func describe(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: return "null"
        case let n as NSNumber: return "the value \(n)"
        case let s as String: return "the string \"\(s)\""
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "\(value!)"
        }
    }

    static func checkKeys(_ value: Any, path: String, file: String) throws(ProfileError) {
        if let dict = value as? [String: Any] {
            let template = path.replacingOccurrences(of: #"\[\d+\]"#, with: "[]", options: .regularExpression)
            if let allowed = RawProfile.allowedKeys[template] {
                for key in dict.keys.sorted() where !allowed.contains(key) {
                    throw ProfileError(
                        file: file, field: path.isEmpty ? key : "\(path).\(key)",
                        expected: "one of the keys \(allowed.sorted().joined(separator: ", "))" + (path.isEmpty ? "" : " in '\(path)'"),
                        found: "an unknown key")
                }
            }
            for (key, child) in dict { try checkKeys(child, path: path.isEmpty ? key : "\(path).\(key)", file: file) }
        } else if let array = value as? [Any] {
            for (i, child) in array.enumerated() { try checkKeys(child, path: "\(path)[\(i)]", file: file) }
        }
    }

    /// Every number but those of ``RawProfile/fractionalFields`` must be an
    /// integer that fits in `Int`. `JSONDecoder` would refuse `1.5` or
    /// `1e30` for an `Int` as invalid JSON at the root; this names the field.
    static func checkIntegers(_ value: Any, path: String, file: String) throws(ProfileError) {
        if let dict = value as? [String: Any] {
            for key in dict.keys.sorted() {
                try checkIntegers(dict[key]!, path: path.isEmpty ? key : "\(path).\(key)", file: file)
            }
        } else if let array = value as? [Any] {
            for (i, child) in array.enumerated() { try checkIntegers(child, path: "\(path)[\(i)]", file: file) }
        } else if !(value is Bool), let number = value as? NSNumber,
                  !RawProfile.fractionalFields.contains(path), integer(number) == nil {
            let double = number.doubleValue
            let why = double == double.rounded() ? "an integer up to \(Int.max)" : "an integer (a count: no fraction)"
            throw ProfileError(file: file, field: path, expected: why, found: number.stringValue)
        }
    }

    /// The integer `number` holds exactly, if it fits in `Int` (`1000`,
    /// `1e3` and `1000.0` do; `1.5`, `1e30` and 2^63 do not).
    static func integer(_ number: NSNumber) -> Int? {
        switch String(cString: number.objCType) {
        case "q", "l", "i", "s", "c": return number.intValue
        case "Q", "L", "I", "S", "C": return number.uint64Value <= UInt64(Int.max) ? Int(number.uint64Value) : nil
        default:
            let double = number.doubleValue
            guard double == double.rounded(), abs(double) < 0x1p63 else { return nil }
            return Int(double)
        }
    }

    static func fieldPath(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
        var text = ""
        for key in codingPath + (last.map { [$0] } ?? []) {
            if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
        }
        return text
    }

    static func translate(_ error: DecodingError, file: String) -> ProfileError {
        switch error {
        case .keyNotFound(let key, let context):
            return ProfileError(file: file, field: fieldPath(context.codingPath, key), expected: "this required field", found: "nothing")
        case .typeMismatch(let type, let context):
            return ProfileError(file: file, field: fieldPath(context.codingPath), expected: typeName(type), found: "another type")
        case .valueNotFound(let type, let context):
            return ProfileError(file: file, field: fieldPath(context.codingPath), expected: typeName(type), found: "null")
        case .dataCorrupted(let context):
            return ProfileError(file: file, field: fieldPath(context.codingPath), expected: "a valid value", found: context.debugDescription)
        @unknown default:
            return ProfileError(file: file, field: "", expected: "a profile", found: "\(error)")
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: return "an integer"
        case is Double.Type: return "a number"
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") || name.hasPrefix("Raw") { return "an object" }
            return name
        }
    }

    static func oneOf<E: RawRepresentable & CaseIterable>(_ value: String, _: E.Type, file: String, field: String) throws(ProfileError) -> E where E.RawValue == String {
        guard let parsed = E(rawValue: value) else {
            throw ProfileError(file: file, field: field,
                               expected: "one of " + E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "),
                               found: "\"\(value)\"")
        }
        return parsed
    }

    static func inRange(_ value: Int, _ range: ClosedRange<Int>, file: String, field: String) throws(ProfileError) -> Int {
        guard range.contains(value) else {
            throw ProfileError(file: file, field: field, expected: "an integer in \(range.lowerBound)...\(range.upperBound)", found: "\(value)")
        }
        return value
    }

    static func sizes(_ values: [Int], file: String, field: String) throws(ProfileError) -> [Int] {
        guard !values.isEmpty else { throw ProfileError(file: file, field: field, expected: "a non-empty array of entity counts", found: "an empty array") }
        for (i, v) in values.enumerated() {
            _ = try inRange(v, 1...maxEntities, file: file, field: "\(field)[\(i)]")
            if i > 0, v <= values[i - 1] {
                throw ProfileError(file: file, field: "\(field)[\(i)]", expected: "entity counts in increasing order", found: "\(v) after \(values[i - 1])")
            }
        }
        return values
    }

    /// Checks every field of `raw` and resolves defaults.
    public static func validate(_ raw: RawProfile, file: String) throws(ProfileError) -> ProfileSpec {
        let nameOK = !raw.name.isEmpty && raw.name.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == "."
        } && raw.name.unicodeScalars.allSatisfy(\.isASCII)
        guard nameOK else {
            throw ProfileError(file: file, field: "name", expected: "a non-empty name of ASCII letters, digits, '-', '_' or '.' (no spaces: it names benchmarks)", found: "\"\(raw.name)\"")
        }
        let entities = try inRange(raw.state.entities, 1...maxEntities, file: file, field: "state.entities")
        let titleLength = try inRange(raw.state.titleLength, 0...4096, file: file, field: "state.titleLength")
        var tree = ProfileSpec.Tree(depth: 0, fanOut: 1, labelLength: 8)
        if let rawTree = raw.state.tree {
            tree.depth = try inRange(rawTree.depth, 0...24, file: file, field: "state.tree.depth")
            tree.fanOut = try inRange(rawTree.fanOut, 1...64, file: file, field: "state.tree.fanOut")
            tree.labelLength = try inRange(rawTree.labelLength ?? 8, 0...4096, file: file, field: "state.tree.labelLength")
            var nodes = 0, level = 1
            for _ in 0...tree.depth {
                nodes += level
                level = level.multipliedReportingOverflow(by: tree.fanOut).partialValue
                if nodes > maxTreeNodes || level > maxTreeNodes * 64 {
                    throw ProfileError(file: file, field: "state.tree", expected: "at most \(maxTreeNodes) nodes (fanOut^depth)", found: "depth \(tree.depth), fanOut \(tree.fanOut)")
                }
            }
        }
        let hasTree = raw.state.tree != nil && tree.depth > 0

        guard !raw.consumers.isEmpty else {
            throw ProfileError(file: file, field: "consumers", expected: "a non-empty array of consumer groups", found: "an empty array")
        }
        var consumers: [ProfileSpec.ConsumerGroup] = []
        for (i, group) in raw.consumers.enumerated() {
            let select = try oneOf(group.select, SelectKind.self, file: file, field: "consumers[\(i)].select")
            let count = try inRange(group.count, 0...maxConsumers, file: file, field: "consumers[\(i)].count")
            if select == .treeLeaf, !hasTree, count > 0 {
                throw ProfileError(file: file, field: "consumers[\(i)].select", expected: "a selection the state has (\"treeLeaf\" needs state.tree with depth ≥ 1)", found: "\"treeLeaf\"")
            }
            consumers.append(.init(select: select, count: count))
        }
        let total = consumers.reduce(0) { $0 + $1.count }
        guard (1...maxConsumers).contains(total) else {
            throw ProfileError(file: file, field: "consumers", expected: "between 1 and \(maxConsumers) consumers in all", found: "\(total)")
        }

        guard !raw.actions.isEmpty else {
            throw ProfileError(file: file, field: "actions", expected: "a non-empty array of actions", found: "an empty array")
        }
        var actions: [ProfileSpec.Action] = []
        for (i, a) in raw.actions.enumerated() {
            actions.append(try action(a, path: "actions[\(i)]", entities: entities, hasTree: hasTree, file: file))
        }
        var setup: [ProfileSpec.Action] = []
        if let rawSetup = raw.setup {
            guard !rawSetup.isEmpty else {
                throw ProfileError(file: file, field: "setup", expected: "a non-empty array of actions, or no setup", found: "an empty array")
            }
            for (i, a) in rawSetup.enumerated() {
                let plain = RawProfile.RawAction(kind: a.kind, field: a.field, entities: a.entities, weight: 1)
                setup.append(try action(plain, path: "setup[\(i)]", entities: entities, hasTree: hasTree, file: file))
            }
        }
        // Every action and setup action with the field path that names it.
        let named = actions.enumerated().map { ($0.element, "actions[\($0.offset)]") } + setup.enumerated().map { ($0.element, "setup[\($0.offset)]") }
        let structural = named.first { $0.0.kind.isStructural }
        // Drawing among the watched entities needs some, and a list whose
        // entities stay (a removed one would leave nothing watched to draw).
        if let i = actions.firstIndex(where: { $0.among == .watched }) {
            let watchers = consumers.filter { $0.select == .entity }.reduce(0) { $0 + $1.count }
            let wanted = max(1, actions[i].entities)
            guard watchers >= wanted else {
                throw ProfileError(file: file, field: "actions[\(i)].among", expected: "\"all\", or entity consumers for at least the \(wanted) entities each action \(actions[i].kind == .selectEntity ? "selects" : "changes")", found: "\"watched\" with \(watchers) entity consumers")
            }
            if let s = structural {
                throw ProfileError(file: file, field: "actions[\(i)].among", expected: "\"all\" when an action changes which entities the list holds (\(s.1) is \(s.0.kind.rawValue))", found: "\"watched\"")
            }
        }
        // Drawing among the unwatched entities needs some, from a list
        // whose entities stay.
        if let i = actions.firstIndex(where: { $0.among == .unwatched }) {
            let watchers = consumers.filter { $0.select == .entity }.reduce(0) { $0 + $1.count }
            let wanted = max(1, actions[i].entities)
            guard entities - watchers >= wanted else {
                throw ProfileError(file: file, field: "actions[\(i)].among", expected: "at least \(wanted) entities no entity consumer selects", found: "\"unwatched\" with \(entities) entities and \(watchers) entity consumers")
            }
            if let s = structural {
                throw ProfileError(file: file, field: "actions[\(i)].among", expected: "\"all\" when an action changes which entities the list holds (\(s.1) is \(s.0.kind.rawValue))", found: "\"unwatched\"")
            }
        }
        // `every` counts positions: ids are positions only while nothing
        // inserts, removes, moves or sorts.
        if let i = actions.firstIndex(where: { $0.every > 0 }), let s = structural {
            throw ProfileError(file: file, field: "actions[\(i)].every", expected: "no \"every\" when an action changes which entities the list holds or their order (\(s.1) is \(s.0.kind.rawValue); rows are then named by id, not position)", found: "\(actions[i].every)")
        }

        let pattern = try oneOf(raw.dispatch.pattern, DispatchPattern.self, file: file, field: "dispatch.pattern")
        var burstSize = 1, threads = 1
        switch pattern {
        case .single:
            if let b = raw.dispatch.burstSize, b != 1 {
                throw ProfileError(file: file, field: "dispatch.burstSize", expected: "1 or nothing for the \"single\" pattern", found: "\(b)")
            }
        case .burst:
            guard let b = raw.dispatch.burstSize else {
                throw ProfileError(file: file, field: "dispatch.burstSize", expected: "an integer in 2...10000 (required by the \"burst\" pattern)", found: "nothing")
            }
            burstSize = try inRange(b, 2...10_000, file: file, field: "dispatch.burstSize")
        case .threads:
            guard let t = raw.dispatch.threads else {
                throw ProfileError(file: file, field: "dispatch.threads", expected: "an integer in 2...64 (required by the \"threads\" pattern)", found: "nothing")
            }
            threads = try inRange(t, 2...64, file: file, field: "dispatch.threads")
            burstSize = try inRange(raw.dispatch.burstSize ?? 1, 1...10_000, file: file, field: "dispatch.burstSize")
        }
        if pattern != .threads, let t = raw.dispatch.threads, t != 1 {
            throw ProfileError(file: file, field: "dispatch.threads", expected: "nothing unless the pattern is \"threads\"", found: "\(t)")
        }
        if !setup.isEmpty, pattern != .single {
            throw ProfileError(file: file, field: "setup", expected: "no setup unless the pattern is \"single\" (a setup runs before each measured action)", found: "a setup with the \"\(pattern.rawValue)\" pattern")
        }

        let maxDispatches = try inRange(raw.run?.maxDispatches ?? 2_000, 10...10_000_000, file: file, field: "run.maxDispatches")
        let seconds = raw.run?.seconds ?? 1.0
        guard seconds > 0, seconds <= 600 else {
            throw ProfileError(file: file, field: "run.seconds", expected: "a number of seconds in (0, 600]", found: "\(seconds)")
        }
        let sweep = try raw.sweep.map { v throws(ProfileError) in try sizes(v, file: file, field: "sweep") } ?? []
        let quickEntities = try inRange(raw.quick?.entities ?? min(entities, 1_000), 1...maxEntities, file: file, field: "quick.entities")
        let quickSweep = try raw.quick?.sweep.map { v throws(ProfileError) in try sizes(v, file: file, field: "quick.sweep") } ?? []
        let quickMax = try inRange(raw.quick?.maxDispatches ?? min(maxDispatches, 300), 10...10_000_000, file: file, field: "quick.maxDispatches")
        let quickSeconds = raw.quick?.seconds ?? min(seconds, 0.25)
        guard quickSeconds > 0, quickSeconds <= 600 else {
            throw ProfileError(file: file, field: "quick.seconds", expected: "a number of seconds in (0, 600]", found: "\(quickSeconds)")
        }
        // Every size the profile runs at must hold the entities one action changes.
        let smallest = ([entities, quickEntities] + sweep + quickSweep).min()!
        for (a, path) in named where a.kind.takesEntities && !a.kind.createsEntities && a.entities > smallest {
            throw ProfileError(file: file, field: "\(path).entities", expected: "at most \(smallest) (the smallest entity count this profile runs at)", found: "\(a.entities)")
        }
        for (i, a) in actions.enumerated() where a.every > smallest {
            throw ProfileError(file: file, field: "actions[\(i)].every", expected: "at most \(smallest) (the smallest entity count this profile runs at)", found: "\(a.every)")
        }
        // A swap exchanges positions 1 and count − 2, two different rows
        // only in a list of 4 or more: at every size, and after any action.
        if let (_, path) = named.first(where: { $0.0.kind == .swapEntities }) {
            guard smallest >= 4 else {
                throw ProfileError(file: file, field: "\(path).kind", expected: "swapEntities on lists of at least 4 entities (it swaps positions 1 and count − 2): every size of this profile", found: "a size of \(smallest)")
            }
            if let (shrinking, shrinkingPath) = named.first(where: { $0.0.kind == .removeEntities || $0.0.kind == .clearEntities || ($0.0.kind == .replaceEntities && $0.0.entities < 4) }) {
                throw ProfileError(file: file, field: "\(path).kind", expected: "swapEntities only where the list keeps at least 4 entities (\(shrinkingPath) is \(shrinking.kind.rawValue)\(shrinking.kind == .clearEntities ? "" : " \(shrinking.entities)"), which may leave fewer)", found: "\"swapEntities\"")
            }
        }

        return ProfileSpec(
            name: raw.name, description: raw.description, source: file,
            entities: entities, titleLength: titleLength, tree: tree,
            consumers: consumers, actions: actions,
            pattern: pattern, burstSize: burstSize, threads: threads,
            maxDispatches: maxDispatches, seconds: seconds, sweep: sweep,
            quickEntities: quickEntities, quickSweep: quickSweep,
            quickMaxDispatches: quickMax, quickSeconds: quickSeconds, setup: setup)
    }

    /// What an action's `entities` counts, for error messages.
    static func verb(_ kind: ActionKind) -> String {
        switch kind {
        case .insertEntities: return "inserts"
        case .removeEntities: return "removes"
        case .moveEntities: return "moves"
        case .replaceEntities: return "puts in place of the whole list"
        case .appendEntities: return "appends"
        default: return "changes"
        }
    }

    /// Checks one action: its kind, weight, and the `field`, `entities`,
    /// `every` and `among` its kind takes (and only those). `path` names it
    /// in errors (`actions[2]`, `setup[0]`).
    static func action(_ a: RawProfile.RawAction, path: String, entities: Int, hasTree: Bool, file: String) throws(ProfileError) -> ProfileSpec.Action {
        let kind = try oneOf(a.kind, ActionKind.self, file: file, field: "\(path).kind")
        let weight = try inRange(a.weight, 1...1_000_000, file: file, field: "\(path).weight")
        if kind == .updateTreeLeaf, !hasTree {
            throw ProfileError(file: file, field: "\(path).kind", expected: "an action the state has (\"updateTreeLeaf\" needs state.tree with depth ≥ 1)", found: "\"updateTreeLeaf\"")
        }
        var field = EntityField.done, count = 0, every = 0
        if kind.takesField {
            guard let rawField = a.field else {
                throw ProfileError(file: file, field: "\(path).field", expected: "one of \"done\", \"title\", \"count\" (required by \(kind.rawValue))", found: "nothing")
            }
            field = try oneOf(rawField, EntityField.self, file: file, field: "\(path).field")
        } else if let rawField = a.field {
            throw ProfileError(file: file, field: "\(path).field", expected: "no field for \(kind.rawValue) (only updateEntities and sortEntities take one)", found: "\"\(rawField)\"")
        }
        if let k = a.every {
            guard kind == .updateEntities else {
                throw ProfileError(file: file, field: "\(path).every", expected: "no \"every\" for \(kind.rawValue) (only updateEntities takes one)", found: "\(k)")
            }
            if let n = a.entities {
                throw ProfileError(file: file, field: "\(path).entities", expected: "either \"entities\" or \"every\" for updateEntities, not both", found: "\(n) beside \"every\": \(k)")
            }
            every = try inRange(k, 1...entities, file: file, field: "\(path).every")
        } else if kind.takesEntities {
            guard let n = a.entities else {
                throw ProfileError(file: file, field: "\(path).entities", expected: "how many entities each action \(verb(kind)) (required by \(kind.rawValue)\(kind == .updateEntities ? ", unless \"every\" is given" : ""))", found: "nothing")
            }
            let range: ClosedRange<Int>
            switch kind {
            case .insertEntities: range = 1...10_000
            case .replaceEntities, .appendEntities: range = 1...1_000_000
            default: range = 1...entities
            }
            count = try inRange(n, range, file: file, field: "\(path).entities")
        } else if let n = a.entities {
            let why: String
            switch kind {
            case .sortEntities: why = " (it sorts the whole list)"
            case .clearEntities: why = " (it removes every entity)"
            case .swapEntities: why = " (it swaps positions 1 and count − 2)"
            case .selectEntity: why = " (it selects one entity)"
            default: why = ""
            }
            throw ProfileError(file: file, field: "\(path).entities", expected: "no entity count for \(kind.rawValue)" + why, found: "\(n)")
        }
        var among = EntityPool.all
        if let rawAmong = a.among {
            guard kind == .updateEntities || kind == .selectEntity else {
                throw ProfileError(file: file, field: "\(path).among", expected: "no entity pool for \(kind.rawValue) (only updateEntities and selectEntity take one)", found: "\"\(rawAmong)\"")
            }
            among = try oneOf(rawAmong, EntityPool.self, file: file, field: "\(path).among")
            if every > 0 {
                throw ProfileError(file: file, field: "\(path).among", expected: "no entity pool beside \"every\" (it names positions)", found: "\"\(rawAmong)\"")
            }
        }
        return ProfileSpec.Action(kind: kind, field: field, entities: count, among: among, every: every, weight: weight)
    }
}
