/// Lays a `MarbleFigure` out as a `Scene`: the ReactiveX documentation layout, a time line
/// per stream with the operator in a box between a stream and the stream it produces, an
/// axis with units at the bottom, and a legend of threads and symbols.
struct MarbleLayout {
    /// Marbles delivered on several threads (`ThreadColours.several`).
    static let mixed = ThreadColours.several

    static let margin = 16.0
    static let laneHeight = 50.0
    static let innerLaneHeight = 38.0
    static let operatorHeight = 42.0
    static let radius = 13.0
    static let innerRadius = 10.0
    static let maxPill = 104.0
    static let groupReach = 36.0
    static let countFont = Scene.Font(size: 10)
    static let breakWidth = 28.0
    static let labelFont = Scene.Font(size: 13, bold: true)
    static let innerLabelFont = Scene.Font(size: 11, italic: true)
    static let marbleFont = Scene.Font(size: 12)
    static let smallFont = Scene.Font(size: 11)
    static let noteFont = Scene.Font(size: 9, bold: true)
    /// A break's idle time under the axis, and the least room between it and a tick's label.
    static let breakFont = Scene.Font(size: 9)
    static let axisGap = 8.0
    /// Values legend: at most this many lines, and this many values listed per merged marble.
    static let maxNotes = 40
    static let maxNoteValues = 12
    static let ink = Scene.Paint(hex: "#222222")
    static let grey = Scene.Paint(hex: "#777777")
    static let red = Scene.Paint(hex: "#d62728")

    /// Where each marble was drawn, for causal arrows.
    private var positions: [UInt64: (x: Double, y: Double, r: Double)] = [:]
    private var symbols: Set<String> = []
    /// The values legend: for each marble whose text was cut or that merges several values
    /// (`×N`), in drawing order, what it holds; the marble carries its number (one number
    /// for marbles that hold the same).
    private var notes: [String] = []

    /// The widest a lane's title is drawn, indent included; a longer one is cut with an
    /// ellipsis (the whole title is the lane's hover text).
    static let maxTitle = 220.0
    /// The least room between the title column and the plot: any lane's line, mark or marble
    /// and the time axis.
    static let titleGap = 6.0
    /// The least room between anything drawn and the figure's right edge.
    static let inkClearance = 4.0

    static func scene(for figure: MarbleFigure, maxWidth: Double) -> Scene {
        // The plot starts where the estimated title column ends; when a title, measured as
        // drawn, would reach a marble wider than the room left of the first time (or a long
        // title the line itself), the plot moves right by the overlap and is laid out again.
        // Likewise, when a marble near the first time is wider than the room between the
        // axis's start and that time, the first time moves right (the axis and the lines
        // keep their start) by as much. Either move can only narrow the plot, and a narrower
        // plot's marbles are no wider, so a second pass fits; the third is a bound, not a need.
        let titles = figure.lanes.map(Self.shownTitle)
        var inset = 0.0, lead = 0.0
        for _ in 0..<3 {
            var layout = MarbleLayout()
            let built = layout.build(figure, titles: titles, maxWidth: maxWidth, inset: inset, lead: lead)
            if built.overlap <= 0, built.overhang <= 0 { return built.scene }
            inset += max(0, built.overlap).rounded(.up)
            lead += max(0, built.overhang).rounded(.up)
        }
        var layout = MarbleLayout()
        return layout.build(figure, titles: titles, maxWidth: maxWidth, inset: inset, lead: lead).scene
    }

    /// A lane's title as drawn: one line, cut with an ellipsis to the longest cut whose
    /// measured width fits `maxTitle` (with an inner lane's indent), and that width.
    static func shownTitle(_ lane: MarbleFigure.Lane) -> (text: String, width: Double, font: Scene.Font) {
        let font = lane.isInner ? innerLabelFont : labelFont
        let room = maxTitle - (lane.isInner ? 16 : 0)
        let shown = cut(TextSafety.singleLine(lane.title), font: font, room: room)
        return (shown, TextMeasure.width(shown, font: font), font)
    }

    /// `line` whole when its measured width fits `room`, else its longest cut (ending in `…`)
    /// that does, found by halving (a cut's width grows with its length); one character and
    /// the ellipsis when none fits.
    static func cut(_ line: String, font: Scene.Font, room: Double) -> String {
        func fits(_ text: String) -> Bool { TextMeasure.width(text, font: font) <= room }
        guard !fits(line) else { return line }
        var low = 2, high = line.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if fits(TextSafety.truncated(line, to: middle)) { low = middle } else { high = middle - 1 }
        }
        return TextSafety.truncated(line, to: low)
    }

    /// The scene, by how much the title column overlaps the plot, and by how much a marble
    /// reaches left of the axis's start (each 0 or less: it does not). `inset` moves the whole
    /// plot right; `lead` moves the first time right of the axis's start.
    private mutating func build(_ figure: MarbleFigure, titles: [(text: String, width: Double, font: Scene.Font)],
                                maxWidth: Double, inset: Double, lead: Double) -> (scene: Scene, overlap: Double, overhang: Double) {
        let labelWidth = min(Self.maxTitle, max(80, zip(figure.lanes, titles).map { lane, title in
            Scene.textWidth(title.text, font: title.font) + (lane.isInner ? 16 : 0)
        }.max() ?? 0)) + 12
        let titlesEnd = zip(figure.lanes, titles).map { lane, title in
            Self.margin + (lane.isInner ? 16 : 0) + title.width
        }.max() ?? 0
        let plotStart = Self.margin + labelWidth + 24 + inset
        var times: [Int64] = []
        times.reserveCapacity(figure.lanes.reduce(0) { $0 + $1.marbles.count + 2 })
        for lane in figure.lanes {
            for marble in lane.marbles { times.append(marble.time) }
            if let subscribed = lane.subscribed { times.append(subscribed) }
            if let end = lane.end { times.append(end.time) }
        }
        // Aim for the closest marbles to sit a typical marble's width apart, so most values
        // show whole; the width bound then decides, and crowded values are cut.
        let widths = figure.lanes.lazy.flatMap(\.marbles).prefix(2_000).map {
            min(Self.maxPill, max(2 * Self.radius, Scene.textWidth(TextSafety.singleLine($0.display), font: Self.marbleFont) + 12))
        }.sorted()
        let spacing = widths.isEmpty ? 36 : min(90, max(36, widths[widths.count / 2] + 4))
        let scale = TimeScale(times: times, startX: plotStart + lead, minWidth: 360,
                              maxWidth: max(360, maxWidth - plotStart - lead - 60), spacing: spacing,
                              breakWidth: Self.breakWidth, cuts: figure.cutsIdleTime)
        let plotEnd = scale.endX + 28
        let figureStart = times.min() ?? 0

        var items: [Scene.Item] = []
        var y = Self.margin
        if let title = figure.title {
            items.append(.text(TextSafety.singleLine(title), at: .init(x: Self.margin, y: y + 16),
                               font: .init(size: 16, bold: true), anchor: .start, fill: Self.ink))
            y += 32
        }

        var laneItems: [Scene.Item] = []
        var laneIndex = 0
        let axisStart = scale.startX - 16 - lead
        var plotLeft = axisStart
        var marblesLeft = Double.infinity
        var plotRight = plotEnd
        for row in figure.rows {
            switch row {
            case let .operator(op):
                laneItems.append(operatorBox(op, y: y, from: plotStart - 14, to: plotEnd))
                plotLeft = min(plotLeft, plotStart - 14)
                y += Self.operatorHeight
            case let .lane(lane):
                let height = lane.isInner ? Self.innerLaneHeight : Self.laneHeight
                let (item, left, right, firstMarble) = self.lane(lane, title: titles[laneIndex].text, index: laneIndex,
                                                                 centre: y + height / 2, scale: scale, lead: lead,
                                                                 figureStart: figureStart, plotEnd: plotEnd, figure: figure)
                laneItems.append(item)
                plotLeft = min(plotLeft, left)
                marblesLeft = min(marblesLeft, firstMarble)
                plotRight = max(plotRight, right)
                laneIndex += 1
                y += height
            }
        }
        items += causalArrows(figure.causes)
        items += laneItems
        y += 6
        items.append(axis(scale, y: y, from: axisStart, to: plotEnd))
        y += 44
        let (legend, legendHeight) = self.legend(figure, y: y)
        items += legend
        y += legendHeight
        let (values, valuesHeight) = valuesLegend(y: y, width: plotEnd - 2 * Self.margin)
        items += values
        y += valuesHeight
        // A marble at the last time may reach past the end of the axis, into the margin: the
        // figure holds it and its number whole, a few pixels clear of the edge.
        let width = max(plotEnd + Self.margin, plotRight + Self.inkClearance, legendWidth(figure.threads) + 2 * Self.margin)
        return (Scene(width: width.rounded(.up), height: (y + Self.margin).rounded(.up), items: items),
                titlesEnd + Self.titleGap - plotLeft, axisStart - marblesLeft)
    }

    // MARK: Rows

    private func operatorBox(_ op: MarbleFigure.Operator, y: Double, from: Double, to: Double) -> Scene.Item {
        // The text is cut to the box (a narrow plot's box under a long operator text), the
        // whole text on hover.
        let line = TextSafety.singleLine(op.text)
        let text = Self.cut(line, font: Self.labelFont, room: to - from - 16)
        let hover = text == line ? op.detail.map(TextSafety.printable)
            : TextSafety.printable(op.detail.map { "\(op.text) \u{2014} \($0)" } ?? op.text)
        return .group(kind: "operator", title: hover, data: ["name": op.name], items: [
            .rect(origin: .init(x: from, y: y + 6), width: to - from, height: Self.operatorHeight - 12, corner: 4,
                  fill: .init(hex: "#f3f6fa"), stroke: .init(paint: .init(hex: "#8497b0"), width: 1)),
            .text(text, at: .init(x: (from + to) / 2, y: y + Self.operatorHeight / 2 + 5),
                  font: Self.labelFont, anchor: .middle, fill: Self.ink),
        ])
    }

    /// A lane's group, the left and right ends of what it draws right of its title, and the
    /// left end of its first marble (infinity when it has none).
    private mutating func lane(_ lane: MarbleFigure.Lane, title: String, index: Int, centre y: Double, scale: TimeScale, lead: Double,
                               figureStart: Int64, plotEnd: Double, figure: MarbleFigure) -> (Scene.Item, Double, Double, Double) {
        let radius = lane.isInner ? Self.innerRadius : Self.radius
        var items: [Scene.Item] = [
            .text(title, at: .init(x: Self.margin + (lane.isInner ? 16 : 0), y: y + 4.5),
                  font: lane.isInner ? Self.innerLabelFont : Self.labelFont, anchor: .start,
                  fill: lane.isInner ? Self.grey : Self.ink),
        ]
        let startX = scale.x(lane.subscribed ?? figureStart) - (lane.subscribed == nil ? 16 + lead : 0)
        let endX = lane.end.map { scale.x($0.time) } ?? plotEnd
        let lineStroke = Scene.Stroke(paint: lane.isInner ? Self.grey : Self.ink, width: lane.isInner ? 1.2 : 1.6)
        items.append(.line(from: .init(x: startX, y: y), to: .init(x: endX, y: y), stroke: lineStroke))
        if lane.end == nil {
            items.append(.path([.init(x: plotEnd - 8, y: y - 4.5), .init(x: plotEnd, y: y), .init(x: plotEnd - 8, y: y + 4.5)],
                               closed: true, fill: lineStroke.paint, stroke: nil))
        }
        for gap in scale.breaks where gap.x > startX && gap.x < endX {
            items.append(breakMark(x: gap.x, y: y))
        }
        let node = lane.node.map { String($0) }
        // Failures and interruptions are drawn over the marbles, so none is hidden under one
        // (one at a value's very time is moved to the marble's edge, below); the other marks
        // under them.
        // Each with its run of marks (to draw it again elsewhere, below) and whether it is the
        // lane's own end (after every value) rather than a mark of its chain.
        var over: [(item: Scene.Item, end: MarbleFigure.End, run: [Int], laneEnd: Bool)] = []
        var marks: [MarbleFigure.Mark] = []
        if let subscribed = lane.subscribed { marks.append(.init(.subscribed(at: subscribed), node: lane.node)) }
        for mark in lane.marks { marks.append(mark.node == nil ? .init(mark.kind, node: lane.node) : mark) }
        if let end = lane.end { marks.append(.init(.ended(end), node: lane.node)) }
        let crowded = crowdedKinds(marks, width: scale.endX - scale.startX)
        for run in markRuns(marks, crowded: crowded, scale: scale) {
            let first = marks[run[0]]
            let x = run.count == 1 ? scale.x(first.time) : (scale.x(first.time) + scale.x(marks[run[run.count - 1]].time)) / 2
            let markNode = first.node.map { String($0) }
            var item: Scene.Item
            switch first.kind {
            case let .subscribed(at):
                item = subscribedMark(at: at, x: x, y: y, node: markNode)
            case let .ended(end):
                item = endMark(end, x: x, y: y, half: radius + 2, node: markNode)
            }
            if run.count > 1 { item = counted(item, run.map { marks[$0] }) }
            // Crowded marks are a texture along the lane: drawn over the marbles, they would
            // hide every one of them.
            switch first.kind {
            case .ended(.failed), .ended(.interrupted):
                if crowded.contains(Self.kindName(first)) {
                    items.append(item)
                } else if case let .ended(end) = first.kind {
                    over.append((item, end, run, lane.end != nil && run.contains(marks.count - 1)))
                }
            case .subscribed, .ended(.completed), .ended(.disposed):
                items.append(item)
            }
        }
        // Marbles are in time order, none wider than the room to its neighbours: the first
        // is the leftmost, the last the rightmost.
        let boxes = items.dropFirst().compactMap(\.box)
        var left = boxes.map(\.minX).min() ?? .infinity
        var right = boxes.map(\.maxX).max() ?? -.infinity
        let firstMarble = items.count
        let (sorted, laneGroups) = groups(lane.marbles, scale: scale)
        let centres = laneGroups.map { (scale.x(sorted[$0.lowerBound].time) + scale.x(sorted[$0.upperBound - 1].time)) / 2 }
        // Failures and interruptions drawn over the marbles, as spans of x.
        let overSpans = over.compactMap(\.item.box).map { ($0.minX, $0.maxX) }
        for (index, range) in laneGroups.enumerated() {
            let group = Array(sorted[range])
            // A marble may be as wide as the room to its neighbours, so none hides another;
            // its text is cut to fit (the whole value is on hover).
            let centre = centres[index]
            let before = index > 0 ? centre - centres[index - 1] : .infinity
            let after = index + 1 < centres.count ? centres[index + 1] - centre : .infinity
            var room = min(Self.maxPill, min(before, after) - 3)
            // A failure or interruption beside the marble's time (not at it) bounds it too:
            // drawn over the marble, its cross covered the value's text (a retried service's
            // failure a few ms before the value).
            for (minX, maxX) in overSpans where maxX < centre || minX > centre {
                room = min(room, 2 * ((maxX < centre ? centre - maxX : minX - centre) - 2))
            }
            items.append(marble(group, x: centre, y: y, radius: radius, room: room, figure: figure, node: node))
        }
        // A failure or interruption at a marble's time moves to the marble's edge rather than
        // covering its text (a retried call's last failure and the fallback value sent at that
        // instant): before it for a mark of the lane's chain, which the value answers; after
        // it for the lane's own end, which comes after every value.
        let pills = items[firstMarble...].compactMap(\.box)
        for index in over.indices {
            let entry = over[index]
            guard let box = entry.item.box else { continue }
            let x = (box.minX + box.maxX) / 2
            guard let pill = pills.first(where: { $0.minX < x && x < $0.maxX }) else { continue }
            let half = (box.maxX - box.minX) / 2
            let moved = entry.laneEnd ? pill.maxX + half + 1 : pill.minX - half - 1
            var item = endMark(entry.end, x: moved, y: y, half: radius + 2, node: marks[entry.run[0]].node.map { String($0) })
            if entry.run.count > 1 { item = counted(item, entry.run.map { marks[$0] }) }
            over[index].item = item
        }
        let marblesLeft = items[firstMarble...].first?.box?.minX ?? .infinity
        for marble in [items[firstMarble...].first, items[firstMarble...].last] {
            guard let box = marble?.box else { continue }
            left = min(left, box.minX)
            right = max(right, box.maxX)
        }
        for box in over.compactMap(\.item.box) {
            left = min(left, box.minX)
            right = max(right, box.maxX)
        }
        items += over.map(\.item)
        var data = ["index": String(index)]
        if lane.isInner { data["inner"] = "true" }
        let hover = lane.detail.map { TextSafety.printable("\(lane.title) \u{2014} \($0)") }
            ?? (title == TextSafety.singleLine(lane.title) ? nil : TextSafety.printable(lane.title))
        return (.group(kind: "lane", title: hover, data: data, items: items), left, right, marblesLeft)
    }

    /// The kind of a mark, for counting marks alike.
    private static func kindName(_ mark: MarbleFigure.Mark) -> String {
        switch mark.kind {
        case .subscribed: return "subscribed"
        case .ended(.completed): return "completed"
        case .ended(.failed): return "failed"
        case .ended(.interrupted): return "interrupted"
        case .ended(.disposed): return "disposed"
        }
    }

    /// The width a run of marks of one kind and node may span and still be drawn as one
    /// mark, once a lane holds more marks of that kind than its line has cells this wide.
    static let markCell = 12.0

    /// The kinds of which a lane holds more marks than the time axis, `width` pixels long,
    /// can show apart: a lane merging tens of thousands of subscriptions would otherwise
    /// draw tens of thousands of marks on top of each other.
    private func crowdedKinds(_ marks: [MarbleFigure.Mark], width: Double) -> Set<String> {
        var counts: [String: Int] = [:]
        for mark in marks { counts[Self.kindName(mark), default: 0] += 1 }
        let room = max(1, Int(width / Self.markCell))
        return Set(counts.filter { $0.value > room }.keys)
    }

    /// The marks to draw, in the lane's order, as runs of positions in `marks`: a mark of a
    /// crowded kind joins the run of the first mark of its kind and node no more than a
    /// cell to its left (marks drawn on top of each other at the figure's resolution); every
    /// other mark is a run of its own.
    private func markRuns(_ marks: [MarbleFigure.Mark], crowded: Set<String>, scale: TimeScale) -> [[Int]] {
        var runs: [[Int]] = []
        /// For each crowded kind and node, its open run: where it is in `runs` and its first x.
        var open: [String: (run: Int, x: Double)] = [:]
        let order = crowded.isEmpty ? Array(marks.indices)
            : marks.indices.sorted { (marks[$0].time, $0) < (marks[$1].time, $1) }
        for index in order {
            let mark = marks[index]
            let kind = Self.kindName(mark)
            guard crowded.contains(kind) else {
                runs.append([index])
                continue
            }
            let key = "\(kind) \(mark.node.map { String($0) } ?? "")"
            let x = scale.x(mark.time)
            if let current = open[key], x - current.x <= Self.markCell {
                runs[current.run].append(index)
            } else {
                open[key] = (runs.count, x)
                runs.append([index])
            }
        }
        return runs
    }

    /// A mark standing for several: its hover text counts them and gives their span (and
    /// the first failure's message), `data-count` their number.
    private func counted(_ item: Scene.Item, _ marks: [MarbleFigure.Mark]) -> Scene.Item {
        guard case let .group(kind, _, data, items) = item, let first = marks.first, let last = marks.last else { return item }
        var title = "\(kind) \u{00D7}\(marks.count) from \(TimeFormat.duration(first.time)) to \(TimeFormat.duration(last.time))"
        if case let .ended(.failed(_, message)) = first.kind { title += ", the first: \(TextSafety.printable(message))" }
        var counts = data
        counts["count"] = String(marks.count)
        return .group(kind: kind, title: title, data: counts, items: items)
    }

    /// Marbles closer than a marble's width are drawn as one, so dense stretches stay
    /// readable: a group shows its values when they are short, else its count. Returns the
    /// marbles in time order (the lane's own array when it is in order already, as a trace's
    /// lanes are) and each group as a range of them, so a lane of millions is not copied twice.
    private func groups(_ marbles: [MarbleFigure.Marble], scale: TimeScale) -> ([MarbleFigure.Marble], [Range<Int>]) {
        let inOrder = marbles.indices.dropFirst().allSatisfy { marbles[$0 - 1].time <= marbles[$0].time }
        let sorted = inOrder ? marbles
            : marbles.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        var result: [Range<Int>] = []
        var firstX = -Double.infinity
        for (index, marble) in sorted.enumerated() {
            let x = scale.x(marble.time)
            // A group (two or more) reaches a little further than a marble's width, so that
            // the count it shows has room to be read.
            let reach = (result.last?.count ?? 0) > 1 ? Self.groupReach : 2 * Self.radius
            if x - firstX < reach, !result.isEmpty {
                result[result.count - 1] = result[result.count - 1].lowerBound..<(index + 1)
            } else {
                result.append(index..<(index + 1))
                firstX = x
            }
        }
        return (sorted, result)
    }

    private mutating func marble(_ group: [MarbleFigure.Marble], x: Double, y: Double, radius: Double, room: Double,
                                 figure: MarbleFigure, node: String?) -> Scene.Item {
        let threads = Set(group.map(\.thread))
        let colours = threads.count == 1 ? figure.colour(ofThread: group[0].thread) : Self.mixed
        let joined = group.map { TextSafety.singleLine($0.display) }.joined(separator: ",")
        let text: String
        var font = Self.marbleFont
        // The least room either side of the text (a marble with room to spare gets 5): enough
        // to clear a circle's or a pill's rounded end at the text's height, so that a cut
        // value keeps a character in the smallest marble; a count, in a smaller font, needs
        // less, and is then never cut in a group's least room.
        var padding = 3.0
        if group.count == 1 || joined.count <= 7 {
            text = joined
        } else {
            text = group.count < 1_000 ? "\u{00D7}\(group.count)" : "\u{00D7}\(group.count / 1_000)k"
            font = Self.countFont
            padding = 2
        }
        // Sized by the text as the PNG draws it: an estimate let `[#1 Harbour, #…` run into
        // its marble's edge.
        let shown = fitted(text, font: font, width: max(2 * radius, room), padding: padding)
        let width = max(2 * radius, min(TextMeasure.width(shown, font: font) + 10, room))
        // A value cut, or several merged, gets a number and a line in the values legend.
        var number: Int?
        if shown != joined {
            let text = note(group)
            if let index = notes.firstIndex(of: text) {
                number = index + 1
            } else {
                notes.append(text)
                number = notes.count
            }
        }
        let shape: Scene.Item
        let fill = Scene.Paint(hex: colours.fill)
        let outline = Scene.Stroke(paint: .init(hex: "#333333"), width: 1)
        if width <= 2 * radius + 0.5 {
            shape = .circle(center: .init(x: x, y: y), radius: radius, fill: fill, stroke: outline)
        } else {
            shape = .rect(origin: .init(x: x - width / 2, y: y - radius), width: width, height: 2 * radius,
                          corner: radius, fill: fill, stroke: outline)
        }
        // Only causal arrows look marbles up: a position per marble costs tens of bytes each.
        if !figure.causes.isEmpty {
            for marble in group { positions[marble.id] = (x, y, radius) }
        }
        var data = ["time": String(group[0].time), "count": String(group.count)]
        if threads.count == 1, figure.threads.indices.contains(group[0].thread) {
            data["thread"] = TextSafety.singleLine(figure.threads[group[0].thread])
        }
        if let node { data["node"] = node }
        var items: [Scene.Item] = [
            shape,
            .text(shown, at: .init(x: x, y: y + 4.2), font: font, anchor: .middle, fill: .init(hex: colours.text)),
        ]
        if let number {
            data["note"] = String(number)
            items.append(.text(String(number), at: .init(x: x + width / 2 - 1, y: y - radius - 1), font: Self.noteFont,
                               anchor: .middle, fill: Self.grey))
        }
        let hops = group.contains { $0.hoppedFrom != nil }
        return .group(kind: hops ? "marble value hop" : "marble value", title: hover(group, figure: figure), data: data, items: items)
    }

    /// A values legend line: the whole value of a cut marble; the count, time span and
    /// values of a merged one.
    private func note(_ group: [MarbleFigure.Marble]) -> String {
        guard group.count > 1 else { return TextSafety.singleLine(group[0].full) }
        let span = "\(TimeFormat.duration(group[0].time))\u{2013}\(TimeFormat.duration(group[group.count - 1].time))"
        let listed = group.prefix(Self.maxNoteValues).map { TextSafety.singleLine($0.full) }.joined(separator: ", ")
        let more = group.count > Self.maxNoteValues ? ", \u{2026} and \(group.count - Self.maxNoteValues) more" : ""
        return "\u{00D7}\(group.count) at \(span): \(listed)\(more)"
    }

    private func hover(_ group: [MarbleFigure.Marble], figure: MarbleFigure) -> String {
        func describe(_ marble: MarbleFigure.Marble) -> String {
            let thread = figure.threads.indices.contains(marble.thread) ? " on \(figure.threads[marble.thread])" : ""
            let hop = marble.hoppedFrom.flatMap { figure.threads.indices.contains($0) ? ", hopped from \(figure.threads[$0])" : nil } ?? ""
            return "\(TextSafety.printable(marble.full)) (at \(TimeFormat.duration(marble.time))\(thread)\(hop))"
        }
        if group.count == 1 { return describe(group[0]) }
        let listed = group.prefix(20).map(describe)
        let more = group.count > 20 ? ["\u{2026} and \(group.count - 20) more"] : []
        return (["\(group.count) values:"] + listed + more).joined(separator: "\n")
    }

    /// The text, measured as the PNG draws it with `padding` pixels either side, whole when it
    /// fits `width`, else its longest cut (ending in `…`) that does, else the ellipsis alone. A
    /// cut's width grows with its length, so the longest fitting one is found by halving: a
    /// value of 20,000 characters costs a few measures, not one per character it loses.
    private func fitted(_ text: String, font: Scene.Font, width: Double, padding: Double = 4) -> String {
        func fits(_ shown: String) -> Bool { TextMeasure.width(shown, font: font) + 2 * padding <= width }
        guard !fits(text) else { return text }
        let count = text.count
        guard count > 2, fits(TextSafety.truncated(text, to: 2)) else { return "\u{2026}" }
        var low = 2, high = count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if fits(TextSafety.truncated(text, to: middle)) { low = middle } else { high = middle - 1 }
        }
        return TextSafety.truncated(text, to: low)
    }

    private mutating func subscribedMark(at time: Int64, x: Double, y: Double, node: String?) -> Scene.Item {
        symbols.insert("subscribed")
        return .group(kind: "subscribed", title: "subscribed at \(TimeFormat.duration(time))", data: node.map { ["node": $0] } ?? [:], items: [
            .path([.init(x: x - 5, y: y + 13), .init(x: x, y: y + 6), .init(x: x + 5, y: y + 13)],
                  closed: false, fill: .none, stroke: .init(paint: Self.ink, width: 1.5)),
        ])
    }

    private mutating func endMark(_ end: MarbleFigure.End, x: Double, y: Double, half: Double, node: String?) -> Scene.Item {
        let data = node.map { ["node": $0] } ?? [:]
        switch end {
        case let .completed(at):
            symbols.insert("completed")
            return .group(kind: "completed", title: "completed at \(TimeFormat.duration(at))", data: data, items: [
                .line(from: .init(x: x, y: y - half), to: .init(x: x, y: y + half), stroke: .init(paint: Self.ink, width: 2.5)),
            ])
        case let .failed(at, message):
            symbols.insert("failed")
            let d = half * 0.6
            let stroke = Scene.Stroke(paint: Self.red, width: 3)
            return .group(kind: "failed", title: "failed at \(TimeFormat.duration(at)): \(TextSafety.printable(message))",
                          data: data, items: [
                              .line(from: .init(x: x - d, y: y - d), to: .init(x: x + d, y: y + d), stroke: stroke),
                              .line(from: .init(x: x - d, y: y + d), to: .init(x: x + d, y: y - d), stroke: stroke),
                          ])
        case let .interrupted(at):
            symbols.insert("interrupted")
            let stroke = Scene.Stroke(paint: Self.grey, width: 2)
            return .group(kind: "interrupted", title: "interrupted at \(TimeFormat.duration(at))", data: data, items: [
                .line(from: .init(x: x - 2.5, y: y - half * 0.8), to: .init(x: x - 2.5, y: y + half * 0.8), stroke: stroke),
                .line(from: .init(x: x + 2.5, y: y - half * 0.8), to: .init(x: x + 2.5, y: y + half * 0.8), stroke: stroke),
            ])
        case let .disposed(at):
            symbols.insert("disposed")
            return .group(kind: "disposed", title: "disposed at \(TimeFormat.duration(at))", data: data, items: [
                .line(from: .init(x: x, y: y - half * 0.8), to: .init(x: x, y: y + half * 0.8),
                      stroke: .init(paint: Self.grey, width: 1.5, dash: [3, 2])),
            ])
        }
    }

    private mutating func breakMark(x: Double, y: Double, title: String? = nil) -> Scene.Item {
        symbols.insert("gap")
        let stroke = Scene.Stroke(paint: Self.grey, width: 1.2)
        return .group(kind: "gap", title: title, data: [:], items: [
            .rect(origin: .init(x: x - 6, y: y - 3), width: 12, height: 6, corner: 0, fill: .init(hex: "#ffffff"), stroke: nil),
            .line(from: .init(x: x - 7, y: y + 6), to: .init(x: x - 1, y: y - 6), stroke: stroke),
            .line(from: .init(x: x + 1, y: y + 6), to: .init(x: x + 7, y: y - 6), stroke: stroke),
        ])
    }

    // MARK: Arrows, axis, legend

    private func causalArrows(_ causes: [MarbleFigure.Cause]) -> [Scene.Item] {
        var items: [Scene.Item] = []
        let paint = Scene.Paint(hex: "#8c6bb1", opacity: 0.7)
        for cause in causes {
            guard let from = positions[cause.from], let to = positions[cause.to], from.y != to.y else { continue }
            let down = to.y > from.y
            let start = Scene.Point(x: from.x, y: from.y + (down ? from.r : -from.r))
            let end = Scene.Point(x: to.x, y: to.y + (down ? -to.r : to.r))
            let length = max(1, ((end.x - start.x) * (end.x - start.x) + (end.y - start.y) * (end.y - start.y)).squareRoot())
            let ux = (end.x - start.x) / length, uy = (end.y - start.y) / length
            let base = Scene.Point(x: end.x - 7 * ux, y: end.y - 7 * uy)
            items.append(.group(kind: "cause", title: nil, data: ["from": String(cause.from), "to": String(cause.to)], items: [
                .line(from: start, to: base, stroke: .init(paint: paint, width: 1.1)),
                .path([.init(x: base.x - 3.5 * uy, y: base.y + 3.5 * ux), end, .init(x: base.x + 3.5 * uy, y: base.y - 3.5 * ux)],
                      closed: true, fill: paint, stroke: nil),
            ]))
        }
        return items
    }

    private mutating func axis(_ scale: TimeScale, y: Double, from start: Double, to plotEnd: Double) -> Scene.Item {
        let (step, ticks) = scale.ticks(minimum: 70)
        let (unit, decimals) = TimeFormat.Unit.axis(step: step, largest: ticks.map(\.magnitude).max() ?? 0)
        let stroke = Scene.Stroke(paint: Self.grey, width: 1)
        var items: [Scene.Item] = [.line(from: .init(x: start, y: y), to: .init(x: plotEnd, y: y), stroke: stroke)]
        // The idle time a break cuts is written in the row of the tick labels, under its mark
        // (above the axis it ran into the mark and the last lane's marbles); a tick whose
        // label would come within `axisGap` of it or of a mark is left out. A break's label
        // that would touch the one before it is left out too: the mark's hover text still
        // has the time.
        var taken: [ClosedRange<Double>] = []
        var lastIdle = -Double.infinity
        for gap in scale.breaks {
            let idle = TimeFormat.duration(gap.to - gap.from)
            items.append(breakMark(x: gap.x, y: y, title: "idle time cut: \(idle), \(TimeFormat.duration(gap.from))\u{2013}\(TimeFormat.duration(gap.to))"))
            let text = "\u{2026}\(idle)"
            let half = max(TextMeasure.width(text, font: Self.breakFont) / 2, 7)
            guard lastIdle + Self.axisGap <= gap.x - half else {
                taken.append((gap.x - 7)...(gap.x + 7))
                continue
            }
            lastIdle = gap.x + half
            taken.append((gap.x - half)...(gap.x + half))
            items.append(.text(text, at: .init(x: gap.x, y: y + 17), font: Self.breakFont, anchor: .middle, fill: Self.grey))
        }
        var lastLabel = -Double.infinity
        for tick in ticks {
            let x = scale.x(tick)
            guard x - lastLabel >= 40 else { continue }
            let label = TimeFormat.fixed(tick, unit: unit, decimals: decimals)
            let half = TextMeasure.width(label, font: Self.smallFont) / 2
            guard !taken.contains(where: { $0.lowerBound - Self.axisGap < x + half && x - half < $0.upperBound + Self.axisGap }) else { continue }
            lastLabel = x
            items.append(.line(from: .init(x: x, y: y), to: .init(x: x, y: y + 5), stroke: stroke))
            items.append(.text(label, at: .init(x: x, y: y + 17), font: Self.smallFont, anchor: .middle, fill: Self.grey))
        }
        items.append(.text("time (\(unit.name))", at: .init(x: plotEnd, y: y + 32), font: Self.smallFont,
                           anchor: .end, fill: Self.grey))
        return .group(kind: "axis", title: nil, data: ["unit": unit.name], items: items)
    }

    private static let symbolOrder = ["subscribed", "completed", "failed", "interrupted", "disposed", "gap"]
    private static let symbolNames = [
        "subscribed": "subscribed", "completed": "completed", "failed": "failed",
        "interrupted": "interrupted", "disposed": "disposed", "gap": "idle time cut",
    ]

    /// Under the legend, a numbered line per marble cut or merged (like the text output's
    /// letters), each cut to the figure's width: the values a PNG cannot show on hover.
    private func valuesLegend(y: Double, width: Double) -> ([Scene.Item], Double) {
        guard !notes.isEmpty else { return ([], 0) }
        var rows: [Scene.Item] = [.text("values", at: .init(x: Self.margin, y: y + 12), font: .init(size: 11, bold: true),
                                        anchor: .start, fill: Self.ink)]
        var lines = notes.prefix(Self.maxNotes).enumerated().map { ("\($0.offset + 1)", $0.element) }
        if notes.count > Self.maxNotes { lines.append(("", "\u{2026} and \(notes.count - Self.maxNotes) more (all on hover in the SVG)")) }
        for (index, line) in lines.enumerated() {
            let lineY = y + 12 + Double(index) * 16
            rows.append(.text(line.0, at: .init(x: Self.margin + 70, y: lineY), font: Self.noteFont, anchor: .end, fill: Self.grey))
            rows.append(.text(fitted(line.1, font: Self.smallFont, width: max(120, width - 70)),
                              at: .init(x: Self.margin + 78, y: lineY), font: Self.smallFont, anchor: .start, fill: Self.ink))
        }
        return ([.group(kind: "values", title: nil, data: [:], items: rows)], Double(lines.count) * 16 + 8)
    }

    private func legendEntries(_ threads: [String]) -> (threads: [(String, Double)], symbols: [String]) {
        let entries = threads.map { name -> (String, Double) in
            let text = TextSafety.truncated(TextSafety.singleLine(name), to: 30)
            return (text, Scene.textWidth(text, font: Self.smallFont) + 34)
        }
        return (entries, Self.symbolOrder.filter { symbols.contains($0) })
    }

    private func legendWidth(_ threads: [String]) -> Double {
        let (entries, symbols) = legendEntries(threads)
        let threadWidth = entries.reduce(70) { $0 + $1.1 }
        let symbolWidth = symbols.reduce(70) { $0 + Scene.textWidth(Self.symbolNames[$1] ?? $1, font: Self.smallFont) + 40 }
        return min(Double(1600), max(threadWidth, symbolWidth))
    }

    private mutating func legend(_ figure: MarbleFigure, y: Double) -> ([Scene.Item], Double) {
        let (entries, symbols) = legendEntries(figure.threads)
        var items: [Scene.Item] = []
        var height = 0.0
        if !entries.isEmpty {
            var x = Self.margin
            var row: [Scene.Item] = [.text("threads", at: .init(x: x, y: y + 12), font: .init(size: 11, bold: true),
                                           anchor: .start, fill: Self.ink)]
            x += 62
            for (index, entry) in entries.enumerated() {
                let colours = figure.colour(ofThread: index)
                row.append(.group(kind: "thread", title: nil, data: ["name": entry.0], items: [
                    .circle(center: .init(x: x + 7, y: y + 8), radius: 7, fill: .init(hex: colours.fill),
                            stroke: .init(paint: .init(hex: "#333333"), width: 1)),
                    .text(entry.0, at: .init(x: x + 19, y: y + 12), font: Self.smallFont, anchor: .start, fill: Self.ink),
                ]))
                x += entry.1
            }
            items.append(.group(kind: "legend", title: nil, data: [:], items: row))
            height += 24
        }
        if !symbols.isEmpty {
            var x = Self.margin + 62
            let y = y + height
            var row: [Scene.Item] = [.text("marks", at: .init(x: Self.margin, y: y + 12), font: .init(size: 11, bold: true),
                                           anchor: .start, fill: Self.ink)]
            for symbol in symbols {
                let glyph: Scene.Item
                switch symbol {
                case "subscribed":
                    glyph = .path([.init(x: x + 2, y: y + 13), .init(x: x + 7, y: y + 6), .init(x: x + 12, y: y + 13)],
                                  closed: false, fill: .none, stroke: .init(paint: Self.ink, width: 1.5))
                case "completed":
                    glyph = .line(from: .init(x: x + 7, y: y + 1), to: .init(x: x + 7, y: y + 15), stroke: .init(paint: Self.ink, width: 2.5))
                case "failed":
                    glyph = .group(kind: "glyph", title: nil, data: [:], items: [
                        .line(from: .init(x: x + 2, y: y + 3), to: .init(x: x + 12, y: y + 13), stroke: .init(paint: Self.red, width: 3)),
                        .line(from: .init(x: x + 2, y: y + 13), to: .init(x: x + 12, y: y + 3), stroke: .init(paint: Self.red, width: 3)),
                    ])
                case "interrupted":
                    glyph = .group(kind: "glyph", title: nil, data: [:], items: [
                        .line(from: .init(x: x + 4.5, y: y + 2), to: .init(x: x + 4.5, y: y + 14), stroke: .init(paint: Self.grey, width: 2)),
                        .line(from: .init(x: x + 9.5, y: y + 2), to: .init(x: x + 9.5, y: y + 14), stroke: .init(paint: Self.grey, width: 2)),
                    ])
                case "disposed":
                    glyph = .line(from: .init(x: x + 7, y: y + 2), to: .init(x: x + 7, y: y + 14),
                                  stroke: .init(paint: Self.grey, width: 1.5, dash: [3, 2]))
                default:
                    glyph = .group(kind: "glyph", title: nil, data: [:], items: [
                        .line(from: .init(x: x, y: y + 14), to: .init(x: x + 6, y: y + 2), stroke: .init(paint: Self.grey, width: 1.2)),
                        .line(from: .init(x: x + 8, y: y + 14), to: .init(x: x + 14, y: y + 2), stroke: .init(paint: Self.grey, width: 1.2)),
                    ])
                }
                let name = Self.symbolNames[symbol] ?? symbol
                row.append(glyph)
                row.append(.text(name, at: .init(x: x + 19, y: y + 12), font: Self.smallFont, anchor: .start, fill: Self.ink))
                x += Scene.textWidth(name, font: Self.smallFont) + 40
            }
            items.append(.group(kind: "key", title: nil, data: [:], items: row))
            height += 24
        }
        return (items, height)
    }
}
