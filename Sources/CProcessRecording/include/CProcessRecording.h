#ifndef MARBLES_CPROCESSRECORDING_H
#define MARBLES_CPROCESSRECORDING_H

/// Nothing to call: this target's only work is a load-time constructor that starts the
/// recording `MARBLES_TRACE` asks for (see ProcessRecording.swift in Recording).
void marbles_process_recording_linked(void);

#endif
