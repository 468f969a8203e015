#!/usr/bin/python3
"""config/bench/joints.py - step-time distributions of every model with ideal joints in both
forms of the constrained step, beside its bushing twin (issue 13: its target and the
closing note's table).

Every model runs under `rtvd bench --json -`, relinearized every step (--relin 1) at
dt = 1 ms, with the LIE and with LSRT2, on the structured and on the dense linear solve;
the joint models in the index2 and in the nullspace form (solver.constraints), each on the
paths it supports: a path the bench refuses for a form (it notes "runs on the dense path
only" and reports the path it took) is probed once with one step and left out, so the
table follows the code as paths are added. Joint models: the pendulum, the slider-crank,
the four-bar and the multilink corner of config/mechanisms/ (no bushing twins), and
hmmwv_joints / sedan_joints with their twins hmmwv / sedan.

The machine's speed drifts (a shared VM): the cases run --runs times interleaved and the
table gives, per case, the run with the lowest median: its min, p50, p90, p99 and max, the
p50 range over the runs, the linear-algebra flop per step (`flops_per_step`: deterministic),
the nullspace form's speed-up over the index2 form (p50 of index2 / p50 of nullspace, with
the same method: on the same (dense) path, and against index2 on its fastest path; then
the ratio of their flop per step, which the machine's noise does not touch), and each joint
vehicle's ratio to its bushing twin (same method, same path).

usage: config/bench/joints.py [--rtvd build/app/rtvd] [--runs 3] [--steps 2000]
       [--dense-steps 500] [--models fourbar,hmmwv_joints,...] [--json FILE] [--markdown]
       config/bench/joints.py --from FILE [--markdown]   (the table of a --json file again)
A benchmark: it reports, it does not judge."""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# (joint model, its bushing twin or None)
MODELS = [
    ("config/mechanisms/pendulum.yaml", None),
    ("config/mechanisms/slider_crank.yaml", None),
    ("config/mechanisms/fourbar.yaml", None),
    ("config/mechanisms/multilink_corner.yaml", None),
    ("config/vehicles/hmmwv_joints.yaml", "config/vehicles/hmmwv.yaml"),
    ("config/vehicles/sedan_joints.yaml", "config/vehicles/sedan.yaml"),
]
METHODS = ("lie", "lsrt2")
FORMS = ("index2", "nullspace")
LINEAR = ("structured", "dense")


def name(model):
    return os.path.splitext(os.path.basename(model))[0]


def bench(a, model, method, form, linear, steps, warmup=100):
    cmd = [a.rtvd, "bench", model, "--solver", method, "--linear", linear, "--relin", "1",
           "--dt", "0.001", "--steps", str(steps), "--warmup", str(warmup), "--json", "-"]
    if form:
        cmd += ["--constraints", form]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode:
        sys.exit("joints.py: %s failed:\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return json.loads(p.stdout[p.stdout.index("{"):])


def cases(a):
    """(model, method, form or None, linear, twin of) for every supported combination"""
    want = a.models.split(",") if a.models else None
    out = []
    for joint, twin in MODELS:
        if want and name(joint) not in want:
            continue
        for form in FORMS:
            for linear in LINEAR:
                # one step: does the bench take this path for this form?
                took = bench(a, joint, "lie", form, linear, 1, 0)["linear"]
                if took != linear:
                    print("%s: the %s form runs on the %s path only: no %s row" % (
                        name(joint), form, took, linear), file=sys.stderr)
                    continue
                for method in METHODS:
                    out.append((joint, method, form, linear, None))
        if twin:
            for linear in LINEAR:
                for method in METHODS:
                    out.append((twin, method, None, linear, joint))
    return out


def machine():
    """the CPU model and count (for the table's heading)"""
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return "%s, %d vCPU%s, %s" % (cpu, os.cpu_count() or 0, "s" if (os.cpu_count() or 0) > 1
                                   else "", platform.node())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtvd", default=os.path.join(ROOT, "build", "app", "rtvd"))
    ap.add_argument("--runs", type=int, default=3, help="interleaved runs of every case")
    ap.add_argument("--steps", type=int, default=2000, help="timed steps, structured path")
    ap.add_argument("--dense-steps", type=int, default=500,
                    help="timed steps, dense path (0.5-2 ms per step on the vehicles)")
    ap.add_argument("--models", help="only these (comma-separated names, e.g. fourbar,hmmwv_joints)")
    ap.add_argument("--json", help="write every run's results")
    ap.add_argument("--markdown", action="store_true", help="the table in Markdown")
    ap.add_argument("--from", dest="src", help="print the table of a --json file, run nothing")
    a = ap.parse_args()
    if a.src:
        note, todo, res = load(a.src)
    else:
        note, todo, res = measure(a)
    if a.json:
        json.dump({"note": note, "runs": {key(c): v for c, v in res.items()}}, open(a.json, "w"),
                  indent=1)
    table(a, note, todo, res)


def key(c):
    """a case's key in the --json file: 'model method form linear'"""
    return " ".join([name(c[0]), c[1], c[2] or "bushings", c[3]])


def load(path):
    """(note, cases, results) of a --json file"""
    d = json.load(open(path))
    paths = {}
    for joint, twin in MODELS:
        paths[name(joint)] = (joint, None)
        if twin:
            paths[name(twin)] = (twin, joint)
    todo, res = [], {}
    for k, v in d["runs"].items():
        n, method, form, linear = k.split()
        model, twin_of = paths[n]
        c = (model, method, None if form == "bushings" else form, linear, twin_of)
        todo.append(c)
        res[c] = v
    return d["note"], todo, res


def measure(a):
    """run every case --runs times interleaved: (note, cases, results)"""
    todo = cases(a)
    res = {}
    first = None
    for r in range(a.runs):
        for c in todo:
            model, method, form, linear, _ = c
            j = bench(a, model, method, form, linear,
                      a.dense_steps if linear == "dense" else a.steps)
            first = first or j
            res.setdefault(c, []).append(j)
            print("run %d %-22s %-5s %-9s %-10s p50 %9.1f us" % (
                r + 1, name(model), method, form or "bushings", linear, j["p50_us"]),
                  file=sys.stderr, flush=True)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    note = ("rtvd bench, relin 1, dt 1 ms, %d / %d timed steps (structured / dense) after 100, "
            "lowest median of %d interleaved runs; %s; %s; %s; rtvd %s (%s); step times [us]"
            % (a.steps, a.dense_steps, a.runs, when, machine(), first["blas"] if first else "",
               first["version"] if first else "", first["git"] if first else ""))
    return note, todo, res


def table(a, note, todo, res):
    """print the table: per case the run with the lowest median"""
    best = {c: min(v, key=lambda j: j["p50_us"]) for c, v in res.items()}

    def p50(model, method, form, linear, twin_of=None, what="p50_us"):
        j = best.get((model, method, form, linear, twin_of))
        return j[what] if j else None

    head = ["model", "DOF", "rows", "method", "form", "linear", "min", "p50", "p90", "p99",
            "max", "p50 range", "flop/step", "nullspace speed-up", "vs bushing twin"]
    rows = []
    for c in todo:
        model, method, form, linear, twin_of = c
        j = best[c]
        up = vs = ""
        if form == "nullspace":
            same = p50(model, method, "index2", linear)
            fast = [x for x in (p50(model, method, "index2", ln) for ln in LINEAR) if x]
            fl = p50(model, method, "index2", linear, what="flops_per_step")
            up = "%s / %.2f x (flop %s)" % (
                "%.2f x" % (same / j["p50_us"]) if same else "-", min(fast) / j["p50_us"],
                "%.2f x" % (fl / j["flops_per_step"]) if fl else "-")
        twin = dict(MODELS).get(model)
        if form and twin:
            t = p50(twin, method, None, linear, model)
            vs = "%.2f x" % (j["p50_us"] / t) if t else ""
        p50s = [x["p50_us"] for x in res[c]]
        rows.append([name(model), str(j["dof"]), str(j.get("joints", {}).get("rows", 0)), method,
                     form or "bushings", linear] +
                    ["%.1f" % j[k] for k in ("min_us", "p50_us", "p90_us", "p99_us", "max_us")] +
                    ["%.1f-%.1f" % (min(p50s), max(p50s)), "%d" % j["flops_per_step"], up, vs])
    if a.markdown:
        print(note + "\n")
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        print(note)
        w = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
        print("  ".join(h.ljust(w[i]) for i, h in enumerate(head)))
        for row in rows:
            print("  ".join(x.ljust(w[i]) for i, x in enumerate(row)))


if __name__ == "__main__":
    main()
