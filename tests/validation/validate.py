#!/usr/bin/python3
"""tests/validation/validate.py - LSRT2 and LIE against the CVODE reference on the LSRT2
paper's load cases (config/scenarios/lc{1,2}_{dw,ml}_axle.yaml), error measure of the paper's
eq. 27:

    e_y = sqrt(sum_i (y_i - y_ref,i)^2 / n) / mean(y_ref)

over every 1 ms sample of the run (signals resampled to 1 ms: the reference is written on
the 1 ms grid, dt = 0.5 ms keeps every second row, 2 and 5 ms are interpolated linearly).
y is the longitudinal wheel displacement (wheel centre x minus its value at t = 0) and one
bushing's longitudinal force, as in the paper's Figs. 6-9.

Usage:
  validate.py --rtvd build/app/rtvd [--work DIR] [--check] [--json FILE] [--plots DIR]
              [--cases lc1_dw,lc2_ml,...] [--dts 0.5,1,2,5] [--methods lsrt2,lie]

--check asserts the issue's bound (LSRT2 at dt = 1 ms, linearized every step: e <= 1 % for
both signals on every case) and exits 1 when it does not hold. --plots writes PNG figures
(python3-matplotlib). Timings are not judged here."""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# case: scenario, wheel-centre marker, bushing (its longitudinal force fx)
CASES = {
    "lc1_dw": ("lc1_dw_axle", "axle_l.wheel_center", "axle_l.lca_front"),
    "lc2_dw": ("lc2_dw_axle", "axle_l.wheel_center", "axle_l.lca_front"),
    "lc1_ml": ("lc1_ml_axle", "axle_l.wheel_center", "axle_l.trailing_inner"),
    "lc2_ml": ("lc2_ml_axle", "axle_l.wheel_center", "axle_l.trailing_inner"),
}
BOUND = 0.01  # the issue: <= 1 % at dt = 1 ms (the paper reports about 1 %)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.stderr.write("failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr[-4000:]))
        raise SystemExit(1)
    return p.stdout


def read_csv(path):
    with open(path) as f:
        r = csv.reader(f)
        head = next(r)
        cols = [[] for _ in head]
        for row in r:
            for i, v in enumerate(row):
                cols[i].append(float(v))
    return {h: c for h, c in zip(head, cols)}


def resample(t, y, grid):
    """linear interpolation of (t, y) at the grid points (t increasing, grid inside)"""
    out, j = [], 0
    for tg in grid:
        while j + 1 < len(t) - 1 and t[j + 1] <= tg:
            j += 1
        t0, t1 = t[j], t[j + 1]
        w = 0.0 if t1 == t0 else (tg - t0) / (t1 - t0)
        w = min(1.0, max(0.0, w))
        out.append(y[j] + w * (y[j + 1] - y[j]))
    return out


def nrmse(y, ref):
    """eq. 27 of the LSRT2 paper"""
    n = len(ref)
    mean = sum(ref) / n
    rms = math.sqrt(sum((a - b) ** 2 for a, b in zip(y, ref)) / n)
    return rms / abs(mean)


def series(d, marker, bushing):
    x = d[marker + ".px"]
    return [v - x[0] for v in x], d[bushing + ".fx"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtvd", required=True)
    ap.add_argument("--work", default=None, help="directory for the CSV files (default: temp)")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--plots", default=None)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--dts", default="0.5,1,2,5", help="[ms]")
    ap.add_argument("--methods", default="lsrt2,lie")
    ap.add_argument("--reuse", action="store_true",
                    help="take the CSV files already in --work instead of running rtvd")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="rtvd-validation-")
    os.makedirs(work, exist_ok=True)
    cases = a.cases.split(",")
    dts = [float(x) for x in a.dts.split(",")]
    methods = a.methods.split(",")
    results, failed = [], []
    worst = 0.0  # NRMSE / BOUND of LSRT2 at 1 ms, the checked runs
    for c in cases:
        scn, marker, bushing = CASES[c]
        path = os.path.join(ROOT, "config", "scenarios", scn + ".yaml")
        sig = "%s.px,%s.fx" % (marker, bushing)
        ref_csv = os.path.join(work, c + "-cvode.csv")
        info = "" if a.reuse and os.path.exists(ref_csv) else run(
            [a.rtvd, "sim", path, "--solver", "cvode", "--dt", "0.001", "--signals", sig,
             "--out", ref_csv])
        ref = read_csv(ref_csv)
        grid = ref["t"]
        xr, fr = series(ref, marker, bushing)
        cv = [l for l in info.splitlines() if l.startswith("done:")]
        print("%s: reference %s" % (c, cv[0] if cv else ""))
        runs = {}
        for meth in methods:
            for dt in dts:
                out = os.path.join(work, "%s-%s-%g.csv" % (c, meth, dt))
                if not (a.reuse and os.path.exists(out)):
                    run([a.rtvd, "sim", path, "--solver", meth, "--dt", "%g" % (dt * 1e-3),
                         "--relin", "1", "--signals", sig, "--out", out])
                d = read_csv(out)
                x, f = series(d, marker, bushing)
                x = resample(d["t"], x, grid)
                f = resample(d["t"], f, grid)
                ex, ef = nrmse(x, xr), nrmse(f, fr)
                runs[(meth, dt)] = (x, f)
                results.append({"case": c, "method": meth, "dt_ms": dt, "e_x": ex, "e_f": ef,
                                "signals": [marker + ".px", bushing + ".fx"]})
                print("  %-5s dt %4g ms: e_x %7.3f %%  e_f %7.3f %%" % (meth, dt, 100 * ex,
                                                                      100 * ef))
                if meth == "lsrt2" and dt == 1.0:
                    worst = max(worst, ex / BOUND, ef / BOUND)
                if meth == "lsrt2" and dt == 1.0 and not (ex <= BOUND and ef <= BOUND):
                    failed.append("%s: LSRT2 1 ms e_x %.3f %% e_f %.3f %% > %.1f %%" %
                                  (c, 100 * ex, 100 * ef, 100 * BOUND))
        if a.plots:
            plot_case(a.plots, c, grid, xr, fr, runs, marker, bushing)
    if a.plots:
        plot_errors(a.plots, results, cases, dts, methods)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    if a.check:
        if not any(r["method"] == "lsrt2" and r["dt_ms"] == 1.0 for r in results):
            print("FAIL: --check needs LSRT2 at dt = 1 ms in the run")
            return 1
        for m in failed:
            print("FAIL: " + m)
        print("validation: %d runs, %d over the bound" % (len(results), len(failed)))
        print("validation: worst error/tolerance %.3g" % worst)
        return 1 if failed else 0
    return 0


def plot_case(pdir, c, t, xr, fr, runs, marker, bushing):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(pdir, exist_ok=True)
    # full run (as the paper's Figs. 6 and 7) and a zoom where the methods differ most
    zoom = (4.98, 5.5) if c.startswith("lc1") else (15.0, 15.25)
    fig, ax = plt.subplots(2, 2, figsize=(12, 6), gridspec_kw={"width_ratios": [3, 2]})
    colors = {0.5: "tab:green", 1.0: "tab:blue", 2.0: "tab:orange", 5.0: "tab:red"}
    for row, (yr, k, scale) in enumerate(((xr, 0, 1e3), (fr, 1, 1.0))):
        for col in range(2):
            a_ = ax[row][col]
            sel = [i for i, tt in enumerate(t) if col == 0 or zoom[0] <= tt <= zoom[1]]
            ts = [t[i] for i in sel]
            a_.plot(ts, [scale * yr[i] for i in sel], "k-", lw=2.4, label="CVODE reference")
            for (meth, dt), ys in sorted(runs.items()):
                if meth == "lsrt2" or (meth == "lie" and dt == 1.0 and col == 1):
                    a_.plot(ts, [scale * ys[k][i] for i in sel],
                            "-" if meth == "lsrt2" else ":",
                            color=colors.get(dt) if meth == "lsrt2" else "tab:purple", lw=0.9,
                            label="%s dt = %g ms" % (meth.upper(), dt))
            a_.grid(alpha=0.3)
    ax[0][0].set_ylabel("wheel x displacement [mm]")
    ax[1][0].set_ylabel("%s Fx [N]" % bushing)
    ax[1][0].set_xlabel("t [s]")
    ax[1][1].set_xlabel("t [s] (zoom)")
    ax[0][0].set_title("%s: %s" % (c.upper().replace("_", " "), marker))
    ax[0][1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(pdir, c + ".png"), dpi=80)
    plt.close(fig)


def plot_errors(pdir, results, cases, dts, methods):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for k, key in enumerate(("e_x", "e_f")):
        for c in cases:
            for meth in methods:
                e = [r[key] for r in results if r["case"] == c and r["method"] == meth]
                d = [r["dt_ms"] for r in results if r["case"] == c and r["method"] == meth]
                ax[k].loglog(d, [100 * v for v in e], "o-" if meth == "lsrt2" else "s--",
                             label="%s %s" % (c, meth))
        ax[k].axhline(100 * BOUND, color="k", lw=0.8)
        ax[k].set_xlabel("dt [ms] (linearized every step)")
        ax[k].set_title("wheel displacement" if key == "e_x" else "bushing force")
        ax[k].grid(alpha=0.3, which="both")
    ax[0].set_ylabel("NRMSE (eq. 27) [%]")
    ax[1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(pdir, "nrmse.png"), dpi=90)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
