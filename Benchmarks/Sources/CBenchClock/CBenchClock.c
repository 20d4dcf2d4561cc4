// The benchmark's clock shim is header-only (CBenchClock.h); a C target needs one source file.
#include "CBenchClock.h"
