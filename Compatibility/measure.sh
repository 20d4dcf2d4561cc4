#!/bin/bash
# Measures how much of ReactiveSwift's own spec suite passes against Signals with only the
# import changed (COMPATIBILITY.md). Builds a package outside this repository:
#
#   Compatibility/measure.sh <ReactiveSwift checkout or bare clone> [work dir]
#
# The work dir (default /tmp/rs-compat) gets a snapshot of this repository's HEAD, the
# checkout's Tests/ReactiveSwiftTests with `import ReactiveSwift` changed to `import Signals`,
# and a package that runs them (Quick 7.6.2, Nimble 13.8.0; on Linux the specs are listed in
# a main.swift, as swift-corelibs-xctest cannot discover Quick's examples). Examples that do
# not compile are pruned, round by round (prune.py); the rest are run, and the passes
# counted. Nothing of ReactiveSwift's enters this repository.
set -euo pipefail
RS=${1:?usage: measure.sh <ReactiveSwift checkout> [work dir]}
WORK=${2:-/tmp/rs-compat}
REPO=$(cd "$(dirname "$0")/.." && pwd)
HERE=$REPO/Compatibility
SPECS=$WORK/Tests/ReactiveSwiftTests

rm -rf "$WORK/marbles-snapshot" "$SPECS"
mkdir -p "$WORK/marbles-snapshot" "$SPECS"
git -C "$REPO" archive HEAD | tar x -C "$WORK/marbles-snapshot"
if [ -d "$RS/Tests/ReactiveSwiftTests" ]; then
  cp "$RS"/Tests/ReactiveSwiftTests/*.swift "$SPECS/"
else  # a bare clone, as the search tool's fetch leaves it
  git -C "$RS" archive HEAD Tests/ReactiveSwiftTests | tar x -C "$WORK"
  find "$SPECS" -type f ! -name '*.swift' -delete
fi
sed -i 's/^@testable import ReactiveSwift$/@testable import Signals/; s/^import ReactiveSwift$/import Signals/' "$SPECS"/*.swift
cat > "$WORK/Package.swift" <<'MANIFEST'
// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "RSCompat",
    dependencies: [
        .package(path: "marbles-snapshot"),
        .package(url: "https://github.com/Quick/Quick.git", from: "7.6.2"),
        .package(url: "https://github.com/Quick/Nimble.git", from: "13.8.0"),
    ],
    targets: [
        .executableTarget(name: "RunSpecs",
                          dependencies: [.product(name: "Signals", package: "marbles-snapshot"), "Quick", "Nimble"],
                          path: "Tests/ReactiveSwiftTests"),
    ]
)
MANIFEST

# The entry point lists the spec classes of the files that are left.
list_specs() {
  { echo "import Quick"; echo; echo "QCKMain(["
    grep -ho "class [A-Za-z]*: QuickSpec" "$SPECS"/*.swift | sed 's/class \([A-Za-z]*\): QuickSpec/    \1.self,/'
    echo "])"; } > "$SPECS/main.swift"
}
list_specs
cd "$WORK"
: > pruned.log
for round in $(seq 1 15); do
  if swift build > build.log 2>&1; then echo "compiled after $((round - 1)) pruning rounds"; break; fi
  if ! grep -qE "^$SPECS/.*error:" build.log; then echo "the build failed outside the specs:"; tail -20 build.log; exit 1; fi
  python3 "$HERE/prune.py" build.log "$SPECS" >> pruned.log
  list_specs
done
.build/debug/RunSpecs > run.log 2>&1 || true
passed=$(grep -cE "^Test Case '.*' passed" run.log || true)
failed=$(grep -cE "^Test Case '.*' failed" run.log || true)
echo "examples run: $((passed + failed)), passed: $passed, failed: $failed (of 816 in ReactiveSwift 7.2.1's suite)"
echo "pruned: $WORK/pruned.log; run: $WORK/run.log"
