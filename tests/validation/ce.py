#!/usr/bin/python3
"""Minimal coordinates (issue 14 item 5): the CE HMMWV (config/vehicles/hmmwv_ce.yaml,
solver.formulation ce, 15 coordinates) against the same file as its tree with cut-joint
constraints (formulation ta: 55 tree coordinates, 40 rows) and as its fully augmented joint
model (formulation fa: every body free, every joint a constraint), from the command line with
`rtvd sim`.

  agree   the ISO 3888-1 double lane change at 20 m/s (config/scenarios/hmmwv_dlc.yaml) and the
          ISO 8608 class C road at 15 m/s (hmmwv_rough_road.yaml), 10 s each, in the three forms
          at dt = 1 ms and 0.5 ms and at the reference step dt / 8 = 0.125 ms: each form's
          step-size error against its own reference (LIE, first order), the differences CE - TA
          and CE - FA at each step and those of the references (the model difference the step
          cannot remove: none between CE and TA, the same rigid joints, but for TA's start made
          consistent with its cuts; FA's elastic steering box and wheel bearings)
  drift   the joint model's constraints g evaluated at the bodies CE places (sim's
          "joints: max |g|" line: every step), TA's cut rows and FA's joints with their
          projection and without it (--project none)
  stiff   (not with --quick) the model difference in the lane change with FA's elastic
          elements that CE makes rigid (the steering box, the wheel bearings) 10 and 100
          times stiffer

Writes tests/validation/ce.json; tests/validation/ce.md explains and tabulates it. --quick runs
1 s of each scenario (ctest ce_validation); --check asserts, each bound derived beside it.

python3 with Debian's python3-numpy only."""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CFG = os.path.join(ROOT, "config")
CE_FILE = os.path.join(CFG, "vehicles", "hmmwv_ce.yaml")
SCEN = {"dlc": os.path.join(CFG, "scenarios", "hmmwv_dlc.yaml"),
        "rough": os.path.join(CFG, "scenarios", "hmmwv_rough_road.yaml")}
FORMS = ("ce", "ta", "fa")
PAIRS = (("ce", "ta"), ("ce", "fa"))   # the differences checked: CE against each other form
DT = 1e-3
REF_DIV = 8                    # the reference step dt / 8
# the chassis state: pose [m, rad] and velocities [m/s, rad/s] (README signal table)
POS = ["chassis.x", "chassis.y", "chassis.z", "chassis.az", "chassis.ay", "chassis.ax"]
VEL = ["chassis.vx", "chassis.vy", "chassis.vz", "chassis.wx", "chassis.wy", "chassis.wz"]
SIGS = POS + VEL
FAILS = []
RESULTS = {}


def note(msg):
    print(msg, flush=True)


def check(cond, msg):
    """an assertion of --check: counted and printed, the run goes on"""
    if ARGS.check:
        note(("  ok: " if cond else "  FAIL: ") + msg)
        if not cond:
            FAILS.append(msg)


def vehicle(form, k=1.0):
    """hmmwv_ce.yaml with solver.formulation = form, written beside the temporary files with
    its relative paths made absolute (the tyre file); k > 1: every elastic element that CE
    makes a rigid joint k times stiffer (the steering box coupler, the wheel bearings' locked
    components, and the steering's bushing rates, unused with its `connection: joints`; their
    defaults, config/README.md, times k)"""
    path = os.path.join(ARGS.tmp, "hmmwv_%s%s.yaml" % (form, "" if k == 1.0 else "_k%g" % k))
    text = open(CE_FILE).read()
    text, n = re.subn(r"^(  formulation: )ce\b", r"\g<1>%s" % form, text, flags=re.M)
    if n != 1:
        sys.exit("ce.py: no 'formulation: ce' line in %s" % CE_FILE)
    text = text.replace("../tires/", os.path.join(CFG, "tires") + "/")
    if k != 1.0:
        g = lambda x: "%g" % (x * k)
        steer = ("  ratio: 0.05\n  box_stiffness: %s\n  bushings:\n"
                 "    bearing: {radial: %s, axial: %s, conical: %s}\n"
                 "    ujoint: {radial: %s, axial: %s, torsional: %s}\n"
                 "    ball_joint: {radial: %s, axial: %s}\n"
                 % (g(2e5), g(1e7), g(1e7), g(1e5), g(1e7), g(1e7), g(1e5), g(1e7), g(1e7)))
        strut = "      strut_bottom: {radial: 7.0e7, axial: 7.0e7}\n"
        if text.count("  ratio: 0.05\n") != 1 or text.count(strut) != 2:
            sys.exit("ce.py: %s no longer has the lines the stiffened copy edits" % CE_FILE)
        text = text.replace("  ratio: 0.05\n", steer)
        text = text.replace(strut, strut + "      bearing: {radial: %s, axial: %s, conical: %s}\n"
                            % (g(1e8), g(5e7), g(1e6)))
    open(path, "w").write(text)
    return path


def sim(scen, form, dt, extra=(), tag="", k=1.0):
    """rtvd sim of a scenario with the vehicle in a form; (columns, max |g| over the run)"""
    out = os.path.join(ARGS.tmp, "%s_%s_%g%s.csv" % (scen, form, dt * 1e6, tag))
    every = max(1, int(round(0.01 / dt)))    # samples every 10 ms
    cmd = [ARGS.rtvd, "sim", SCEN[scen], "--vehicle", vehicle(form, k), "--dt", repr(dt),
           "--duration", repr(ARGS.duration), "--out", out, "--every", str(every),
           "--signals", ",".join(SIGS)] + list(extra)
    if not (ARGS.reuse and os.path.exists(out) and os.path.exists(out + ".txt")):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        open(out + ".txt", "w").write(p.stdout)
        if p.returncode:
            sys.exit("ce.py: %s failed:\n%s" % (" ".join(cmd), p.stdout))
    info = open(out + ".txt").read()
    data = np.genfromtxt(out, delimiter=",", names=True, deletechars="")
    mo = re.search(r"^joints: max \|g\| (\S+) over the run", info, re.M)
    return {k: np.atleast_1d(data[k]) for k in data.dtype.names}, float(mo.group(1))


def at_end(c):
    return np.array([c[s][-1] for s in SIGS])


def runmax(a, b):
    """max over the run of |a - b| per signal (the common samples)"""
    n = min(len(a["t"]), len(b["t"]))
    return np.array([np.max(np.abs(a[s][:n] - b[s][:n])) for s in SIGS])


def agree():
    dts = [DT, DT / 2, DT / REF_DIV]
    for scen in SCEN:
        note("agree: %s, %g s, dt %s" % (scen, ARGS.duration, ", ".join("%g" % d for d in dts)))
        runs, gmax = {}, {}
        for form in FORMS:
            for dt in dts:
                runs[form, dt], gmax[form, dt] = sim(scen, form, dt)
        r = {"signals": SIGS, "duration_s": ARGS.duration, "dt": dts, "forms": {}}
        for form in FORMS:
            ref = runs[form, dts[-1]]
            e = {("%g" % dt): (np.abs(at_end(runs[form, dt]) - at_end(ref))).tolist()
                 for dt in dts[:2]}
            emax = {("%g" % dt): runmax(runs[form, dt], ref).tolist() for dt in dts[:2]}
            r["forms"][form] = {"err_end": e, "err_max": emax,
                                "gmax": {("%g" % dt): gmax[form, dt] for dt in dts}}
        # the differences CE - FA (keys diff_*) and CE - TA (keys diff_ta_*)
        for a, b in PAIRS:
            p = "" if b == "fa" else b + "_"
            r["diff_" + p + "end"] = {("%g" % dt): np.abs(at_end(runs[a, dt]) -
                                                          at_end(runs[b, dt])).tolist()
                                      for dt in dts}
            r["diff_" + p + "max"] = {("%g" % dt): runmax(runs[a, dt], runs[b, dt]).tolist()
                                      for dt in dts}
        r["end"] = {form: at_end(runs[form, DT]).tolist() for form in FORMS}
        RESULTS["agree_" + scen] = r
        checks_agree(scen, r, runs, dts)
        for i, s in enumerate(SIGS):
            note("  %-11s CE err %9.3g %9.3g  TA err %9.3g %9.3g  FA err %9.3g %9.3g  "
                 "|CE-TA| %9.3g %9.3g %9.3g  |CE-FA| %9.3g %9.3g %9.3g" % (
                     (s,) + tuple(r["forms"][f]["err_end"]["%g" % d][i]
                                  for f in FORMS for d in (DT, DT / 2)) +
                     tuple(r[k]["%g" % d][i] for k in ("diff_ta_end", "diff_end")
                           for d in (DT, DT / 2, DT / REF_DIV))))


# LIE is first order: e(h) = C h + O(h^2). Against the reference at h_r = h / 8, whose own
# error is C h_r, the measured m(h) = |y_h - y_r| = C (h - h_r) to first order, so
#   m(h) / m(h / 2) = (h - h_r) / (h / 2 - h_r) = (7 / 8) / (3 / 8) = 7 / 3        (1)
# and the true error is e(h) = m(h) h / (h - h_r) = 8 / 7 m(h). The O(h^2) remainder and
# the sign changes of C along a closed-loop run move the ratio: the HMMWV's observed orders at
# 4 .. 0.25 ms were 1.00-1.08 (joints.md), a factor 2^0.08 = 1.06 on (1); checked with a factor
# 1.5 either way (orders 0.6 .. 1.6), which separates first order from zeroth (a step that
# does not converge, ratio 1) and second (4 x 7 / 15 = 1.9 would pass: LSRT2 is not run here).
# The CE - FA difference then splits into the two forms' step errors and the difference of
# their exact solutions, the model difference M (FA's steering box coupler 2e5 N m/rad and
# its wheels' elastic bearings, where CE's steered axle and wheel revolutes are rigid):
#   CE_h - FA_h = (CE_h - CE*) - (FA_h - FA*) + (CE* - FA*)
#   |CE_h - FA_h| <= M + e_CE(h) + e_FA(h)                                          (2)
# with M = |CE_r - FA_r| + e_CE(h_r) + e_FA(h_r) from the references. The check predicts the
# errors at h from the runs at h / 2 alone, e(h) = 2 e(h / 2) (first order), times the 1.5 of
# the remainder, and adds the rounding accumulated over n = T / h steps (n u max|y|):
#   |CE_h - FA_h| <= |CE_r - FA_r| + 1.5 x 2 x 8/7 (m_CE(h/2) + m_FA(h/2)) x (1 + 1/8)
#                    + n u max|y|                                                  (3)
# (the 1 + 1/8: the references' own errors, C h_r = m(h/2) / 3 each.) (3) fails when a form's
# error at h is not what its error at h / 2 predicts, i.e. when the difference is not the
# step size's plus a fixed model difference.
RATIO = 7.0 / 3.0
REMAINDER = 1.5
U = 2.2e-16


def checks_agree(scen, r, runs, dts):
    """eq. 3 for each pair of PAIRS (the same derivation: two LIE discretizations whose exact
    solutions differ by a fixed model difference, for CE - TA only TA's consistent start),
    eq. 1 for each form"""
    h, h2, hr = dts
    T = ARGS.duration
    for norm, key in (("end", "err_end"), ("max", "err_max")):
        m1 = {f: np.array(r["forms"][f][key]["%g" % h]) for f in FORMS}
        m2 = {f: np.array(r["forms"][f][key]["%g" % h2]) for f in FORMS}
        scale = np.array([max(np.max(np.abs(runs["ce", h][sg])), 1.0) for sg in SIGS])
        for a, b in PAIRS:
            p = "" if b == "fa" else b + "_"
            dkey = "diff_" + p + norm
            d1 = np.array(r[dkey]["%g" % h])
            dr = np.array(r[dkey]["%g" % hr])
            bound = dr + REMAINDER * 2.0 * 8.0 / 7.0 * (m2[a] + m2[b]) * (1.0 + 1.0 / 8.0) + \
                (T / h) * U * scale
            r.setdefault("bound_" + p + norm, bound.tolist())
            for i, sg in enumerate(SIGS):
                check(d1[i] <= bound[i], "%s %s |%s - %s| %s at dt %g: %.3g <= %.3g (model "
                      "difference %.3g + step-size part from dt/2, eq. 3)"
                      % (scen, sg, a.upper(), b.upper(), norm, h, d1[i], bound[i], dr[i]))
        if norm == "max":
            # (1) on the sup norm of the run, for the signals that carry the manoeuvre (the
            # others are at rounding or fixed by the road, where ratios mean nothing): the
            # lateral position and yaw in the lane change, the height and pitch on the road
            main = ["chassis.x", "chassis.y", "chassis.az", "chassis.vy"] if scen == "dlc" else \
                ["chassis.z", "chassis.ay", "chassis.ax", "chassis.vz"]
            for form in FORMS:
                for sg in main:
                    i = SIGS.index(sg)
                    q = m1[form][i] / m2[form][i] if m2[form][i] > 0 else float("inf")
                    r["forms"][form].setdefault("ratio", {})[sg] = q
                    check(RATIO / REMAINDER <= q <= RATIO * REMAINDER,
                          "%s %s %s: error ratio dt / (dt/2) %.3f in [%.2f, %.2f] (first order, eq. 1)"
                          % (scen, form.upper(), sg, q, RATIO / REMAINDER, RATIO * REMAINDER))


def stiff():
    """the model difference M against the stiffness of what CE makes rigid: FA with those
    elements k = 10 and 100 times stiffer, in the lane change at 1 ms (the step errors are
    1/30 of M there); report only, the finding is in ce.md"""
    ce, _ = sim("dlc", "ce", DT)
    r = {}
    for k in (1.0, 10.0, 100.0):
        fa, _ = sim("dlc", "fa", DT, tag="" if k == 1.0 else "_k%g" % k, k=k)
        d = runmax(ce, fa)
        r["%g" % k] = {s: float(d[i]) for i, s in enumerate(SIGS)}
        note("stiff: FA elastic elements x %g: max |CE - FA| y %.3g m, az %.3g rad, vy %.3g m/s"
             % (k, d[SIGS.index("chassis.y")], d[SIGS.index("chassis.az")],
                d[SIGS.index("chassis.vy")]))
    RESULTS["stiff_dlc"] = r


def drift():
    for scen in SCEN:
        _, g_none = sim(scen, "fa", DT, ["--project", "none"], "_noproj")
        _, gta_none = sim(scen, "ta", DT, ["--project", "none"], "_noproj")
        r = RESULTS["agree_" + scen]
        r["fa_gmax_noproj"] = g_none
        r["ta_gmax_noproj"] = gta_none
        gce = max(r["forms"]["ce"]["gmax"].values())
        gfa = r["forms"]["fa"]["gmax"]["%g" % DT]
        gta = r["forms"]["ta"]["gmax"]["%g" % DT]
        note("drift: %s: max |g| CE %g, TA projected %g, TA without projection %g, "
             "FA projected %g, FA without projection %g" % (scen, gce, gta, gta_none, gfa, g_none))
        # CE: the joint rows at the placed bodies are differences of global positions of
        # bodies up to |x| (<= 25 m per second driven at 20 m/s) from a closed form of a
        # handful of operations, amplified by the motion ratios and the circle intersections'
        # condition (1e3, test_dwcorner.c): 1e3 u (|x| + 1 m); no growth with the steps (each
        # placement is from the tree state, not from the last one)
        xmax = 25.0 * ARGS.duration + 20.0
        check(gce <= 1e3 * U * (xmax + 1.0),
              "%s: CE max |g| over the run %.3g <= 1e3 u (|x| + 1) = %.3g (zero by construction)"
              % (scen, gce, 1e3 * U * (xmax + 1.0)))
        # FA projected: joints.py's bound (the projection's cubic remainder (dt w)^3 L <= 1e-8
        # for the arms' rates on these roads); without it: clearly more (100 x), i.e. the
        # projection is what holds it
        check(gfa <= 1e-8, "%s: FA max |g| projected %.3g <= 1e-8 (joints.py)" % (scen, gfa))
        check(g_none > 100 * gfa, "%s: FA max |g| without projection %.3g > 100 x projected"
              % (scen, g_none))
        # TA (the cut rows after the step, sim's line): the same simplified Newton step with
        # the step's factors, so the same bound, its remainder O(|dG| |ds|) = O(dt |q'| |g~|)
        # with the LIE's per-step g~ = O(dt^2 |q'|^2 / L) (test_ta: < 3e-10 before the
        # projection); without it the rows integrate that per-step error: the same 100 x
        check(gta <= 1e-8, "%s: TA max |g| projected %.3g <= 1e-8 (as FA's)" % (scen, gta))
        check(gta_none > 100 * gta, "%s: TA max |g| without projection %.3g > 100 x projected"
              % (scen, gta_none))


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtvd", default=os.path.join(ROOT, "build", "app", "rtvd"))
    ap.add_argument("--quick", action="store_true", help="1 s of each scenario (ctest)")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--tmp", help="keep the runs here (default: a temporary directory)")
    ap.add_argument("--reuse", action="store_true", help="reuse the runs found in --tmp")
    ap.add_argument("--json", help="write the figures here (default: ce.json beside the "
                    "script, not with --quick)")
    ARGS = ap.parse_args()
    ARGS.duration = 1.0 if ARGS.quick else 10.0
    with tempfile.TemporaryDirectory() as tmp:
        if not ARGS.tmp:
            ARGS.tmp = tmp
        os.makedirs(ARGS.tmp, exist_ok=True)
        agree()
        drift()
        if not ARGS.quick:
            stiff()
    out = ARGS.json or (None if ARGS.quick else os.path.join(HERE, "ce.json"))
    if out:
        json.dump(RESULTS, open(out, "w"), indent=1)
    if FAILS:
        note("ce.py: %d check(s) failed" % len(FAILS))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
