// The counter is read through the header's inline functions; SwiftPM needs a source file.
#include "CTimestamp.h"
