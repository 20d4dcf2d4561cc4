// The project's benchmark: `make bench` (a release build). It measures; it never asserts.
// Each part prints its own section; numbers vary with the machine and its load.

import Foundation

print("Marbles benchmark (release build, \(ProcessInfo.processInfo.activeProcessorCount) cores)\n")
TraceLogBenchmarks.run()
ReplayBenchmarks.run()
