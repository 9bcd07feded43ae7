#!/usr/bin/env python3
"""Fit NHOOD_COST_STAGE and NHOOD_COST_FWD, the store-and-forward terms of
nhood's cost model, to the simulated SpMV experiments (docs/sim/stfw-*.csv).

Replays auto's decision (src/plan/stfw_setup.c: choose_dims at a nominal
256-byte block, schedules built if STFW wins for 1-byte blocks, then
recheck at the first call's mean block, either way; model_bl,
model_stfw; src/core/vpt.c: nh_vpt_init's balanced dimensions,
nh_stfw_est_msgs, nh_stfw_est_hops) offline for every experiment, with each
platform's alpha, o and beta (platforms/*.cost) and one (stage, fwd) pair
for all platforms, and scores a pair by how often its choice is within 10 %
of the fastest choice simulated (native or a forced VPT dimension).  A
choice that was not simulated counts as unknown.  Prints the best pairs,
then every experiment's choice under the chosen pair.

    scripts/sim-stfw-fit.py [--stage S --fwd F]   (show one pair only)

In-sample: the pair is fitted on the experiments it is scored on.
"""
import csv
import functools
import glob
import math
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BYTES = 256.0  # NH_STFW_MODEL_BYTES
ARM = 1.0  # NH_STFW_ARM_BYTES


def factors(k):
    f, p = [], 2
    while p * p <= k:
        while k % p == 0:
            f.append(p)
            k //= p
        p += 1
    if k > 1:
        f.append(k)
    return f


def balanced(k, n):
    """nh_vpt_init(v, k, n, 0): dims, largest first, or None."""
    f = factors(k)
    if n < 1 or n > len(f):
        return None
    dims = [1] * n
    for x in reversed(f):
        dims[min(range(n), key=lambda c: (dims[c], c))] *= x
    return sorted(dims, reverse=True)


def distinct(k, b):
    return 0.0 if k <= 1 or b <= 0 else (k - 1) * (1 - (1 - 1 / k) ** b)


def est_msgs(dims, maxout, avg):
    t, spread = 0.0, 1
    for c, k in enumerate(dims):
        t += distinct(k, maxout if c == 0 else avg + maxout / spread)
        spread *= k
    return t


@functools.lru_cache(maxsize=None)
def cost(platform):
    c = {}
    with open(os.path.join(TOP, "platforms", platform + ".cost")) as fh:
        for line in fh:
            m = re.match(r"NHOOD_COST_(\w+)=(\S+)", line)
            if m:
                c[m.group(1)] = float(m.group(2))
    return c


def model_bl(maxdeg, c, nbytes):
    return c["ALPHA"] + max(c["O"] * maxdeg, c["BETA"] * nbytes * maxdeg)


def model_stfw(dims, maxdeg, avg, c, stage, fwd, nbytes):
    vol = max(avg * sum((d - 1) / d for d in dims), maxdeg)
    return stage * len(dims) + c["O"] * est_msgs(dims, maxdeg, avg) + (c["BETA"] + fwd) * nbytes * vol


def choose(k, maxdeg, avg, c, stage, fwd, block):
    """auto's choice: 'native' or 'stfw:N' (maxin taken equal to maxout):
    the dimension at graph creation for 256-byte blocks, schedules only if
    it wins for 1-byte blocks, then the re-check at the first call's mean
    block (block bytes) that decides."""
    best = None
    for n in range(2, min(len(factors(k)), 32) + 1):
        dims = balanced(k, n)
        if not dims:
            continue
        t = model_stfw(dims, maxdeg, avg, c, stage, fwd, BYTES)
        if best is None or t < best[0]:
            best = (t, n)
    if not best:
        return "native"
    dims = balanced(k, best[1])
    if model_stfw(dims, maxdeg, avg, c, stage, fwd, ARM) >= model_bl(maxdeg, c, ARM):
        return "native"
    if model_stfw(dims, maxdeg, avg, c, stage, fwd, block) >= model_bl(maxdeg, c, block):
        return "native"
    return "stfw:%d" % best[1]


def experiments():
    out = []
    for path in sorted(glob.glob(os.path.join(TOP, "docs", "sim", "stfw-*.csv"))):
        if path.endswith(".auto.csv"):
            continue
        with open(path[:-4] + ".log") as fh:
            m = re.search(r"mmax (\d+), mavg ([\d.]+)", fh.read())
        if not m:
            continue
        times, auto = {}, None
        with open(path) as fh:
            for r in csv.DictReader(l for l in fh if not l.startswith("#")):
                k, plat, block = int(r["procs"]), r["platform"], float(r["bytes"])
                times["native"] = float(r["native_us"])
                a = r["algorithm"]
                if a.startswith("auto:"):
                    auto = a[5:]
                else:
                    times[a.split(">")[-1]] = float(r["nhood_us"])
        if len(times) > 1:
            out.append((os.path.basename(path)[:-4], k, plat, float(m.group(1)), float(m.group(2)),
                        block, times, auto))
    return out


def score(exps, stage, fwd):
    ok = known = 0
    worst = logsum = 0.0
    for _, k, plat, mmax, mavg, block, times, _ in exps:
        ch = choose(k, mmax, mavg, cost(plat), stage, fwd, block)
        if ch not in times:
            continue
        r = times[ch] / min(times.values())
        known += 1
        ok += r <= 1.10
        worst = max(worst, r)
        logsum += math.log(r)
    return ok, known, worst, math.exp(logsum / known) if known else 0.0


def main():
    exps = experiments()
    args = sys.argv[1:]
    if args:
        stage, fwd = float(args[args.index("--stage") + 1]), float(args[args.index("--fwd") + 1])
    else:
        grid = [(s, f) for s in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
                for f in (0, 1e-4, 2e-4, 3e-4, 4e-4, 6e-4, 8e-4, 1e-3)]
        scores = {sf: score(exps, *sf) for sf in grid}
        # most within 10 %, then the smallest geometric-mean regret, then
        # the dearer stage (fewer stages when the data cannot tell)
        ranked = sorted(grid, key=lambda sf: (-scores[sf][0], round(scores[sf][3], 3), -sf[0]))
        print("stage fwd     within10% known worst geomean")
        for s, f in ranked[:8]:
            ok, known, worst, gm = scores[(s, f)]
            print("%-5g %-7g %9d %5d %5.3f %7.3f" % (s, f, ok, known, worst, gm))
        stage, fwd = ranked[0]
    print("\nstage %g us, fwd %g us/B:" % (stage, fwd))
    for name, k, plat, mmax, mavg, block, times, auto in exps:
        ch = choose(k, mmax, mavg, cost(plat), stage, fwd, block)
        best = min(times, key=times.get)
        r = "%.3f" % (times[ch] / times[best]) if ch in times else "  ?  "
        print("  %-28s %-8s %s  best %-8s simulated auto %s" % (name, ch, r, best, auto or "-"))
    ok, known, worst, gm = score(exps, stage, fwd)
    print("within 10 %%: %d of %d known (worst %.3f)" % (ok, known, worst))


if __name__ == "__main__":
    main()
