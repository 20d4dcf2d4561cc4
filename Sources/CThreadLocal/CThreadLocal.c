// The variable the header declares, defined once for the process.
#include "CThreadLocal.h"

__thread void *marbles_probe_context __attribute__((tls_model("initial-exec"))) = 0;
