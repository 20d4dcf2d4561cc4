import Locks

/// Runs an action so that asking for it again from inside it, however deep, does not nest:
/// the run in progress on the stack runs it again once it returns. What keeps resubscription
/// (`retry` of a producer that fails at once) in constant stack, however many times it goes
/// round: each round returns before the next begins.
///
/// Asked for from another thread while a run is in progress, the action runs again on the
/// thread running it, once its current round returns; asked for twice meanwhile, it runs
/// once more (each round of a resubscription starts what the next failure asks for).
final class Trampoline: @unchecked Sendable {  // `running` and `again` only under `lock`
    private let lock = Lock()
    private var running = false
    private var again = false

    /// Runs `action` now, or after the round in progress if one is.
    func run(_ action: () -> Void) {
        let first: Bool = lock.withLock {
            if running {
                again = true
                return false
            }
            running = true
            return true
        }
        guard first else { return }
        repeat {
            action()
        } while lock.withLock({
            if again {
                again = false
                return true
            }
            running = false
            return false
        })
    }
}
