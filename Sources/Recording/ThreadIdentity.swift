import Foundation
import Synchronization
#if canImport(Darwin)
import Darwin
import Dispatch
#elseif os(Linux)
import Glibc
import CDispatch
#endif

/// A thread as the trace names it.
struct ThreadKey: Hashable {
    let os: UInt64
    let name: String
    let scheduler: String?
}

/// The label of the dispatch queue whose work item runs on the current thread, or an empty
/// string outside any queue.
@inline(__always) func currentQueueLabel() -> UnsafePointer<CChar> {
    #if canImport(Darwin)
    __dispatch_queue_get_label(nil)
    #else
    dispatch_queue_get_label(nil)
    #endif
}

/// The current thread's OS identity, looked up once per thread, and its logical name.
///
/// The logical name is `main` on the main thread; else the label of the dispatch queue whose
/// work runs on it, so that every worker thread serving a queue has the queue's name (a
/// dispatch worker's own name says nothing: on Linux it is like `-qos.overcommit`); else the
/// OS thread's name; and `thread-TID` when that is empty or begins with `-`.
final class ThreadInfo {
    let tid: UInt64
    let isMain: Bool
    /// Unique in the process (a thread's id or address may be reused after it ends).
    let serial = ThreadInfo.serials.add(1, ordering: .relaxed).newValue
    private static let serials = Atomic<UInt64>(0)
    private let osName: String
    /// What the thread was last numbered as, behind a pointer: a class's stored `var`s are
    /// checked for exclusive access at run time on every access, a pointer's pointee is not.
    /// Only this thread touches it.
    let cache: UnsafeMutablePointer<Cache>
    struct Cache {
        /// The `serial` of the recorder that last numbered this thread, the scheduler name and
        /// queue label it was numbered under, and the id it got.
        var recorder: UInt64 = 0
        var scheduler: String?
        var label: [CChar] = [0]
        var id: UInt64 = 0
    }

    private init() {
        let (tid, osName) = Self.osIdentity()
        self.tid = tid
        self.osName = osName
        isMain = Thread.isMainThread
        cache = .allocate(capacity: 1)
        cache.initialize(to: Cache())
    }

    deinit {
        cache.deinitialize(count: 1)
        cache.deallocate()
    }

    /// Whether the cached id was given under `label` (compared by content: a freed queue's
    /// label may be reused at the same address by another queue).
    @inline(__always) func isCached(label: UnsafePointer<CChar>) -> Bool {
        cache.pointee.label.withUnsafeBufferPointer { strcmp($0.baseAddress!, label) == 0 }
    }

    func cache(label: UnsafePointer<CChar>) {
        cache.pointee.label = Array(UnsafeBufferPointer(start: label, count: strlen(label) + 1))
    }

    /// The logical name while work of the queue labelled `label` runs.
    func name(queueLabel label: UnsafePointer<CChar>) -> String {
        if isMain { return "main" }
        let queue = String(cString: label)
        if !queue.isEmpty && !queue.hasPrefix("-") { return queue }
        return osName.isEmpty || osName.hasPrefix("-") ? "thread-\(tid)" : osName
    }

    #if canImport(Darwin)
    private static func osIdentity() -> (tid: UInt64, name: String) {
        var tid: UInt64 = 0
        pthread_threadid_np(nil, &tid)
        var raw = [CChar](repeating: 0, count: 256)
        let name = pthread_getname_np(pthread_self(), &raw, raw.count) == 0
            ? raw.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : ""
        return (tid, name)
    }
    #elseif os(Linux)
    // Swift cannot call `gettid` or `pthread_getname_np` from Glibc (GNU extensions), so the
    // id and name come from `/proc/thread-self/stat`: "TID (NAME) ...".
    private static func osIdentity() -> (tid: UInt64, name: String) {
        let fd = open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return (0, "") }
        var raw = [UInt8](repeating: 0, count: 256)
        let count = read(fd, &raw, raw.count)
        close(fd)
        guard count > 0 else { return (0, "") }
        let text = String(decoding: raw[0..<count], as: UTF8.self)
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close else { return (0, "") }
        // The digits before the name, read without Foundation's trimming (whose first use
        // in a process looks generic types up by name: millions of instructions).
        let tid = UInt64(text[..<open].drop(while: { $0 == " " }).prefix(while: { $0 != " " })) ?? 0
        return (tid, String(text[text.index(after: open)..<close]))
    }
    #endif

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<ThreadInfo>.fromOpaque(pointer).release() }
        }
        return key
    }()

    static var current: ThreadInfo {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ThreadInfo>.fromOpaque(pointer).takeUnretainedValue()
        }
        let info = ThreadInfo()
        pthread_setspecific(key, Unmanaged.passRetained(info).toOpaque())
        return info
    }

    /// Runs `body` with this thread's `ThreadInfo`, which the thread keeps alive: without
    /// the retain and release of `current`.
    @inline(__always) static func withCurrent<R>(_ body: (ThreadInfo) -> R) -> R {
        guard let pointer = pthread_getspecific(key) else { return body(current) }
        return Unmanaged<ThreadInfo>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }
}
