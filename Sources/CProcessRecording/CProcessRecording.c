#include "CProcessRecording.h"
#include <stdlib.h>

// Defined in Swift (Recording's ProcessRecording.swift, @_cdecl). Weak: a binary that links this
// target without Recording starts nothing.
extern void marbles_process_recording_start(void) __attribute__((weak));

void marbles_process_recording_linked(void) {}

// Runs when the program is loaded, before main: a program started with MARBLES_TRACE set
// records every Signals pipeline in it, whatever its own code does. Only when the variable is
// set does it call into Swift; otherwise it costs one getenv.
__attribute__((constructor)) static void marbles_process_recording_constructor(void) {
    const char *path = getenv("MARBLES_TRACE");
    if (path == NULL || path[0] == '\0') return;
    if (marbles_process_recording_start) marbles_process_recording_start();
}
