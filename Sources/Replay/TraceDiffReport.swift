import Foundation

extension TraceDiff {
    /// The readable report: a header per side, then the root cause (the headline) and the
    /// first divergence, then each root cause with the differences it explains downstream
    /// (the first few listed, the rest counted per node), then how far apart the times are.
    public var text: String { text(listingAll: false) }

    /// How many of a root cause's consequences the report lists before it counts the rest.
    public static let listedConsequences = 5

    /// The readable report; `listingAll` lists every consequence instead of counting those
    /// past the first few (`listedConsequences`).
    public func text(listingAll: Bool) -> String {
        var out = "--- \(a.name.reportLine) (\(a.clock), \(a.nodes) nodes, \(Self.eventCounts(a)))\n"
        out += "+++ \(b.name.reportLine) (\(b.clock), \(b.nodes) nodes, \(Self.eventCounts(b)))\n"
        let roots = rootCauses.count
        if isSame {
            out += "same: every node and event agrees"
        } else {
            out += "\(differences.count) difference\(differences.count == 1 ? "" : "s")"
            out += " from \(roots) root cause\(roots == 1 ? "" : "s")"
        }
        out += timeTolerance.map { " (time tolerance \(Self.duration($0)))" } ?? " (times compared, not judged: a real trace)"
        out += "\n"
        if let root = differences.first, let first = firstDivergence {
            out += "root cause: \(Self.line(root))\n"
            out += "first divergence: \(Self.line(first))\n"
            if let race = first.race {
                out += "   a race: \(Self.line(race)); a replay runs each cascade whole, so it cannot decide "
                    + "this race as the live run did\n"
            }
            var number = 0
            while number < differences.count {
                let root = number + 1
                out += "\(root). \(Self.line(differences[number]))\n"
                if let race = differences[number].race { out += "   a race: \(Self.line(race))\n" }
                number += 1
                var consequences: [(number: Int, difference: Difference)] = []
                while number < differences.count, differences[number].consequenceOf == root {
                    consequences.append((number + 1, differences[number]))
                    number += 1
                }
                guard !consequences.isEmpty else { continue }
                let nodes = Set(consequences.map(\.difference.node)).count
                out += "   explains \(consequences.count) other difference\(consequences.count == 1 ? "" : "s")"
                out += " (at \(nodes) node\(nodes == 1 ? "" : "s")):\n"
                let listed = listingAll ? consequences.count : min(consequences.count, Self.listedConsequences)
                for (number, difference) in consequences.prefix(listed) {
                    out += "   \(number). \(Self.line(difference))\n"
                }
                if listed < consequences.count {
                    out += "   and \(consequences.count - listed) more (diff --all lists them, --json has them):\n"
                    for summary in Self.summaries(consequences.dropFirst(listed).map(\.difference)) {
                        out += "     \(summary)\n"
                    }
                }
            }
        }
        if linesMoved > 0 {
            out += "lines: \(linesMoved) node\(linesMoved == 1 ? "" : "s") moved to other lines of their files "
                + "(not differences here)\n"
        }
        if filesMoved > 0 {
            out += "files: \(filesMoved) node\(filesMoved == 1 ? "" : "s") moved to other files (not differences here)\n"
        }
        if !insideCalls.isEmpty {
            out += "not compared: \(insideCalls.count) node\(insideCalls.count == 1 ? "" : "s") inside boundary calls "
                + "(services a replay does not run):\n"
            for node in insideCalls {
                out += "  only in \(node.kind == .nodeOnlyInA ? "A" : "B"): \(node.node.reportLine) (\(node.events ?? 0) events)\n"
            }
        }
        if timing.matched > 0, timing.maxShift == 0 {
            out += "times: \(timing.matched) aligned events at identical times\n"
        } else if timing.matched > 0 {
            out += "times: \(timing.matched) aligned events differ by up to \(Self.duration(timing.maxShift))"
            out += " (mean \(Self.duration(timing.meanShift)))"
            if let node = timing.maxShiftNode { out += ", most at \(node.reportLine)" }
            out += "\n"
        }
        return out
    }

    /// The report as one JSON document with sorted keys (times in integer nanoseconds).
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let document = Document(same: isSame, a: a, b: b, timeTolerance: timeTolerance, rootCauses: rootCauses.count,
                                firstDivergence: firstDivergence, differences: differences,
                                insideCalls: insideCalls, timing: timing)
        // Every field is a string, integer, boolean or array of those: encoding cannot fail.
        guard let data = try? encoder.encode(document) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private struct Document: Encodable {
        var same: Bool
        var a: Side
        var b: Side
        var timeTolerance: Int64?
        /// How many differences are root causes (those without `consequenceOf`).
        var rootCauses: Int
        var firstDivergence: Difference?
        var differences: [Difference]
        var insideCalls: [Difference]
        var timing: Timing
    }

    /// Differences counted per node, in order of first appearance: `flatMapError @F:3:
    /// 4 value differs, 2 missing in B`.
    static func summaries(_ differences: [Difference]) -> [String] {
        var order: [String] = []
        var counts: [String: [Kind: Int]] = [:]
        for difference in differences {
            if counts[difference.node] == nil { order.append(difference.node) }
            counts[difference.node, default: [:]][difference.kind, default: 0] += 1
        }
        return order.map { node in
            let kinds = Kind.allCases.compactMap { kind in counts[node]?[kind].map { "\($0) \(kind.phrase)" } }
            return "\(node): \(kinds.joined(separator: ", "))".reportLine
        }
    }

    /// One difference on one line, as the readable report lists it (a name, label or value
    /// holding a newline shown with `⏎`, see `reportLine`).
    public static func line(_ difference: Difference) -> String {
        text(of: difference).reportLine
    }

    /// A race on one line: which thread ran the event while which other thread delivered
    /// which cascade.
    static func line(_ race: Race) -> String {
        let other = race.otherThread == race.thread ? "another thread of \(race.otherThread)" : race.otherThread
        return ("on \(race.thread) while \(other) was delivering the cascade that began at "
            + "\(race.otherNode) (seq \(race.otherSeq))").reportLine
    }

    private static func text(of difference: Difference) -> String {
        let at = difference.index.map { "\(difference.node), event \($0)" } ?? difference.node
        switch difference.kind {
        case .nodeOnlyInA:
            return "node only in A: \(difference.node) (\(difference.events ?? 0) events)"
        case .nodeOnlyInB:
            return "node only in B: \(difference.node) (\(difference.events ?? 0) events)"
        case .nodeChanged:
            return "node changed: \(difference.node): \(changes(difference.nodeA, difference.nodeB))"
        case .valueDiffers:
            return "\(at): value differs: \(show(difference.a)) in A, \(show(difference.b)) in B \(location(difference))"
        case .orderDiffers:
            return "\(at): inputs met in another order: \(show(difference.a)) from \"\(difference.a?.thread ?? "")\" in A, "
                + "\(show(difference.b)) from \"\(difference.b?.thread ?? "")\" in B: a race between threads, decided the "
                + "other way, not a changed value \(location(difference))"
        case .terminalDiffers:
            return "\(at): terminal event differs: \(show(difference.a)) in A, \(show(difference.b)) in B \(location(difference))"
        case .missingInB:
            return "\(at): missing in B: \(show(difference.a)) \(location(difference))"
        case .extraInB:
            return "\(at): extra in B: \(show(difference.b)) \(location(difference))"
        case .timeShifted:
            let shift = difference.shift ?? 0
            return "\(at): time shifted by \(shift >= 0 ? "+" : "")\(duration(shift)) \(location(difference))"
        case .threadDiffers:
            return "\(at): thread differs: \"\(difference.a?.thread ?? "")\" in A, \"\(difference.b?.thread ?? "")\" in B "
                + "\(location(difference))"
        case .requestDiffers:
            return "\(difference.node), start \(difference.index ?? 0): request differs: \(shown(difference.requestA)) in A, "
                + "\(shown(difference.requestB)) in B"
        case .callOnlyInA:
            return "\(difference.node), start \(difference.index ?? 0): call only in A: request \(shown(difference.requestA))"
        case .callOnlyInB:
            return "\(difference.node), start \(difference.index ?? 0): call only in B: request \(shown(difference.requestB))"
        }
    }

    /// What changed between two sides of a node: `parameters (0.3s) in A, (0.5s) in B;
    /// call site App.swift:12 in A, App.swift:14 in B`.
    private static func changes(_ a: NodeAttributes?, _ b: NodeAttributes?) -> String {
        guard let a, let b else { return "attributes unknown" }
        var parts: [String] = []
        if a.parameters != b.parameters {
            parts.append("parameters (\(a.parameters)) in A, (\(b.parameters)) in B")
        }
        if a.file != b.file || a.line != b.line {
            parts.append("call site \(a.file):\(a.line) in A, \(b.file):\(b.line) in B")
        }
        return parts.joined(separator: "; ")
    }

    /// A request's JSON, cut to 60 characters.
    private static func shown(_ json: String?) -> String {
        guard let json else { return "nothing" }
        return json.count > 60 ? String(json.prefix(60)) + "…" : json
    }

    private static func show(_ event: EventRef?) -> String {
        guard let event else { return "nothing" }
        guard let value = event.value else { return event.kind }
        let shown = value.count > 60 ? String(value.prefix(60)) + "…" : value
        return event.kind == "value" ? shown : "\(event.kind) \(shown)"
    }

    private static func location(_ difference: Difference) -> String {
        var parts: [String] = []
        if let event = difference.a { parts.append("A seq \(event.seq) at \(duration(event.time)) on \(event.thread)") }
        if let event = difference.b { parts.append("B seq \(event.seq) at \(duration(event.time)) on \(event.thread)") }
        return "(" + parts.joined(separator: "; ") + ")"
    }

    /// A side's events as `stats` counts them: the pulls apart from the other events.
    static func eventCounts(_ side: Side) -> String {
        guard let pulls = side.pulls else { return "\(side.events) events" }
        return "\(side.events - pulls) events, \(pulls) pulls"
    }

    /// A duration from integer nanoseconds, with integer arithmetic only (stable text):
    /// `750ns`, `12.5µs`, `3.25ms`, `1.5s`.
    public static func duration(_ nanoseconds: Int64) -> String {
        let sign = nanoseconds < 0 ? "-" : ""
        let value = nanoseconds.magnitude
        func scaled(_ unit: UInt64, _ suffix: String) -> String {
            let whole = value / unit
            var fraction = String(value % unit)
            let digits = String(unit).count - 1
            fraction = String(repeating: "0", count: digits - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            if fraction.count > 3 { fraction = String(fraction.prefix(3)) }
            return "\(sign)\(whole)\(fraction.isEmpty ? "" : "." + fraction)\(suffix)"
        }
        if value < 1_000 { return "\(sign)\(value)ns" }
        if value < 1_000_000 { return scaled(1_000, "µs") }
        if value < 1_000_000_000 { return scaled(1_000_000, "ms") }
        return scaled(1_000_000_000, "s")
    }
}

extension TraceDiff {
    /// Parses a duration for `--time-tolerance`: an integer or decimal number with a unit
    /// `ns`, `us` (or `µs`), `ms` or `s`; a bare number is nanoseconds. Exact: no floating
    /// point. Nil when malformed, negative or too large.
    public static func parseDuration(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let units: [(String, Int64)] = [("ns", 1), ("us", 1_000), ("µs", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000)]
        var number = Substring(trimmed)
        var scale: Int64 = 1
        for (suffix, unit) in units where trimmed.hasSuffix(suffix) {
            number = trimmed.dropLast(suffix.count)
            scale = unit
            break
        }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts.allSatisfy({ $0.allSatisfy(\.isASCII) }),
              parts.allSatisfy({ $0.allSatisfy(\.isNumber) }), let whole = Int64(parts[0]) else { return nil }
        var fractionDigits = parts.count == 2 ? String(parts[1]) : ""
        guard parts.count == 1 || !fractionDigits.isEmpty else { return nil }
        let scaleDigits = String(scale).count - 1
        guard fractionDigits.count <= scaleDigits else { return nil }
        fractionDigits += String(repeating: "0", count: scaleDigits - fractionDigits.count)
        let fraction = Int64(fractionDigits) ?? 0
        let (product, overflow) = whole.multipliedReportingOverflow(by: scale)
        guard !overflow else { return nil }
        let (sum, overflowSum) = product.addingReportingOverflow(fraction)
        return overflowSum ? nil : sum
    }
}
