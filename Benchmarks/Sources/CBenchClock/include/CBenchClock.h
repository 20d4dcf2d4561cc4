#ifndef MARBLES_BENCH_CLOCK_H
#define MARBLES_BENCH_CLOCK_H

#include <stdint.h>

/// The CPU's time-stamp counter (`rdtsc`, not serialising), as the recorder stamps a live
/// recording's ring events where the counter is usable; 0 where there is none.
static inline uint64_t bench_timestamp_counter(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}

/// Whether `bench_timestamp_counter` reads a counter on this architecture.
static inline int bench_timestamp_counter_exists(void) {
#if defined(__x86_64__)
    return 1;
#else
    return 0;
#endif
}

#endif
