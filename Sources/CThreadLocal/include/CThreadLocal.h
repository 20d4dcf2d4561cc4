#ifndef MARBLES_CTHREADLOCAL_H
#define MARBLES_CTHREADLOCAL_H

#include <stdint.h>

/// The calling thread's probe context (a `ProbeContext`, unretained), or null before the
/// thread made one or after it was let go of. A C thread-local variable: read in one or two
/// instructions, where Swift, which has no thread-local variables, pays a
/// `pthread_getspecific` call. The `pthread` key stays what keeps the context alive and lets
/// go of it when the thread ends; this is a faster way to the same object.
extern __thread void *marbles_probe_context __attribute__((tls_model("initial-exec")));

static inline void *marbles_probe_context_get(void) {
    return marbles_probe_context;
}

static inline void marbles_probe_context_set(void *context) {
    marbles_probe_context = context;
}

/// The attached probe set (`Instrumentation.ProbeSet`, unretained) or 0, and the count of its
/// changes (`Instrumentation.epoch`, from 1): read by every send, attached or not. C globals, so
/// that a read is one load: a Swift global of another module is reached through its lazy
/// initialiser's accessor, a call at every read. Only through the functions below.
extern uintptr_t marbles_probe_slot;
extern uint64_t marbles_probe_epoch;

static inline uintptr_t marbles_probe_slot_load_relaxed(void) {
    return __atomic_load_n(&marbles_probe_slot, __ATOMIC_RELAXED);
}

static inline uintptr_t marbles_probe_slot_load(void) {
    return __atomic_load_n(&marbles_probe_slot, __ATOMIC_SEQ_CST);
}

static inline void marbles_probe_slot_store(uintptr_t set) {
    __atomic_store_n(&marbles_probe_slot, set, __ATOMIC_SEQ_CST);
}

static inline uint64_t marbles_probe_epoch_load_acquire(void) {
    return __atomic_load_n(&marbles_probe_epoch, __ATOMIC_ACQUIRE);
}

static inline uint64_t marbles_probe_epoch_load(void) {
    return __atomic_load_n(&marbles_probe_epoch, __ATOMIC_SEQ_CST);
}

static inline void marbles_probe_epoch_increment(void) {
    __atomic_add_fetch(&marbles_probe_epoch, 1, __ATOMIC_SEQ_CST);
}

/// Keeps the compiler from moving memory accesses across it; no instruction. What a borrow of
/// the probe set puts between announcing itself and reading the set, where the other side,
/// which frees sets, pays for the processor's ordering with `marbles_membarrier`.
static inline void marbles_compiler_barrier(void) {
    __asm__ __volatile__("" ::: "memory");
}

/// Makes every thread of the process that is running pass a full memory barrier before this
/// returns (Linux `membarrier`, private expedited; registered on the first call). Returns 0,
/// or -1 where the system offers none: the caller must then not rely on it.
int marbles_membarrier(void);

#endif
