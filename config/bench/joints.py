#!/usr/bin/python3
"""config/bench/joints.py - step-time distributions of every model with ideal joints in both
forms of the constrained step (solver.constraints index2 | nullspace, `rtvd bench
--constraints`), beside its bushing twin (issue 13 item 7 and its target: the nullspace form's
speed-up over the index2 form on every joint model, each joint vehicle against its bushing
vehicle). Runs `rtvd bench --json -` per model and form, `--runs` times interleaved (the
machine's speed drifts: the table gives the lowest median over the runs and the p99 and max
of that run), relinearized every step at the model's dt, the joints' LIE on the dense path
(where they run today), the bushing twins as shipped (LSRT2, structured) and with LIE.

usage: config/bench/joints.py [--rtvd build/app/rtvd] [--runs 3] [--steps 2000] [--json FILE]
       [--markdown]
A benchmark: it reports, it does not judge."""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# (joint model, its bushing twin or None)
MODELS = [
    ("config/mechanisms/pendulum.yaml", None),
    ("config/mechanisms/slider_crank.yaml", None),
    ("config/mechanisms/fourbar.yaml", None),
    ("config/vehicles/hmmwv_joints.yaml", "config/vehicles/hmmwv.yaml"),
    ("config/vehicles/sedan_joints.yaml", "config/vehicles/sedan.yaml"),
]


def bench(rtvd, model, extra, steps):
    cmd = [rtvd, "bench", model, "--relin", "1", "--steps", str(steps), "--warmup", "100",
           "--json", "-"] + extra
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out[out.index("{"):])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtvd", default=os.path.join(ROOT, "build", "app", "rtvd"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--json", help="write every run's results")
    ap.add_argument("--markdown", action="store_true", help="the table in Markdown")
    a = ap.parse_args()
    cases = []
    for joint, twin in MODELS:
        for form in ("index2", "nullspace"):
            cases.append((joint, form, ["--constraints", form]))
        if twin:
            cases.append((twin, "lsrt2", []))
            cases.append((twin, "lie", ["--solver", "lie"]))
    res = {}
    for r in range(a.runs):
        for model, tag, extra in cases:
            j = bench(a.rtvd, model, extra, a.steps)
            res.setdefault((model, tag), []).append(j)
            print("run %d %-36s %-9s p50 %9.1f us" % (r + 1, model, tag, j["p50_us"]),
                  file=sys.stderr, flush=True)
    best = {k: min(v, key=lambda j: j["p50_us"]) for k, v in res.items()}
    sep = " | " if a.markdown else "  "
    head = ["model", "DOF", "rows", "form / solver", "linear", "p50 us", "p99 us", "max us",
            "p50 spread us", "nullspace speed-up", "vs bushing twin (LSRT2 / LIE)"]
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
    else:
        print(sep.join(head))
    for joint, twin in MODELS:
        for form in ("index2", "nullspace"):
            j = best[(joint, form)]
            p50s = [x["p50_us"] for x in res[(joint, form)]]
            up = best[(joint, "index2")]["p50_us"] / best[(joint, "nullspace")]["p50_us"]
            vs = ""
            if twin:
                vs = "%.1f x / %.1f x" % (j["p50_us"] / best[(twin, "lsrt2")]["p50_us"],
                                          j["p50_us"] / best[(twin, "lie")]["p50_us"])
            row = [os.path.basename(joint), str(j["dof"]), str(j["joints"]["rows"]), form,
                   j["linear"], "%.1f" % j["p50_us"], "%.1f" % j["p99_us"], "%.1f" % j["max_us"],
                   "%.1f-%.1f" % (min(p50s), max(p50s)), "%.2f" % up if form == "nullspace" else "",
                   vs]
            print(("| " if a.markdown else "") + sep.join(row) + (" |" if a.markdown else ""))
        if twin:
            for tag in ("lsrt2", "lie"):
                j = best[(twin, tag)]
                p50s = [x["p50_us"] for x in res[(twin, tag)]]
                row = [os.path.basename(twin), str(j["dof"]), "0", tag, j["linear"],
                       "%.1f" % j["p50_us"], "%.1f" % j["p99_us"], "%.1f" % j["max_us"],
                       "%.1f-%.1f" % (min(p50s), max(p50s)), "", ""]
                print(("| " if a.markdown else "") + sep.join(row) + (" |" if a.markdown else ""))
    if a.json:
        json.dump({"%s %s" % k: v for k, v in res.items()}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
