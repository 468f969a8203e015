#!/usr/bin/python3
"""config/bench/forms.py - the CE : TA : FA table of issue 14: the same vehicle
(config/vehicles/hmmwv_ce.yaml) and the same manoeuvre in its three model forms, in one run:
CE (minimal coordinates, the double wishbones embedded: 15), TA (a tree over every body, 55
coordinates, and 40 cut-joint rows) and FA (every body free, every joint a constraint: 198 +
140; on the dense LU of its augmented system, as TA's, and on the structured block LU of the
joints, its fastest path), each `rtvd bench --formulation F --json -`, LIE (or, `--solver lsrt2`, LSRT2: all three
forms have it) relinearized every step at dt = 1 ms,
`--runs` times interleaved (the machine's speed drifts with other jobs: the table gives each
form's lowest median over the runs and the p99 of that run; the ratios are of those medians,
so they come from one run of the script). The manoeuvre: the ISO 3888 double lane change at
20 m/s with its closed-loop driver (config/scenarios/dlc_iso3888.yaml with this vehicle, as
`rtvd sim` starts it: static equilibrium, speed), the first 0.1 s untimed, then `--steps`
steps (2000: into the first lane change). The step's work does not depend on the state
(a linearly implicit step: one linearization, one factorization, fixed solves).

Cost per corner, two figures:
  budget/corner = median step / 4: the issue's own measure ("a microsecond budget per
      corner"): the whole step spread over the corners, as a HIL budget is;
  extra/corner  = (median step - CE median step) / 4: what one corner costs in this form on
      top of the embedded corner. The three forms evaluate the same force elements, tyres and
      road on the same bodies (each step places the joint model's bodies and calls its own
      evaluation), so the difference between two forms is their treatment of the corners'
      loops (tree size, constraint rows, the factorization); the chassis (6 coordinates in
      every form) and the steering (one node in CE, 5 coordinates and 4 rows in TA) are the
      rest, and the steering's share is counted into the corners here.
The expected order is CE < TA < FA (the ROAMS paper: 1 : 4.1 : 120 for 15 : 45+30 : 216+201).

usage: config/bench/forms.py [--rtvd build/app/rtvd] [--solver lie|lsrt2] [--runs 3]
                             [--steps 2000] [--json FILE]
A benchmark: it reports, it does not judge."""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = "config/vehicles/hmmwv_ce.yaml"
SCENARIO = "config/scenarios/dlc_iso3888.yaml"
# (label, rtvd bench arguments): TA and FA twice each, on the dense LU of their augmented
# systems and on their structured LU (TA: the bordered block LU of its clusters, core/bblu.h;
# FA: the block LU of the joints, csblock.h), their fastest paths
FORMS = [("ce", ["--formulation", "ce"]), ("ta", ["--formulation", "ta", "--linear", "dense"]),
         ("ta-struct", ["--formulation", "ta", "--linear", "structured"]),
         ("fa", ["--formulation", "fa", "--linear", "dense"]),
         ("fa-struct", ["--formulation", "fa", "--linear", "structured"])]
CORNERS = 4


def bench(rtvd, solver, args, steps):
    cmd = [rtvd, "bench", SCENARIO, "--vehicle", MODEL, "--solver", solver, "--relin", "1",
           "--steps", str(steps), "--warmup", "100", "--json", "-"] + args
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out[out.index("{"):])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtvd", default=os.path.join(ROOT, "build", "app", "rtvd"))
    ap.add_argument("--solver", choices=("lie", "lsrt2"), default="lie")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--json", help="write the table as JSON to FILE")
    a = ap.parse_args()
    best = {}
    for _ in range(a.runs):
        for f, args in FORMS:
            r = bench(a.rtvd, a.solver, args, a.steps)
            if f not in best or r["p50_us"] < best[f]["p50_us"]:
                best[f] = r
    ce = best["ce"]["p50_us"]
    rows = []
    print(f"{SCENARIO} with {MODEL}, {a.solver.upper()}, dt 1 ms, relinearized every step, {a.steps} steps, best median of "
          f"{a.runs} interleaved runs")
    print(f"{'form':9} {'coords':>6} {'rows':>5} {'median us':>10} {'p99 us':>9} {'ratio':>6} "
          f"{'flop/step':>10} {'budget/corner':>14} {'extra/corner':>13}")
    for f, _ in FORMS:
        r = best[f]
        fm = r.get("formulation", {})
        row = {"form": f, "coordinates": fm.get("coordinates"), "rows": fm.get("rows"),
               "p50_us": r["p50_us"], "p99_us": r["p99_us"], "ratio": r["p50_us"] / ce,
               "flops": r["flops_per_step"], "budget_per_corner_us": r["p50_us"] / CORNERS,
               "extra_per_corner_us": (r["p50_us"] - ce) / CORNERS,
               "stage_p50_us": r["stage_p50_us"]}
        rows.append(row)
        print(f"{f:9} {row['coordinates']:>6} {row['rows']:>5} {row['p50_us']:>10.1f} "
              f"{row['p99_us']:>9.1f} {row['ratio']:>6.2f} {row['flops']:>10.0f} "
              f"{row['budget_per_corner_us']:>14.1f} {row['extra_per_corner_us']:>13.1f}")
    print("stage medians [us] (linearize / assemble / factor / stages):")
    for row in rows:
        s = row["stage_p50_us"]
        print(f"  {row['form']}: {s['linearize']:.1f} / {s['assemble']:.1f} / {s['factor']:.1f} "
              f"/ {s['stages']:.1f}")
    order = [r["form"] for r in sorted(rows, key=lambda r: r["p50_us"])]
    print("order by median: " + " < ".join(order) + "  (expected: ce < ta < fa)")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"model": MODEL, "scenario": SCENARIO, "solver": a.solver, "runs": a.runs,
                       "steps": a.steps, "forms": rows}, fh,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
