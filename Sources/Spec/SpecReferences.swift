extension SpecDocument {
    /// A reference from a derived stream's expression to a derived stream: outside a lambda,
    /// starting the stream starts the one referred to at once; inside, whenever the lambda runs.
    private struct Reference {
        let target: Int
        /// As written: `name` or `stream('name')`.
        let text: String
        let location: SpecLocation
        /// Inside a lambda: the stream is started whenever the lambda runs, not with this one.
        let inLambda: Bool
    }

    /// The most operators the spec's derived streams may start at frame 0, counted before
    /// anything runs (see `checkReferences`). Each derived stream is subscribed on its own
    /// and streams are cold, so a stream starts its own copy of every stream it names: a
    /// chain of N named streams starts N(N+1)/2 operators, a stream naming the one above
    /// twice doubles it. Far above any figure (the operator figures start fewer than 20).
    public static let operatorLimit = 50_000

    /// Checks that no derived stream refers to itself, directly or through other streams:
    /// starting it would start it again without end (inside a lambda, each value would nest
    /// one more start). In linear time: one walk of the expressions, then one depth-first search.
    ///
    /// Then checks that starting every derived stream at frame 0 starts at most
    /// `operatorLimit` operators, a stream named inside a lambda counted as started once
    /// (it starts again with each value that reaches the lambda).
    ///
    /// - Throws: `SpecSyntaxError` at the first reference of the cycle, naming every step; or
    ///   at the stream whose start makes the count pass the limit.
    func checkReferences() throws {
        var index: [String: Int] = [:]
        for (position, item) in derived.enumerated() where index[item.name] == nil { index[item.name] = position }
        var references: [[Reference]] = Array(repeating: [], count: derived.count)
        var calls = [Int](repeating: 0, count: derived.count)
        for (position, item) in derived.enumerated() {
            Self.collect(item.expression, index: index, position: position, into: &references[position],
                         calls: &calls[position])
        }
        try checkCycles(references)
        try checkOperatorCount(references, calls: calls)
    }

    /// The operators each derived stream starts: its own calls plus, for each mention of a
    /// stream, everything that stream starts (saturating at just over the limit). The
    /// references have no cycle (`checkCycles`), so every stream is counted after the streams
    /// it names. Fails at the first stream, in spec order, that takes the total of all
    /// streams over `operatorLimit`.
    private func checkOperatorCount(_ references: [[Reference]], calls: [Int]) throws {
        let cap = Self.operatorLimit + 1
        var starts = [Int](repeating: -1, count: derived.count)
        for root in derived.indices where starts[root] < 0 {
            // Iterative post-order: a stream is counted once every stream it names is.
            var stack = [root]
            while let top = stack.last {
                let pending = references[top].filter { starts[$0.target] < 0 }
                if let next = pending.first {
                    stack.append(next.target)
                    continue
                }
                stack.removeLast()
                guard starts[top] < 0 else { continue }
                starts[top] = references[top].reduce(max(calls[top], 1)) { min($0 + starts[$1.target], cap) }
            }
        }
        var total = 0
        for position in derived.indices {
            total = min(total + starts[position], cap)
            guard total > Self.operatorLimit else { continue }
            let item = derived[position]
            let counted = starts[position] > Self.operatorLimit ? "more than \(Self.operatorLimit)" : "\(starts[position])"
            throw SpecSyntaxError(location: item.location,
                                  message: "expected the derived streams to start at most \(Self.operatorLimit) operators at frame 0, "
                                      + "but the streams up to '\(item.name)' start more ('\(item.name)' alone starts \(counted)): "
                                      + "each derived stream is subscribed on its own and starts its own copy of every "
                                      + "stream it names, so a chain of named streams grows with the square of its length; "
                                      + "write the chain as one expression instead of naming every step")
        }
    }

    /// The depth-first search of `checkReferences` for a stream that starts itself.
    private func checkCycles(_ references: [[Reference]]) throws {
        // Iterative depth-first search; `path` holds the references followed from the root.
        var state = [UInt8](repeating: 0, count: derived.count)  // 0 new, 1 on the path, 2 done
        for root in derived.indices where state[root] == 0 {
            var stack: [(node: Int, next: Int)] = [(root, 0)]
            var path: [Reference] = []
            state[root] = 1
            while let top = stack.last {
                let outgoing = references[top.node]
                guard top.next < outgoing.count else {
                    state[top.node] = 2
                    stack.removeLast()
                    if !path.isEmpty { path.removeLast() }
                    continue
                }
                stack[stack.count - 1].next += 1
                let reference = outgoing[top.next]
                switch state[reference.target] {
                case 0:
                    state[reference.target] = 1
                    stack.append((reference.target, 0))
                    path.append(reference)
                case 1:
                    throw cycleError(path: path + [reference], closingAt: reference.target)
                default:
                    continue
                }
            }
        }
    }

    private func cycleError(path: [Reference], closingAt target: Int) -> SpecSyntaxError {
        // The cycle starts with the reference followed out of the stream it returns to: the
        // first on the path, or the one after the reference that entered that stream.
        let start = path.dropLast().firstIndex { $0.target == target }.map { $0 + 1 } ?? 0
        let cycle = path[start...]
        let steps = cycle.map { "\($0.text) on line \($0.location.line)" }
        return SpecSyntaxError(location: cycle[start].location,
                               message: "expected a stream that does not refer to itself; stream '\(derived[target].name)' "
                                   + "refers to itself through \(steps.joined(separator: ", then "))")
    }

    /// The references of `expression`, a part of the definition of the stream at `position`.
    /// Inside a lambda a bare name may refer to any stream (the lambda runs once all exist),
    /// unless a parameter of the lambda hides it.
    private static func collect(_ expression: SpecExpression, index: [String: Int], position: Int,
                                inLambda: Bool = false, hidden: Set<String> = [], into references: inout [Reference],
                                calls: inout Int) {
        func walk(_ expression: SpecExpression) {
            collect(expression, index: index, position: position, inLambda: inLambda, hidden: hidden, into: &references,
                    calls: &calls)
        }
        switch expression {
        case .number, .string, .bool, .null:
            break
        case let .lambda(parameters, body, _):
            collect(body, index: index, position: position, inLambda: true, hidden: hidden.union(parameters),
                    into: &references, calls: &calls)
        case let .name(name, location):
            // Outside a lambda a bare name refers to a stream above (one below is an error of its own).
            if !hidden.contains(name), let target = index[name], inLambda || target < position {
                references.append(Reference(target: target, text: inLambda ? "\(name) in a lambda" : name,
                                            location: location, inLambda: inLambda))
            }
        case let .array(items, _):
            items.forEach(walk)
        case let .object(pairs, _):
            for pair in pairs { walk(pair.1) }
        case let .member(base, _, _):
            walk(base)
        case let .index(base, key, _):
            walk(base)
            walk(key)
        case let .call(callee, arguments, _):
            if case .name("stream", _) = callee, !hidden.contains("stream"), arguments.count == 1,
               case let .string(name, location) = arguments[0].value, let target = index[name] {
                references.append(Reference(target: target, text: inLambda ? "stream('\(name)') in a lambda" : "stream('\(name)')",
                                            location: location, inLambda: inLambda))
            }
            if !inLambda { calls += 1 }
            walk(callee)
            for argument in arguments { walk(argument.value) }
        case let .unary(_, operand, _):
            walk(operand)
        case let .binary(_, left, right, _):
            walk(left)
            walk(right)
        case let .conditional(condition, then, otherwise, _):
            walk(condition)
            walk(then)
            walk(otherwise)
        }
    }
}
