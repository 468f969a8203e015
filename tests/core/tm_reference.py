#!/usr/bin/python3
"""tests/core/tm_reference.py - independent reference for core/tire_tmeasy.c (ctest:
tm_reference).

Written from the equations in core/tire_tmeasy.h's header (TMeasy after Rill 2012 ch. 3 and
Chrono's ChTMeasyTire, with the camber force, the bore slip and the bore torque), in plain
Python: no code shared with the C side. The parameter set is the loader's
(`test_tire_tmeasy --params FILE`; the loader itself is checked against Chrono's estimation
by test_tire_tmeasy's test_files); this script checks the model.

Usage: tm_reference.py TEST_BINARY TIRE_DIR
For every *tmeasy*.json in TIRE_DIR, pipes operating points "kappa alpha fz mu gamma omega wn
re" to `TEST_BINARY --eval FILE` (answer "fx fy mz mb dfx[7] dfy[7] dmz[7] dmb[7]", partials
w.r.t. kappa, alpha, fz, gamma, omega, wn, re) and compares
  - values with this implementation (rolling with camber and turning, near standstill,
    parking with steering, pure camber, zero slip, beyond the load clamp),
  - the C analytic partials with Richardson-extrapolated central differences of this one,
  - hand-derived values at three states (printed): the small-camber camber stiffness and bore
    torque (linear limits of the adhesion curve), the parking bore torque RB FsB.
Exit status 1 on any mismatch."""

import math
import os
import random
import subprocess
import sys

# values: both sides evaluate the same ~200 rounded operations in different orders; the
# largest amplification of a relative rounding error is the cancellation in the curve
# pieces (Fm - a (s - sm)^2 with a (s - sm)^2 <= Fm - Fs, (ss - s*) >= ...) and in hx, hy,
# bounded by ~1e3 for these parameter sets: 200 x 1e3 x 2.2e-16 = 4.4e-11 of the scale
# (Fz for forces, Fz r0 for moments), so 1e-10.
TOL_VALUE = 1e-10
# partials: Richardson-extrapolated central differences of this side, (4 D(h/2) - D(h))/3,
# with h = 1e-5 in the slip it moves (kappa, alpha, and gamma, omega, wn, re scaled so that
# the bore or camber slip moves by 1e-5) or 1e-3 pn (load): the truncation O(h^4) ~ 1e-20 x
# the fourth derivative (<= dF0 / sm^3 ~ 1e8 N for these curves) is 1e-12 of Fz, the
# round-off ~ eps |f| / h = 2e-11 of the scale; where a kink of the C1 curve (sm, s*, ss,
# the trail's sy0, syE, dF0 = 2 Fm/sm) lies within 2h the error is h |f''| ~ 1e-5 x dF0 /
# sm ~ 1e-3 of the scale, so a direction whose stencil crosses a kink is skipped. 1e-6 still catches any
# wrong chain-rule term.
TOL_PARTIAL = 1e-6
S_TINY = 1e-9


def load_params(binary, path):
    out = subprocess.run([binary, "--params", path], check=True, capture_output=True,
                         text=True).stdout
    P = {}
    for line in out.splitlines():
        f = line.split()
        P[f[0]] = [float(x) for x in f[1:]] if len(f) > 2 else float(f[1])
    return P


def curve(s, df0, sm, fm, ss, fs):
    """F(s) of the combined characteristic; the kink flags for skipping finite differences"""
    df0 = max(df0, 2.0 * fm / sm)
    if s > ss:
        return fs
    if s <= sm:
        p = df0 * sm / fm - 2.0
        u = s / sm
        return df0 * s / (1.0 + u * (u + p))
    a = (fm / sm) ** 2 / (df0 * sm)
    star = sm + (fm - fs) / (a * (ss - sm))
    if star <= ss:
        if s <= star:
            return fm - a * (s - sm) ** 2
        b = a * (star - sm) / (ss - star)
        return fs + b * (ss - s) ** 2
    u = (s - sm) / (ss - sm)
    return fm - (fm - fs) * u * u * (3.0 - 2.0 * u)


def kinks(s, df0, sm, fm, ss, fs):
    """the break points of curve() for these parameters"""
    k = [sm, ss]
    d = max(df0, 2.0 * fm / sm)
    a = (fm / sm) ** 2 / (d * sm)
    k.append(sm + (fm - fs) / (a * (ss - sm)))
    return k


def trail(sy, n0, s0, se):
    a = abs(sy)
    se = max(se, s0)
    if a >= se:
        return 0.0
    w = s0 / se
    if a <= s0:
        u = a / s0
        return n0 * ((1.0 - w) * (1.0 - u) + w * (1.0 - (3.0 - 2.0 * u) * u * u))
    u = (se - a) / (se - s0)
    return -n0 * (1.0 - w) * (a - s0) / s0 * u * u


def tm(P, kappa, alpha, fz, mu, gamma, omega, wn, re, info=None):
    """(fx, fy, mz, mb) of core/tire_tmeasy.h; info (a list) collects the signed distances of
    the slips to the curves' kinks, for the finite-difference skip"""
    fz = max(fz, 0.0)
    fzc = min(fz, P["pn_max"])
    q = fzc / P["pn"]
    if q <= 0.0:
        return (0.0, 0.0, 0.0, 0.0)
    ms = mu / P["mu0"]

    def iq(k):
        w1, w2 = P[k]
        return q * (2 * w1 - w2 / 2 - (w1 - w2 / 2) * q)

    def il(k):
        w1, w2 = P[k]
        return w1 + (w2 - w1) * (q - 1)

    dfx0, dfy0 = iq("dfx0"), iq("dfy0")
    fxm, fym, fxs, fys = (ms * iq(k) for k in ("fxm", "fym", "fxs", "fys"))
    sxm, sym, sxs, sys_ = (ms * il(k) for k in ("sxm", "sym", "sxs", "sys"))
    L = 2.0 * math.sqrt(P["r0"] * fz / P["cz"])
    RB = (L + P["width"]) / 6.0
    vt = math.sqrt((re * omega) ** 2 + P["vn"] ** 2)
    sB = -RB * wn / vt
    sgam = -0.5 * L * omega * math.sin(gamma) / vt
    rx, ry = fxm / dfx0, fym / dfy0
    hx = sxm / (sxm + sym) + rx / (rx + ry)
    hy = sym / (sxm + sym) + ry / (rx + ry)
    sy = -math.tan(alpha)
    sxn, syn = kappa / hx, sy / hy
    sG = math.sqrt(sxn * sxn + syn * syn + sB * sB)
    dfB = math.hypot(dfx0 * hx, dfy0 * hy) / math.sqrt(2.0)
    if sG < S_TINY:
        fx, fy, mb, kc = dfx0 * kappa, dfy0 * sy, RB * dfB * sB, dfy0 / 3.0
    else:
        c, sn, cb = sxn / sG, syn / sG, sB / sG
        r2 = math.sqrt(0.5)

        def h3(a, b, d):
            return math.sqrt(a * a + b * b + d * d)

        df0 = h3(dfx0 * hx * c, dfy0 * hy * sn, dfB * cb)
        fm = h3(fxm * c, fym * sn, r2 * math.hypot(fxm, fym) * cb)
        sm = h3(sxm / hx * c, sym / hy * sn, r2 * math.hypot(sxm / hx, sym / hy) * cb)
        fs = h3(fxs * c, fys * sn, r2 * math.hypot(fxs, fys) * cb)
        ss = h3(sxs / hx * c, sys_ / hy * sn, r2 * math.hypot(sxs / hx, sys_ / hy) * cb)
        F = curve(sG, df0, sm, fm, ss, fs)
        if info is not None:
            info.extend((sG - k) / k for k in kinks(sG, df0, sm, fm, ss, fs))
            info.append((df0 - 2.0 * fm / sm) / df0)
        fx, fy, mb, kc = F * c, F * sn, RB * F * cb, F / (3.0 * sG * hy)
    n0 = il("nto0")
    s0, se = ms * il("synto0"), ms * il("syntoE")
    if info is not None:
        # the trail's |sy| and the direction at sG = 0 are kinks too
        info.extend((abs(sy) - k) / k for k in (s0, max(se, s0)))
        info.extend((sy, sG - 2 * S_TINY))
        info.append((fz - P["pn_max"]) / P["pn_max"])
        info.append(sG)  # last: the generalised slip (its direction is undefined at 0)
    mz = -L * trail(sy, n0, s0, se) * fy
    return (fx, fy + kc * sgam, mz, mb)


def points(P, rng):
    """operating points: rolling (cambered, turning), near standstill, parking, pure camber,
    zero slip, heavy load beyond pn_max"""
    r0, pn, mu0 = P["r0"], P["pn"], P["mu0"]
    pts = []
    for i in range(300):
        re = r0 * rng.uniform(0.9, 1.0)
        kind = i % 6
        fz = pn * rng.uniform(0.2, 3.0)
        mu = mu0 * rng.uniform(0.5, 1.2)
        g = rng.uniform(-0.1, 0.1)
        if kind in (0, 1):  # rolling, any slip, turning as a car does
            om = rng.uniform(-40.0, 40.0) / re
            pts.append((rng.uniform(-0.5, 0.5), rng.uniform(-0.4, 0.4), fz, mu, g, om,
                        om * math.sin(g) + rng.uniform(-0.5, 0.5), re))
        elif kind == 2:  # near standstill, creeping
            om = rng.uniform(-0.05, 0.05) / re
            pts.append((rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), fz, mu, g, om,
                        rng.uniform(-2.0, 2.0), re))
        elif kind == 3:  # parking: no spin, steering
            pts.append((0.0, 0.0, fz, mu, g, 0.0, rng.uniform(-1.0, 1.0), re))
        elif kind == 4:  # pure camber, rolling straight
            om = rng.uniform(5.0, 40.0) / re
            pts.append((0.0, 0.0, fz, mu, g, om, om * math.sin(g), re))
        else:  # small slips with camber, the linear range
            om = rng.uniform(5.0, 40.0) / re
            pts.append((rng.uniform(-0.01, 0.01), rng.uniform(-0.01, 0.01), fz, mu, g, om,
                        om * math.sin(g), re))
    pts.append((0.0, 0.0, pn, mu0, 0.0, 0.0, 0.0, r0))  # zero slip
    return pts


def run_c(binary, path, pts):
    inp = "".join(" ".join("%.17g" % v for v in p) + "\n" for p in pts)
    out = subprocess.run([binary, "--eval", path], input=inp, check=True, capture_output=True,
                         text=True).stdout
    rows = [[float(x) for x in line.split()] for line in out.splitlines()]
    if len(rows) != len(pts) or any(len(r) != 4 + 4 * 7 for r in rows):
        raise SystemExit("tm_reference: the C side answered %d rows for %d points"
                         % (len(rows), len(pts)))
    return rows


def steps(P, p):
    """finite-difference steps per input (kappa, alpha, fz, gamma, omega, wn, re) so that the
    slip each moves changes by ~1e-5 (docstring of TOL_PARTIAL)"""
    kappa, alpha, fz, mu, g, om, wn, re = p
    L = 2.0 * math.sqrt(P["r0"] * max(fz, 1.0) / P["cz"])
    RB = (L + P["width"]) / 6.0
    vt = math.sqrt((re * om) ** 2 + P["vn"] ** 2)
    h = 1e-5
    d_g = 0.5 * L * abs(om) / vt
    d_om = RB * abs(wn) * re / vt ** 2 + L * abs(math.sin(g)) / vt
    d_wn = RB / vt
    d_re = (RB * abs(wn) + 0.5 * L * abs(om * math.sin(g))) * abs(om) / vt ** 2
    return [h, h, 1e-3 * P["pn"],
            h / max(d_g, 1.0), h / max(d_om, 1e-2), h / max(d_wn, 1.0), h / max(d_re, 1.0)]


def richardson(P, p, j, h):
    idx = j if j < 3 else j + 1  # skip mu

    def central(step):
        a, b = list(p), list(p)
        a[idx] += step
        b[idx] -= step
        fa, fb = tm(P, *a), tm(P, *b)
        return [(x - y) / (2 * step) for x, y in zip(fa, fb)]

    d1, d2 = central(h), central(h / 2)
    return [(4 * y - x) / 3 for x, y in zip(d1, d2)]


def hand_values(P, binary, path):
    """three states derived by hand (the test's own derivation, printed for the record)"""
    r0, pn, mu0, cz, B, vn = P["r0"], P["pn"], P["mu0"], P["cz"], P["width"], P["vn"]
    w = {k: P[k][0] for k in ("dfx0", "dfy0", "fxm", "fym", "sxm", "sym", "fxs", "fys")}
    rx, ry = w["fxm"] / w["dfx0"], w["fym"] / w["dfy0"]
    hx = w["sxm"] / (w["sxm"] + w["sym"]) + rx / (rx + ry)
    hy = w["sym"] / (w["sxm"] + w["sym"]) + ry / (rx + ry)
    dfB = math.hypot(w["dfx0"] * hx, w["dfy0"] * hy) / math.sqrt(2)
    fsB = math.hypot(w["fxs"], w["fys"]) / math.sqrt(2)
    L = 2 * math.sqrt(r0 * pn / cz)
    RB = (L + B) / 6
    re = 0.97 * r0
    om = 20.0 / re
    vt = math.hypot(re * om, vn)
    g = 1e-6
    pts = [(0.0, 0.0, pn, mu0, g, om, om * math.sin(g), re),
           (0.0, 0.0, pn, mu0, 0.0, 0.0, 0.5, re)]
    rows = run_c(binary, path, pts)
    # camber stiffness dFy/dgamma and dMB/dgamma at gamma -> 0 (adhesion's linear limit:
    # relative deviation <= 2 u (u + p) with u = RB sin(g) / (re sm) ~ 1e-6)
    cam = -dfB / (3 * hy) * 0.5 * L * om / vt
    bore = -RB * RB * dfB * om / vt
    park = -RB * fsB
    got = (rows[0][1] / g, rows[0][3] / g, rows[1][3])
    want = (cam, bore, park)
    tol = (1e-5, 1e-5, 1e-12)
    bad = 0
    for name, gv, wv, t in zip(("camber stiffness dFy/dgamma [N/rad]",
                                "camber bore torque dMB/dgamma [N m/rad]",
                                "parking bore torque at 0.5 rad/s [N m]"), got, want, tol):
        ok = abs(gv - wv) <= t * abs(wv)
        bad += not ok
        print("  %-42s C %12.6g  hand %12.6g  %s" % (name, gv, wv, "ok" if ok else "FAIL"))
    return bad


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    binary, tdir = sys.argv[1], sys.argv[2]
    files = sorted(os.path.join(tdir, f) for f in os.listdir(tdir)
                   if "tmeasy" in f and f.endswith(".json"))
    if not files:
        raise SystemExit("tm_reference: no *tmeasy*.json in " + tdir)
    rng = random.Random(20261127)
    fails = 0
    ratio = 0.0
    for path in files:
        name = os.path.basename(path)
        P = load_params(binary, path)
        pts = points(P, rng)
        rows = run_c(binary, path, pts)
        npart = nskip = 0
        for p, row in zip(pts, rows):
            info = []
            ref = tm(P, *p, info=info)
            sc = [p[2], p[2], p[2] * P["r0"], p[2] * P["r0"]]
            sc = [max(s, P["pn"]) for s in sc]
            for k in range(4):
                err = abs(row[k] - ref[k]) / sc[k]
                ratio = max(ratio, err / TOL_VALUE)
                if not math.isfinite(row[k]) or err > TOL_VALUE:
                    fails += 1
                    print("%s: value %d at %s: C %.15g ref %.15g" % (name, k, p, row[k], ref[k]))
            hs = steps(P, p)
            for j in range(7):
                # skip where the differences' stencil (+-h, widened to +-2h) crosses a kink
                ends = []
                for sgn in (1, -1):
                    q = list(p)
                    idx = j if j < 3 else j + 1
                    q[idx] += sgn * 2 * hs[j]
                    i2 = []
                    tm(P, *q, info=i2)
                    ends.append(i2)
                near = len(ends[0]) != len(ends[1]) or any(
                    (a > 0) != (b > 0) or (a < 0) != (b < 0) for a, b in zip(*ends))
                # the stencil passes by sG = 0 (the linear law's point) if sG is small at the
                # centre and moves
                near |= info[-1] < 1e-4 and (ends[0][-1] != info[-1] or ends[1][-1] != info[-1])
                if near:
                    nskip += 1
                    continue
                fd = richardson(P, p, j, hs[j])
                for k in range(4):
                    an = row[4 + 7 * k + j]
                    scale = sc[k] / hs[j] * (1e-5 if j != 2 else 1e-3 * P["pn"])
                    err = abs(an - fd[k]) / (abs(fd[k]) + scale)
                    ratio = max(ratio, err / TOL_PARTIAL)
                    npart += 1
                    if not math.isfinite(an) or err > TOL_PARTIAL:
                        fails += 1
                        if fails < 30:
                            print("%s: d%d/d%d at %s: C %.12g ref %.12g" %
                                  (name, k, j, p, an, fd[k]))
        print("%s: %d points, %d partials compared (%d input directions near a kink skipped)"
              % (name, len(pts), npart, nskip))
        fails += hand_values(P, binary, path)
    print("tm_reference: worst error/tolerance %.3g" % ratio)
    if fails:
        print("tm_reference: %d mismatches" % fails)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
