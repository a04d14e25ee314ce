@testable import FastStore
import FastStoreTestSupport
import Testing

private struct Todo: Identifiable, Equatable {
    var id: Int
    var isDone: Bool
    var points: Int
}

private enum Remaining: CountingSummary {
    static func counts(_ todo: Todo) -> Bool { !todo.isDone }
}

private enum Points: SumSummary {
    static func term(_ todo: Todo) -> Int { todo.points }
}

private enum Hardest: MaximumSummary {
    static func key(_ todo: Todo) -> Int { todo.points }
}

/// The ids in order: not commutative.
private enum Order: ListSummary {
    static var identity: [Int] { [] }
    static func summarize(_ todo: Todo) -> [Int] { [todo.id] }
    static func combine(_ a: [Int], _ b: [Int]) -> [Int] { a + b }
}

private func foldsMatch(_ list: IdentifiedList<Todo>, _ todos: [Todo]) -> Bool {
    list.fold(Remaining.self) == Remaining.fold(todos)
        && list.fold(Points.self) == Points.fold(todos)
        && list.fold(Hardest.self) == todos.map(\.points).max()
        && list.fold(Order.self) == todos.map(\.id)
}

@Suite("IdentifiedList folds")
struct IdentifiedListFoldTests {
    @Test(arguments: [0, 100, 1500])
    func differentialAgainstRecomputation(initialCount: Int) {
        var rng = SeededGenerator.fromEnvironment(fallback: 0x70D0 &+ UInt64(initialCount))
        let seed = rng.seed
        var nextID = 0
        func newTodo() -> Todo {
            nextID += 1
            return Todo(id: nextID, isDone: Bool.random(using: &rng), points: Int.random(in: 0 ... 99, using: &rng))
        }
        var model = (0 ..< initialCount).map { _ in newTodo() }
        var list = IdentifiedList(model, folds: [Remaining.self, Points.self, Hardest.self])
        list.attach(Order.self)
        var hidden = HiddenCopies<IdentifiedList<Todo>, [Todo]>(limit: 6)
        // NB: in the debug build writes check the tree (`_WholeCheck`): a
        // quarter of the steps there.
        for step in 0 ..< runLength(optimized: 1000, checked: 250) {
            let n = model.count
            let what: String
            switch Int.random(in: 0 ..< 100, using: &rng) {
            case 0 ..< 20 where n > 0:
                let i = Int.random(in: 0 ..< n, using: &rng)
                list[id: model[i].id]?.isDone.toggle()
                model[i].isDone.toggle()
                what = "toggle \(i)"
            case 20 ..< 30 where n > 0:
                let i = Int.random(in: 0 ..< n, using: &rng)
                var todo = model[i]
                todo.points = Int.random(in: 0 ... 99, using: &rng)
                list[id: todo.id] = todo
                model[i] = todo
                what = "set \(i)"
            case 30 ..< 48:
                let i = Int.random(in: 0 ... n, using: &rng)
                let todo = newTodo()
                list.insert(todo, at: i)
                model.insert(todo, at: i)
                what = "insert \(i)"
            case 48 ..< 55:
                let todo = newTodo()
                list.append(todo)
                model.append(todo)
                what = "append"
            case 55 ..< 65 where n > 0:
                let i = Int.random(in: 0 ..< n, using: &rng)
                list.remove(at: i)
                model.remove(at: i)
                what = "remove \(i)"
            case 65 ..< 72 where n > 0:
                let i = Int.random(in: 0 ..< n, using: &rng)
                _ = list.remove(id: model[i].id)
                model.remove(at: i)
                what = "remove id at \(i)"
            case 72 ..< 75 where n > 0:
                let i = Int.random(in: 0 ..< n, using: &rng)
                list[id: model[i].id] = nil
                model.remove(at: i)
                what = "set nil at \(i)"
            case 75 ..< 85 where n > 1:
                let from = Int.random(in: 0 ..< n, using: &rng), to = Int.random(in: 0 ..< n, using: &rng)
                list.move(from: from, to: to)
                model.insert(model.remove(at: from), at: to)
                what = "move \(from) → \(to)"
            case 85 ..< 89:
                list.sort { ($0.points, $0.id) < ($1.points, $1.id) }
                model.sort { ($0.points, $0.id) < ($1.points, $1.id) }
                what = "sort"
            case 89 ..< 93:
                let k = Int.random(in: 2 ... 9, using: &rng)
                list.removeAll { $0.points % k == 0 }
                model.removeAll { $0.points % k == 0 }
                what = "removeAll(where: % \(k))"
            case 93 ..< 95:
                let todos = (0 ..< Int.random(in: 0 ... 40, using: &rng)).map { _ in newTodo() }
                list.append(contentsOf: todos)
                model.append(contentsOf: todos)
                what = "append(contentsOf: \(todos.count))"
            case 95:
                list.removeAll()
                model.removeAll()
                what = "removeAll()"
            case 96:
                let todos = (0 ..< Int.random(in: 0 ... 2500, using: &rng)).map { _ in newTodo() }
                list.removeAll()
                list.append(contentsOf: todos)
                model = todos
                what = "wholesale replacement with \(todos.count)"
            default:
                let todo = newTodo()
                list[id: todo.id] = todo
                model.append(todo)
                what = "append by id"
            }
            #if FASTSTORE_INTERNAL_CHECKS
            // NB: writes check the tree (folds included, `_WholeCheck`);
            // this adds the whole-list checks now and then.
            if step % 10 == 0 { list._invariantCheck() }
            #endif
            guard foldsMatch(list, model) else {
                Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)), step \(step) (\(what)): fold diverged")
                return
            }
            if Int.random(in: 0 ..< 10, using: &rng) == 0 { hidden.keep(list, model) }
            if step % 50 == 0 {
                var ok = true
                hidden.verify { copy, todos in if !foldsMatch(copy, todos) { ok = false } }
                guard ok else {
                    Issue.record("seed \(seed), step \(step) (\(what)): an older copy's fold changed")
                    return
                }
            }
        }
        hidden.verify { copy, todos in #expect(foldsMatch(copy, todos), "seed \(seed): older copy") }
    }

    @Test func aFoldReadRecordsTheWholeList() {
        var list = IdentifiedList((0 ..< 100).map { Todo(id: $0, isDone: $0 % 3 == 0, points: $0) })
        list.attach(Remaining.self)
        #expect(list.fold(Remaining.self) == 66)
        let recorder = _ReadRecorder()
        _ = recorder.record { list.fold(Remaining.self) }
        #expect(recorder.dependencies == [_Dependency(node: list.nodeID, kind: .whole)])
    }
}
