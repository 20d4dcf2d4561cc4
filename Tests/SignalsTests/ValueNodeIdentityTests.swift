import Foundation
import Signals
import XCTest

/// A producer or property made from a value is its call site's node, whatever the value: the
/// value is data, in the event it sends. (It was a node named after the first value made at
/// the call site, so a diff of two runs whose first values differed saw a changed node, and
/// making one described the value with `String(describing:)`.)
final class ValueNodeIdentityTests: XCTestCase {
    struct Upload: Error, Codable, Equatable { let file: String }

    func testAProducerOrPropertyMadePerValueIsOneNodeWithoutTheValue() {
        func answer(_ index: Int) -> SignalProducer<Upload, Never> { SignalProducer(value: Upload(file: "f\(index)")) }
        func failure(_ index: Int) -> SignalProducer<Int, Upload> { SignalProducer(error: Upload(file: "f\(index)")) }
        func constant(_ index: Int) -> Property<Int> { Property(value: index) }
        for nodes in [(0..<200).map { answer($0).node }, (0..<200).map { failure($0).node },
                      (0..<200).map { constant($0).producer.node }] {
            XCTAssertEqual(Set(nodes.map(ObjectIdentifier.init)).count, 1, nodes.first?.name ?? "")
            XCTAssertEqual(nodes.first?.parameters, "", nodes.first?.name ?? "")
        }
        // The value is still what the producer sends.
        var sent: [Upload] = []
        answer(7).startWithValues { sent.append($0) }
        XCTAssertEqual(sent, [Upload(file: "f7")])
    }
}
