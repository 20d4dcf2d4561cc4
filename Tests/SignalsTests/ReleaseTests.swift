import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

/// Pipelines of these operators, once completed or disposed, let go of what they captured.
final class ReleaseTests: XCTestCase {
    private final class Resource {}

    func testCompletedSignalPipelineReleasesItsClosuresAndSignals() {
        let (signal, input) = Signal<Int, MarbleError>.pipe()
        weak var resource: Resource?
        weak var last: Signal<Int, Never>?
        do {
            let captured = Resource()
            resource = captured
            let pipeline = signal
                .on(value: { _ in _ = captured })
                .flatMapError { _ in SignalProducer<Int, MarbleError>(value: 0) }
                .then(SignalProducer<Int, MarbleError>(value: 1))
                .materialize().dematerialize()
                .catchTo(SignalProducer<Int, Never>.empty)
            pipeline.observeValues { _ in _ = captured }
            last = pipeline
        }
        XCTAssertNotNil(resource, "a running pipeline keeps its closures")
        input.send(value: 1)
        input.sendCompleted()
        XCTAssertNil(last)
        XCTAssertNil(resource)
    }

    func testDisposedProducerPipelineReleasesItsClosures() {
        let scheduler = TestScheduler()
        weak var resource: Resource?
        var disposable: Disposable?
        do {
            let captured = Resource()
            resource = captured
            disposable = scheduler.cold("-a-#")
                .retry(upTo: 3, interval: 0.01, on: scheduler)
                .on(value: { _ in _ = captured })
                .flatMapError { _ in scheduler.cold("--x|") }
                .prefix(value: "p")
                .replayLazily(upTo: 2)
                .publish().autoconnect()
                .startWithValues { _ in _ = captured }
        }
        scheduler.advance(toNanoseconds: 5 * MarbleNotation.millisecond)
        XCTAssertNotNil(resource)
        disposable?.dispose()
        disposable = nil
        scheduler.run()
        XCTAssertNil(resource)
        XCTAssertTrue(scheduler.isEmpty)
    }

    func testReleasedPropertyAndBindingLetGo() {
        weak var weakTarget: MutableProperty<Int>?
        weak var resource: Resource?
        let (signal, input) = Signal<Int, Never>.pipe()
        do {
            let captured = Resource()
            resource = captured
            let target = MutableProperty(0)
            weakTarget = target
            target <~ signal.map { value -> Int in
                _ = captured
                return value
            }
            input.send(value: 1)
            XCTAssertEqual(target.value, 1)
        }
        XCTAssertNil(weakTarget)
        XCTAssertNil(resource)
    }
}
