#!/usr/bin/env python3
"""Prints a timeline written by `cuzk bench groth16|pipeline --timeline FILE` (TimingSink::to_json).

One line per span, by start time: layer, name, item, start and end (ms since the first span) and duration; then, for
the kernel layer, the device's compute time (the union of its spans, uploads left out) against the prover call's wall time, and the
longest stretches in which no kernel-layer span was open (where the GPU may have idled).

Usage: scripts/timeline.py FILE [--layer pipeline|prover|kernel] [--item N] [--gaps K]
"""
import argparse
import json
import sys


def union_length(intervals):
    total, end = 0.0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def idle_gaps(intervals, lo, hi):
    gaps, cur = [], lo
    for s, e in sorted(intervals):
        if s > cur:
            gaps.append((cur, s))
        cur = max(cur, e)
    if hi > cur:
        gaps.append((cur, hi))
    return gaps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--layer", choices=["pipeline", "prover", "kernel"])
    ap.add_argument("--item", type=int)
    ap.add_argument("--gaps", type=int, default=8, help="longest kernel-idle stretches to list")
    a = ap.parse_args()
    spans = json.load(open(a.file))
    if not spans:
        print("no spans")
        return 0
    t0 = min(s["start_s"] for s in spans)
    shown = [s for s in spans if (a.layer is None or s["layer"] == a.layer) and (a.item is None or s["item"] == a.item)]
    for s in sorted(shown, key=lambda s: (s["start_s"], s["layer"])):
        st = (s["start_s"] - t0) * 1e3
        d = s["duration_s"] * 1e3
        print(f"{s['layer']:8} {s['name']:28} item {s['item']:3}  {st:10.1f} .. {st + d:10.1f} ms  {d:9.1f} ms")
    # The device's view: kernel-layer spans against the prover call(s).
    # Uploads (DMA, on their own streams) are not compute: left out of the busy time.
    kern = [(s["start_s"], s["start_s"] + s["duration_s"]) for s in spans
            if s["layer"] == "kernel" and not s["name"].endswith(".upload")]
    calls = [s for s in spans if s["layer"] == "prover" and s["name"] == "prove"]
    if kern and calls:
        lo = min(c["start_s"] for c in calls)
        hi = max(c["start_s"] + c["duration_s"] for c in calls)
        busy = union_length(kern)
        print(f"\nprover call(s) {1e3 * (hi - lo):.1f} ms; some compute span open {1e3 * busy:.1f} ms "
              f"({100 * busy / (hi - lo):.0f}%)")
        gaps = sorted(idle_gaps(kern, lo, hi), key=lambda g: g[0] - g[1])[: a.gaps]
        for s, e in sorted(gaps):
            # what the host was doing then: prover-layer spans open across the gap's middle
            mid = (s + e) / 2
            open_ = [f"{x['name']}[{x['item']}]" for x in spans if x["layer"] == "prover" and x["name"] != "prove"
                     and x["start_s"] <= mid <= x["start_s"] + x["duration_s"]]
            print(f"  idle {1e3 * (e - s):8.1f} ms at {1e3 * (s - t0):10.1f} ms; prover spans open: {' '.join(open_)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
