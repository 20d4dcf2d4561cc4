// The header declares a variable of the Swift runtime; a C target needs one source file.
#include "CConcurrencyHooks.h"
