#!/usr/bin/env python3
"""Writes a large trace for measuring `marbles view`: the events of TRACE repeated COUNT
times one after another (each copy shifted by the trace's duration, sequence numbers and
causes renumbered), with the trace's nodes, threads and subscriptions once.

    python3 Benchmarks/scripts/repeat-trace.py traces/twitter-instant.replay.trace 13700 > big.trace
"""
import json
import sys


def main():
    path, count = sys.argv[1], int(sys.argv[2])
    with open(path, encoding="utf-8") as file:
        records = [json.loads(line) for line in file if line.strip()]
    events = [r for r in records if r["type"] == "event"]
    others = [r for r in records if r["type"] not in ("event", "summary")]
    duration = max(e["time"] for e in events) + 1
    last = max(e["seq"] for e in events)
    out = sys.stdout
    for record in others:
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
    for copy in range(count):
        for event in events:
            shifted = dict(event)
            shifted["seq"] = event["seq"] + copy * last
            shifted["time"] = event["time"] + copy * duration
            shifted["causes"] = [c + copy * last for c in event["causes"]]
            out.write(json.dumps(shifted, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
