// The witnesses are called through the header's inline functions; SwiftPM needs a source file.
#include "CValueWitnesses.h"
