#!/usr/bin/python3
"""config/bench/scaling.py - cost of a step against the size of the vehicle, dense and
structured linear solve: the double-wishbone axle rig (1 axle), the sedan (2 axles), the
3- and 4-axle trucks of this directory. Runs `rtvd bench --json -` for every model and
solver path, `--runs` times interleaved (the machine's speed drifts: the table gives the
lowest median over the runs, the spread is printed), LSRT2 with relinearization every step.

usage: config/bench/scaling.py [--rtvd build/app/rtvd] [--runs 3] [--steps 3000]
       [--dense-steps 300] [--method lsrt2|lie] [--json FILE]
A benchmark: it reports, it does not judge."""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# (file, axles, corners); the rig has no chassis and no tyres: its axle is on ground
MODELS = [
    ("config/rigs/dw_axle.yaml", 1, 2),
    ("config/vehicles/sedan.yaml", 2, 4),
    ("config/bench/truck_3axle.yaml", 3, 6),
    ("config/bench/truck_4axle.yaml", 4, 8),
]


def bench(rtvd, model, linear, steps, method):
    cmd = [rtvd, "bench", model, "--linear", linear, "--solver", method, "--relin", "1",
           "--steps", str(steps), "--warmup", "100", "--json", "-"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out[out.index("{"):])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtvd", default=os.path.join(ROOT, "build", "app", "rtvd"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--dense-steps", type=int, default=300)
    ap.add_argument("--method", default="lsrt2", choices=["lsrt2", "lie"])
    ap.add_argument("--json", help="write all results here")
    a = ap.parse_args()

    res = {}
    for run in range(a.runs):
        for model, _, _ in MODELS:
            for linear in ("structured", "dense"):
                n = a.steps if linear == "structured" else a.dense_steps
                j = bench(a.rtvd, model, linear, n, a.method)
                res.setdefault((model, linear), []).append(j)
        print("run %d of %d done" % (run + 1, a.runs), file=sys.stderr)

    def best(model, linear):
        return min(res[(model, linear)], key=lambda j: j["p50_us"])

    print("method %s, relin 1, dt 1 ms; step time p50 [us], lowest median of %d runs "
          "(range over the runs in brackets); speed-up: median of the runs' dense / structured "
          "medians, each pair measured back to back (range)" % (a.method, a.runs))
    hdr = ("%-30s %5s %6s %5s   %18s %18s %19s   %9s %9s %9s   %10s" %
           ("model", "axles", "bodies", "DOF", "dense p50", "structured p50", "speed-up",
            "p99 str.", "per axle", "per corner", "flop/step"))
    print(hdr)
    print("-" * len(hdr))
    for model, axles, corners in MODELS:
        d, s = best(model, "dense"), best(model, "structured")
        dr = [j["p50_us"] for j in res[(model, "dense")]]
        sr = [j["p50_us"] for j in res[(model, "structured")]]
        rat = sorted(x / y for x, y in zip(dr, sr))
        med = rat[len(rat) // 2] if len(rat) % 2 else 0.5 * (rat[len(rat) // 2 - 1] +
                                                             rat[len(rat) // 2])
        print("%-30s %5d %6d %5d   %8.1f [%4.0f-%4.0f] %7.1f [%4.0f-%4.0f] %5.1fx [%4.1f-%4.1f]   "
              "%9.1f %9.1f %9.1f   %10.0f" %
              (os.path.basename(model), axles, s["bodies"], s["dof"], d["p50_us"], min(dr),
               max(dr), s["p50_us"], min(sr), max(sr), med, rat[0], rat[-1], s["p99_us"],
               s["p50_us"] / axles, s["p50_us"] / corners, s["flops_per_step"]))
    print("\nstructured stage profile, p50 [us] (same runs):")
    print("%-30s %10s %10s %10s %10s %10s" % ("model", "linearize", "assemble", "factor",
                                            "stages", "outputs"))
    for model, _, _ in MODELS:
        s = best(model, "structured")["stage_p50_us"]
        print("%-30s %10.1f %10.1f %10.1f %10.1f %10.1f" %
              (os.path.basename(model), s["linearize"], s["assemble"], s["factor"], s["stages"],
               s["outputs"]))
    print("\ndense factorization p50 [us]:", ", ".join(
        "%s %.0f" % (os.path.basename(m), best(m, "dense")["stage_p50_us"]["factor"])
        for m, _, _ in MODELS))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"%s|%s" % k: v for k, v in res.items()}, f, indent=1)


if __name__ == "__main__":
    main()
