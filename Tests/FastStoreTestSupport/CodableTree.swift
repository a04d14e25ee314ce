import FastStore

// A Codable versioned state tree for the patch tests: nested nodes, a
// VersionedList of Int and one of nodes, an IdentifiedList of node rows, a
// VersionedDictionary of nodes, optional and plain fields.

public struct CodableLeaf: Codable, Hashable, Sendable {
    public var a: Int
    public var note: String?
    public init(a: Int, note: String?) { self.a = a; self.note = note }
}

public struct CodableRow: Codable, Hashable, Sendable, Identifiable {
    public var id: Int
    public var title: String
    public var done: Bool
    public var tags: [String]
    public init(id: Int, title: String, done: Bool, tags: [String]) {
        self.id = id; self.title = title; self.done = done; self.tags = tags
    }
}

public struct CodableMid: Codable, Equatable, Sendable {
    public var leaf: Versioned<CodableLeaf>
    public var numbers: VersionedList<Int>
    public var flag: Bool
    public init(leaf: Versioned<CodableLeaf>, numbers: VersionedList<Int>, flag: Bool) {
        self.leaf = leaf; self.numbers = numbers; self.flag = flag
    }
}

public struct CodableRoot: Codable, Equatable, Sendable {
    public var name: String
    public var count: Int
    public var limit: Int?
    public var ratio: Double
    public var plain: [Int]
    public var mid: Versioned<CodableMid>
    public var spare: Versioned<CodableMid>?
    public var rows: IdentifiedList<Versioned<CodableRow>>
    public var leaves: VersionedList<Versioned<CodableLeaf>>
    public var scores: VersionedDictionary<String, Versioned<CodableLeaf>>
}

public typealias CodableState = Versioned<CodableRoot>

public enum CodableTreeGen {
    static func text<G: RandomNumberGenerator>(_ rng: inout G) -> String { ["a", "b", "c", "d é"].randomElement(using: &rng)! }

    public static func leaf<G: RandomNumberGenerator>(_ rng: inout G) -> CodableLeaf {
        CodableLeaf(a: Int.random(in: 0...5, using: &rng), note: Bool.random(using: &rng) ? text(&rng) : nil)
    }

    public static func row<G: RandomNumberGenerator>(id: Int, _ rng: inout G) -> CodableRow {
        CodableRow(id: id, title: text(&rng), done: Bool.random(using: &rng), tags: (0 ..< Int.random(in: 0...2, using: &rng)).map { _ in text(&rng) })
    }

    public static func mid<G: RandomNumberGenerator>(_ rng: inout G) -> CodableMid {
        CodableMid(
            leaf: Versioned(leaf(&rng)),
            numbers: VersionedList((0 ..< Int.random(in: 0...150, using: &rng)).map { _ in Int.random(in: 0...9, using: &rng) }),
            flag: Bool.random(using: &rng))
    }

    public static func state<G: RandomNumberGenerator>(_ rng: inout G) -> CodableState {
        var nextID = 0
        let rows = (0 ..< Int.random(in: 0...120, using: &rng)).map { _ -> Versioned<CodableRow> in
            nextID += 1
            return Versioned(row(id: nextID, &rng))
        }
        var scores = VersionedDictionary<String, Versioned<CodableLeaf>>()
        for k in 0 ..< Int.random(in: 0...40, using: &rng) { scores["k\(k)"] = Versioned(leaf(&rng)) }
        return Versioned(CodableRoot(
            name: text(&rng), count: Int.random(in: 0...3, using: &rng), limit: nil, ratio: 0.5,
            plain: [1, 2, 3], mid: Versioned(mid(&rng)), spare: nil, rows: IdentifiedList(rows),
            leaves: VersionedList((0 ..< Int.random(in: 0...100, using: &rng)).map { _ in Versioned(leaf(&rng)) }),
            scores: scores))
    }

    /// One random mutation: inserts, removes, moves, updates,
    /// `replaceSubrange`, sorts, wholesale replacements and nested node
    /// edits, across every part of the tree.
    public static func mutate<G: RandomNumberGenerator>(_ state: inout CodableState, _ rng: inout G) {
        let n = state.rows.count
        switch Int.random(in: 0 ..< 26, using: &rng) {
        case 0: state.name = text(&rng)
        case 1: state.count += 1
        case 2: state.limit = Bool.random(using: &rng) ? Int.random(in: 0...9, using: &rng) : nil
        case 3: state.ratio = Double(Int.random(in: 0...8, using: &rng)) / 4
        case 4: state.plain.append(Int.random(in: 0...9, using: &rng))
        case 5: if !state.plain.isEmpty { state.plain[0] += 1 }
        case 6: state.mid.leaf.a += 1
        case 7: state.mid.leaf = Versioned(leaf(&rng))  // a replaced node
        case 8:
            let m = state.mid.numbers.count
            if m > 0 { state.mid.numbers[Int.random(in: 0 ..< m, using: &rng)] = Int.random(in: 0...9, using: &rng) }
        case 9: state.mid.numbers.insert(7, at: Int.random(in: 0...state.mid.numbers.count, using: &rng))
        case 10:
            let m = state.mid.numbers.count
            if m > 0 { state.mid.numbers.remove(at: Int.random(in: 0 ..< m, using: &rng)) }
        case 11:
            let m = state.mid.numbers.count
            let lower = Int.random(in: 0...m, using: &rng), upper = Int.random(in: lower...m, using: &rng)
            state.mid.numbers.replaceSubrange(lower ..< upper, with: [1, 2, 3].prefix(Int.random(in: 0...3, using: &rng)))
        case 12: state.mid.numbers.sort()
        case 13: state.spare = Bool.random(using: &rng) ? Versioned(mid(&rng)) : nil
        case 14: state.spare?.flag.toggle()
        case 15: if n > 0 { state.rows[id: state.rows[Int.random(in: 0 ..< n, using: &rng)].id]?.done.toggle() }
        case 16:
            let id = (state.rows.ids.max() ?? 0) + 1
            state.rows.insert(Versioned(row(id: id, &rng)), at: Int.random(in: 0...n, using: &rng))
        case 17: if n > 0 { state.rows.remove(at: Int.random(in: 0 ..< n, using: &rng)) }
        case 18: if n > 1 { state.rows.move(from: Int.random(in: 0 ..< n, using: &rng), to: Int.random(in: 0 ..< n, using: &rng)) }
        case 19: state.rows.sort { $0.title < $1.title }
        case 20: if n > 0 { state.rows[id: state.rows[Int.random(in: 0 ..< n, using: &rng)].id]?.tags.append(text(&rng)) }
        case 21:
            let m = state.leaves.count
            if m > 0 { state.leaves[Int.random(in: 0 ..< m, using: &rng)].a += 1 }
        case 22: state.leaves.append(Versioned(leaf(&rng)))
        case 23: state.scores["k\(Int.random(in: 0...45, using: &rng))"] = Bool.random(using: &rng) ? Versioned(leaf(&rng)) : nil
        case 24:
            if let key = state.scores.keys.randomElement(using: &rng) { state.scores[key]?.a += 1 }
        default:
            // Wholesale replacement of a part, or of the whole state.
            if Bool.random(using: &rng) { state.mid = Versioned(mid(&rng)) } else { state = CodableTreeGen.state(&rng) }
        }
    }
}
