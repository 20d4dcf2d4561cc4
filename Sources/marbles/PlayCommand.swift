import ArgumentParser
import Diagrams
import Foundation
import Replay
import Spec
import Signals
import TraceLog
import Recording

/// `marbles play SPEC`: runs a `.marbles` spec with the real operators in virtual time.
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Run a .marbles spec with the real operators in virtual time and show the streams.",
        discussion: """
        A spec declares input streams in marble notation and derives streams from them with \
        operators; every operator runs the Signals implementation on a virtual-time scheduler.

          # comment
          frame 1ms                     # one frame's duration (1ms when absent)
          hot  e1 = --a--^--b----c--|   # '^' is frame 0 of a hot stream
          cold e2 = --x--y|             # cold: runs anew for each subscriber
          values e1 = {"a": 1, "b": 2, "c": 3}
          error  e1 = "boom"            # the value of '#' ("error" when absent)
          out  = e1.map(x => x * 10).filter(x => x > 10)
          pair = combineLatest(e1, e2, (a, b) => a + b)
          sw   = e1.switchMap(v => e2.map(i => i + v))
          unsubscribe out = -------!    # when 'out' is unsubscribed

        Marbles: '-' one frame, other characters are values, '|' complete, '#' error, \
        '(ab)' same frame, '10ms ' time progression; in a marble line a comment starts at \
        ' # ' (a '#' with spaces on both sides).

        Expressions: stream names, stream("name"), lambdas (x => ..., (a, b) => ..., \
        () => ...), numbers, 'strings', true/false/null, arrays, objects, named arguments \
        (retry(count: 2, delay: 4)), + - * / %, comparisons (== and === are strict), \
        && || !, ?:, unary +, String(x), Number(x), parseInt(x). A bare number as a \
        duration means milliseconds; 20ms, 0.5s and 2m are accepted.

        RxJS operators (RxJS semantics): map, filter, scan, take, skip, \
        distinctUntilChanged, startWith, debounceTime, throttleTime(d, leading:, trailing:) or throttleTime(d, null, {leading, trailing}), \
        auditTime, sampleTime, sample, delay, merge, concat, combineLatest, zip, \
        withLatestFrom(a, b, ..., project), switchMap, mergeMap, concatMap, exhaustMap, \
        takeUntil, catchError((error, caught) => ...), retry(count, delay:) or retry({count, delay, resetOnSuccess}) (delay: ms or (error, retries) => notifier), \
        timeout(each:, first:, with:) or timeout({each, first, with}) (failing with \"TimeoutError\"), and the functions of, empty, \
        never, throwError(error or () => error), timer(due, period?) (RxJS timer: 0 after due ms, then one more every period), merge, concat, combineLatest, zip. \
        Swift names (Signals semantics): \
        throttle, debounce, delay(d, on: "name") (completion delayed too), \
        flatMap(latest|merge|concat|race|throttle, f), skipRepeats, \
        take(first:|until:), skip(first:), observe(on: "name"), withLatest(from:), \
        flatMapError, then, collect. The error of a take(until:) trigger is not \
        forwarded: that Signals operator takes triggers that cannot fail (takeUntil does). \
        Each RxJS-named operator against RxJS 7 (terminal events, multi-source forms): \
        diagrams/operators/README.md in the repository.

        Every derived stream is subscribed at frame 0 on its own, so it starts its own copy \
        of each stream it names (a chain of N named streams starts N(N+1)/2 operators). A spec \
        whose streams would start more than \(SpecDocument.operatorLimit) operators is refused before it runs; one \
        that takes more than \(SpecDocument.actionLimit) scheduled actions (a timer that never stops: add an \
        'unsubscribe' line) stops with an error.

        Output: an aligned marble diagram (inputs with a line per subscription, then the \
        derived streams, then a legend); control and bidi characters of values are shown as \
        escapes (\\u{1B}). Errors in the spec are reported as file:line:column with the line \
        and a caret; the exit status is then 2.

        \(OutputFile.helpParagraph) --trace and --draw must name different files.

        Exit status: 0 on success, 2 when the spec cannot be read or has an error (parsing \
        or running), an option is invalid, or an output (a file, standard output) cannot be \
        written.
        """
    )

    @Argument(help: "The spec file, or '-' to read standard input.")
    var spec: PathName

    @Flag(help: """
    Print JSON instead of the diagram: {"streams": {NAME: {"events": [{"t": MS, "kind": \
    "next"|"error"|"complete", "value": JSON}]}}, "subscriptions": {INPUT: [{"subscribe": \
    MS, "unsubscribe": MS|null}]}}, times in virtual milliseconds from frame 0.
    """)
    var json = false

    @Option(name: .customLong("trace"), help: ArgumentHelp(
        "Also record the run as a trace (JSON Lines, virtual clock) to this file.", valueName: "file"))
    var tracePath: PathName?

    @Option(name: .customLong("draw"), help: ArgumentHelp(
        "Also draw the run as a marble diagram to this file, from the run's trace: one lane per named stream, marbles coloured by the thread that delivered them (the spec's clock is the thread \"test\", observe(on: NAME) moves values to NAME); the extension picks the format: .svg, .png, .pdf or .txt.",
        valueName: "file"))
    var drawPath: PathName?

    @Flag(help: "With --draw: an arrow from each marble to the marbles it caused.")
    var causes = false

    @Option(help: "With --draw: a title above the figure (none when absent).", transform: textArgument)
    var title: String?

    @Flag(name: .customLong("no-cuts"), help: "With --draw: draw time linearly, every wait at its true length, without cutting out long idle gaps.")
    var noCuts = false

    func validate() throws {
        if let drawPath, MarbleDrawing.format(of: drawPath) == nil {
            throw ValidationError("\(MarbleDrawing.expected); found \(drawPath)")
        }
        if drawPath == nil && (causes || title != nil || noCuts) {
            throw ValidationError("--causes, --title and --no-cuts go with --draw FILE")
        }
    }

    func run() throws {
        let source = try InputFile(spec, allowStandardInput: true)
        let trace = try tracePath.map { try OutputFile($0, option: "--trace", inputs: [source]) }
        let drawing = try drawPath.map { try MarbleDrawing($0, inputs: [source], cuts: !noCuts) }
        try OutputFile.requireDistinct([trace, drawing?.file])
        let name = source.name
        guard let text = String(bytes: try source.contents(), encoding: .utf8) else {
            throw CLIError.file(name, "expected UTF-8 text")
        }
        let document = try SpecDocument.parse(text, file: name)
        let scheduler = TestScheduler()
        let result: SpecResult
        // What the drawing is made from: the run's trace.
        var recorded: Trace?
        // The trace goes to a pending file: a run that fails leaves an existing one as it was.
        let pendingTrace = try trace?.begin()
        if let pendingTrace {
            do {
                let recorder = try pendingTrace.recorder(clock: .virtual(scheduler))
                recorder.start()
                do {
                    result = try document.run(on: scheduler)
                } catch {
                    _ = try? recorder.stop()
                    throw error
                }
                try recorder.stop()
                if drawing != nil { recorded = try Trace(reader: TraceReader(path: pendingTrace.writingPath, name: name)) }
            } catch let error as TraceError {
                // The only trace here is the one being written.
                throw pendingTrace.failure(error.message)
            }
        } else if drawing != nil {
            var run: SpecResult?
            let bytes = try Recorder.record(virtual: scheduler) { run = try document.run(on: scheduler) }
            // The body ran to its end (else the recording threw): `run` is set.
            result = run!
            recorded = try Trace(bytes: bytes, name: name)
        } else {
            result = try document.run(on: scheduler)
        }
        let pendingDrawing = try drawing?.begin {
            try SpecFigure.make(result: result, trace: recorded ?? Trace(bytes: [], name: name), causes: causes, title: title)
        }
        try json ? Console.printJSON(result.json()) : Console.print(result.diagram())
        try pendingTrace?.commit()
        try pendingDrawing?.commit()
    }
}
