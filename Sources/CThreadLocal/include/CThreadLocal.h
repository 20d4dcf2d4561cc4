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

#endif
