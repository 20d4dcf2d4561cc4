#ifndef MARBLES_CCONCURRENCYHOOKS_H
#define MARBLES_CCONCURRENCYHOOKS_H

/// The Swift concurrency runtime's hook on the global executor, which Swift cannot declare
/// itself: a variable of libswift_Concurrency holding a function with the Swift calling
/// convention. While it is set, every job the runtime would hand the global concurrent
/// executor (a task started, a continuation resumed, a default actor with work) is passed to
/// it instead, with the runtime's own enqueue, which it may call or not.

/// A job of the runtime (`UnownedJob` in Swift), opaque here.
typedef struct MarblesConcurrencyJob *MarblesJobRef;

/// The runtime's own enqueue on the global executor.
typedef __attribute__((swiftcall)) void (*MarblesEnqueueGlobalOriginal)(MarblesJobRef _Nonnull job);

/// Set, it takes every job enqueued on the global executor; null, the runtime enqueues them.
extern __attribute__((swift_attr("nonisolated(unsafe)"))) __attribute__((swiftcall))
void (* _Nullable swift_task_enqueueGlobal_hook)(MarblesJobRef _Nonnull job,
                                                 MarblesEnqueueGlobalOriginal _Nonnull original);

#endif
