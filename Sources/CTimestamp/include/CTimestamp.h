#ifndef MARBLES_CTIMESTAMP_H
#define MARBLES_CTIMESTAMP_H

#include <stdint.h>

/// Whether `marbles_timestamp_counter` reads a counter on this architecture (x86-64's
/// time-stamp counter); whether that counter keeps a constant rate is the caller's to check.
static inline int marbles_timestamp_counter_exists(void) {
#if defined(__x86_64__)
    return 1;
#else
    return 0;
#endif
}

/// The CPU's time-stamp counter (`rdtsc`, not serialising: an instruction's neighbours may
/// run on either side of the read), or 0 where there is none.
static inline uint64_t marbles_timestamp_counter(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}

#endif
