#!/bin/sh
# Instructions per recorded event, per payload, counted by callgrind (valgrind): the same for
# the same binary whatever else the machine runs, so a before/after comparison needs no quiet
# machine. For each payload the core chain runs VALUES values with no recorder, then recording
# to a file; the difference over the events recorded is what recording an event costs on all
# threads (the writer's formatting included), and the ratio to Int is issue 26's figure.
#
#   Benchmarks/instructions.sh [VALUES]      (from the repository's root; default 20000)
#
# callgrind cannot read the DWARF 5 a release build has by default, so the benchmark is built
# here with DWARF 4 into a scratch folder of its own.
set -eu
values=${1:-20000}
scratch=.build-bench-callgrind
swift build -c release --package-path Benchmarks --scratch-path "$scratch" \
    -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 >/dev/null
bench="$scratch/release/marbles-bench"
count() {
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" --instruction-loop "$1" \
        --instruction-values "$values" >"$out.stdout" 2>"$out"
    instructions=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out")
    events=$(sed -n 's/.*values, \([0-9]*\) events recorded.*/\1/p' "$out.stdout")
    rm -f "$out" "$out.stdout"
    echo "$instructions ${events:-0}"
}
printf '| payload | instructions per recorded event (all threads) | ÷ Int |\n|---|---|---|\n'
int_cost=""
for payload in int string struct enum optional; do
    set -- $(count "$payload:off")
    off=$1
    set -- $(count "$payload:file")
    on=$1 events=$2
    cost=$(( (on - off) / events ))
    [ -z "$int_cost" ] && int_cost=$cost
    ratio=$(awk -v a="$cost" -v b="$int_cost" 'BEGIN { printf "%.2f", a / b }')
    printf '| %s | %s | %s× |\n' "$payload" "$cost" "$ratio"
done
