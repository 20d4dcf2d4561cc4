extension SpecDocument {
    /// A reference from a derived stream's expression to a derived stream: outside a lambda,
    /// starting the stream starts the one referred to at once; inside, whenever the lambda runs.
    private struct Reference {
        let target: Int
        /// As written: `name` or `stream('name')`.
        let text: String
        let location: SpecLocation
    }

    /// Checks that no derived stream refers to itself, directly or through other streams:
    /// starting it would start it again without end (inside a lambda, each value would nest
    /// one more start). In linear time: one walk of the expressions, then one depth-first search.
    ///
    /// - Throws: `SpecSyntaxError` at the first reference of the cycle, naming every step.
    func checkReferences() throws {
        var index: [String: Int] = [:]
        for (position, item) in derived.enumerated() where index[item.name] == nil { index[item.name] = position }
        var references: [[Reference]] = Array(repeating: [], count: derived.count)
        for (position, item) in derived.enumerated() {
            Self.collect(item.expression, index: index, position: position, into: &references[position])
        }
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
                                inLambda: Bool = false, hidden: Set<String> = [], into references: inout [Reference]) {
        func walk(_ expression: SpecExpression) {
            collect(expression, index: index, position: position, inLambda: inLambda, hidden: hidden, into: &references)
        }
        switch expression {
        case .number, .string, .bool, .null:
            break
        case let .lambda(parameters, body, _):
            collect(body, index: index, position: position, inLambda: true, hidden: hidden.union(parameters),
                    into: &references)
        case let .name(name, location):
            // Outside a lambda a bare name refers to a stream above (one below is an error of its own).
            if !hidden.contains(name), let target = index[name], inLambda || target < position {
                references.append(Reference(target: target, text: inLambda ? "\(name) in a lambda" : name,
                                            location: location))
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
                                            location: location))
            }
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
