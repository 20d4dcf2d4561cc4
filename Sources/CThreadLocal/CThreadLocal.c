// The variables the header declares, defined once for the process.
#include "CThreadLocal.h"

__thread void *marbles_probe_context __attribute__((tls_model("initial-exec"))) = 0;
uintptr_t marbles_probe_slot = 0;
uint64_t marbles_probe_epoch = 1;

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

int marbles_membarrier(void) {
    // 0: not tried yet, 1: registered, -1: not available. Only the thread that frees probe
    // sets calls this, under their lock.
    static int state = 0;
    if (state == 0) {
        long commands = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
        state = commands >= 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED)
            && syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ? 1 : -1;
    }
    if (state != 1) return -1;
    return syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0 ? 0 : -1;
}
#else
int marbles_membarrier(void) { return -1; }
#endif
