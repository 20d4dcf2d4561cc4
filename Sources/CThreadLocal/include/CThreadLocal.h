#ifndef MARBLES_CTHREADLOCAL_H
#define MARBLES_CTHREADLOCAL_H

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
