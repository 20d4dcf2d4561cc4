# Marbles — every command installs what it needs first (see README.md).
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build test tsan demo figures guide-figures bench docs clean fidelity

all: build

# libgraphviz-dev and libcairo2-dev (with pkg-config) from Debian when a C API is missing, and
# chromium when it is not installed.
deps:
	@pkg-config --exists libgvc cairo 2>/dev/null || { \
	  echo "Installing libgraphviz-dev and libcairo2-dev (Graphviz and cairo C APIs)…"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq pkg-config libgraphviz-dev libcairo2-dev; }
	@# Debian's chromium, headless, for the tests that load `marbles view` pages in a browser.
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing chromium (the browser tests of marbles view)…"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium; }

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

# The test suite under the thread sanitizer, in its own build folder.
tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	$(SWIFT) test --skip-build --disable-swift-testing --sanitize=thread --scratch-path .build-tsan

# Issue 27's soak: SEEDS fresh generated pipelines (from a seed printed at the start), each
# recorded live on real threads and in virtual time, replayed twice, diffed and drawn; every
# invariant fails the run here, including live replays that disagree (make test only counts
# those). `make fidelity SEEDS=2000 FIRST=12345` repeats a soak; MARBLES_FIDELITY_TRACES=DIR keeps
# each pipeline's traces, and MARBLES_FIDELITY_FROM=DIR replays the live ones kept there (the
# same each time) instead of running live.
SEEDS ?= 500
FIRST ?= $(shell date +%s)
fidelity: deps
	$(SWIFT) build --build-tests
	MARBLES_FIDELITY_SEEDS=$(SEEDS) MARBLES_FIDELITY_FIRST=$(FIRST) MARBLES_FIDELITY_STRICT=1 \
	  $(SWIFT) test --skip-build --disable-swift-testing --filter FidelityTests

# The tutorial scenarios run live and recorded, replayed and drawn, then a table: into
# .build/demo/ (traces/ and diagrams/ there), so a clone stays as it was checked out. Only
# `make figures` rewrites committed files; `marbles demo` with no --root refreshes the
# committed recordings themselves.
demo: deps
	$(SWIFT) run marbles demo --root .build/demo

# The benchmark (BENCHMARKS.md): the package in Benchmarks/, which depends on this one by
# path as a user's app would, built in release with no extra flags in its own build folder
# (so the debug build stays), then run; the machine's load average is printed before and
# after, since the machine may be shared. It measures; it never asserts. BENCH_FLAGS passes
# options (`make bench BENCH_FLAGS="--only core --runs 9"`). The memory section runs the
# release `marbles` tool's verbs on a big trace, each as a child process.
BENCH_FLAGS ?=
bench: deps
	$(SWIFT) build -c release --package-path Benchmarks --scratch-path .build-bench
	$(SWIFT) build -c release --product marbles
	@echo "load average at start: $$(cut -d ' ' -f 1-3 /proc/loadavg)"
	.build-bench/release/marbles-bench $(BENCH_FLAGS)
	@echo "load average at end: $$(cut -d ' ' -f 1-3 /proc/loadavg)"

# The deterministic outputs, regenerated with nothing run live: the tutorial replays and
# figures from the committed recordings (`make test` fails when this would change a byte), and
# the operator figures, each diagrams/operators/*.marbles spec run by `marbles play` with the
# real operators and drawn next to it as SVG from the run's trace.
figures: build
	@# swift-async-algorithms #299's input debounced on the virtual-time driver: its trace
	@# and figures, recorded and drawn by the test that checks them.
	MARBLES_RECORD=1 $(SWIFT) test --disable-swift-testing --filter DebounceIssue299Tests >/dev/null
	@# The async search scenario (TwitterInstant with AsyncSequence), recorded in virtual time
	@# by its test, which draws the DocC guide's figures and copies them, with #299's, into
	@# AsyncMarbles.docc's Resources. After #299's run: it copies that figure. Before the demo,
	@# which replays that recording and draws the gallery's figures from the replay.
	MARBLES_RECORD=1 $(SWIFT) test --disable-swift-testing --filter AsyncSearchTests >/dev/null
	$(SWIFT) run marbles demo --from-recordings
	@for spec in diagrams/operators/*.marbles; do \
	  $(SWIFT) run -q marbles play "$$spec" --draw "$${spec%.marbles}.svg" >/dev/null || exit 1; \
	done
	@# The marks of a marble diagram, one figure each (README, "Reading a marble diagram"),
	@# drawn from each spec's run's trace; the title is the spec's opening words up to ':'.
	@for spec in diagrams/marks/*.marbles; do \
	  $(SWIFT) run -q marbles play "$$spec" --trace .build/mark-figure.trace >/dev/null && \
	  $(SWIFT) run -q marbles draw .build/mark-figure.trace --all \
	    --title "$$(sed -n '1s/^# *\([^:]*\):.*/\1/p' "$$spec")" -o "$${spec%.marbles}.svg" || exit 1; \
	done
	@# The Signals guides' figures, next to their specs in the DocC catalogue (play --draw draws
	@# from the run's trace, marbles coloured by thread). A *-threads spec is drawn with causes,
	@# its title the first word of the spec's opening comment.
	@for spec in Sources/Signals/Signals.docc/Resources/*.marbles; do \
	  case "$$spec" in \
	    *-threads.marbles) \
	      $(SWIFT) run -q marbles play "$$spec" --draw "$${spec%.marbles}.svg" --causes \
	        --title "$$(sed -n '1s/^# *\([^ ]*\).*/\1/p' "$$spec")" >/dev/null || exit 1 ;; \
	    *) $(SWIFT) run -q marbles play "$$spec" --draw "$${spec%.marbles}.svg" >/dev/null || exit 1 ;; \
	  esac; \
	done
	$(MAKE) guide-figures

# The first-pipeline guide's trace and golden, recorded from the guide's own code in virtual
# time by its tests, and its figures, drawn from that trace (Replay.docc's Resources).
GUIDE_FIGURES = Sources/Replay/Replay.docc/Resources
guide-figures: build
	MARBLES_RECORD=1 $(SWIFT) test --disable-swift-testing --filter 'FirstPipelineGuideTests|ThermostatTests' >/dev/null
	$(SWIFT) run -q marbles draw traces/thermostat.trace -o $(GUIDE_FIGURES)/thermostat.svg >/dev/null
	$(SWIFT) run -q marbles draw traces/thermostat.trace --pipeline -o $(GUIDE_FIGURES)/thermostat-pipeline.svg >/dev/null

# The DocC catalogues (Signals, Replay, AsyncMarbles), checked and rendered by the toolchain's
# docc (no package plugin): each module's symbol graph from the debug build, every link
# resolved, any warning an error.
DOCC ?= docc
# The C targets' module maps, which SwiftPM writes into each target's build folder: the Swift
# modules' interfaces import them (CThreadLocal, CTimestamp, CProcessRecording).
C_MODULES = $(foreach target,CThreadLocal CTimestamp CProcessRecording CValueWitnesses CChecksum,\
  -Xcc -fmodule-map-file="$$($(SWIFT) build --show-bin-path)/$(target).build/module.modulemap" -I Sources/$(target)/include)
docs: build
	@# The guide's figures are what Marbles draws from the guide's trace now.
	@for figure in thermostat thermostat-pipeline; do \
	  case $$figure in *-pipeline) kind=--pipeline ;; *) kind= ;; esac; \
	  $(SWIFT) run -q marbles draw traces/thermostat.trace $$kind -o .build/$$figure.svg >/dev/null && \
	  cmp -s .build/$$figure.svg $(GUIDE_FIGURES)/$$figure.svg || \
	  { echo "$(GUIDE_FIGURES)/$$figure.svg is not what marbles draws from traces/thermostat.trace: run make guide-figures"; exit 1; }; \
	done
	rm -rf .build/signals-symbols && mkdir -p .build/signals-symbols
	$(SWIFT) symbolgraph-extract -module-name Signals -minimum-access-level public \
	  -I "$$($(SWIFT) build --show-bin-path)/Modules" $(C_MODULES) \
	  -target "$$($(SWIFT) -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -n 1)" \
	  -output-dir .build/signals-symbols
	$(DOCC) convert Sources/Signals/Signals.docc --additional-symbol-graph-dir .build/signals-symbols \
	  --fallback-display-name Signals --fallback-bundle-identifier marbles.Signals \
	  --warnings-as-errors --output-path .build/Signals.doccarchive
	rm -rf .build/replay-symbols && mkdir -p .build/replay-symbols
	$(SWIFT) symbolgraph-extract -module-name Replay -minimum-access-level public \
	  -I "$$($(SWIFT) build --show-bin-path)/Modules" $(C_MODULES) \
	  -target "$$($(SWIFT) -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -n 1)" \
	  -output-dir .build/replay-symbols
	$(DOCC) convert Sources/Replay/Replay.docc --additional-symbol-graph-dir .build/replay-symbols \
	  --fallback-display-name Replay --fallback-bundle-identifier marbles.Replay \
	  --warnings-as-errors --output-path .build/Replay.doccarchive
	@# AsyncMarbles' catalogue (the guide "Recording an async pipeline"); its figures are
	@# checked by AsyncSearchTests, which draws them.
	rm -rf .build/async-symbols && mkdir -p .build/async-symbols
	$(SWIFT) symbolgraph-extract -module-name AsyncMarbles -minimum-access-level public \
	  -I "$$($(SWIFT) build --show-bin-path)/Modules" $(C_MODULES) \
	  -Xcc -fmodule-map-file="$$($(SWIFT) build --show-bin-path)/CConcurrencyHooks.build/module.modulemap" \
	  -I Sources/CConcurrencyHooks/include \
	  -target "$$($(SWIFT) -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -n 1)" \
	  -output-dir .build/async-symbols
	$(DOCC) convert Sources/AsyncMarbles/AsyncMarbles.docc --additional-symbol-graph-dir .build/async-symbols \
	  --fallback-display-name AsyncMarbles --fallback-bundle-identifier marbles.AsyncMarbles \
	  --warnings-as-errors --output-path .build/AsyncMarbles.doccarchive

clean:
	rm -rf .build .build-*
