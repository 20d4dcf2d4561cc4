import Spec
import XCTest

/// Runs a spec and returns each derived stream's events as a compact marble-ish summary.
func play(_ spec: String, file: StaticString = #filePath, line: UInt = #line) throws -> SpecResult {
    try SpecDocument.parse(spec, file: "test.marbles").run()
}

/// `t:kind:value` per event, times in ms, for compact assertions.
func events(_ result: SpecResult, _ name: String) -> [String] {
    (result.stream(name)?.events ?? []).map { event in
        let time = SpecResult.Event.milliseconds(event.time)
        switch event.kind {
        case .next: return "\(time):\(event.value?.json ?? "")"
        case .error: return "\(time):#\(event.value?.json ?? "")"
        case .complete: return "\(time):|"
        }
    }
}

/// The error a broken spec reports.
func specError(_ spec: String) -> SpecError? {
    do {
        _ = try SpecDocument.parse(spec, file: "test.marbles").run()
        return nil
    } catch {
        return error as? SpecError
    }
}

extension SpecResult.Event {
    static func milliseconds(_ nanoseconds: Int64) -> String {
        nanoseconds % 1_000_000 == 0 ? String(nanoseconds / 1_000_000) : String(Double(nanoseconds) / 1e6)
    }
}
