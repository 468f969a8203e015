#!/usr/bin/python3
"""TMeasy and the Magic Formula on the sedan (tests/validation/tmeasy.md): every table of that
note, regenerated from the repository.

  /usr/bin/python3 tests/validation/tmeasy.py --build build [--check]

prints the note's tables as Markdown (paste them into tmeasy.md). Sources:
  - the steady-state curves: the tyre functions the element calls, through the test programs'
    evaluation back ends (`test_tire_mf --eval FILE.tir`: vd_mf_eval; `test_tire_tmeasy
    --eval FILE.json`: vd_tm_eval), at Fz = 4000 N, 20 m/s, each model at its own friction
    (MF: mu scale 1; TMeasy: mu = mu0 = 0.8);
  - the vehicle: `rtvd sim` on config/vehicles/sedan.yaml (MF) and sedan_tmeasy.yaml, LSRT2 at
    1 ms: the braking stop of config/scenarios/accel_brake.yaml, straight running at 20 m/s
    (the camber force of each tyre at its static camber) and steering at rest.

--check asserts the plausibility of the camber terms on the vehicle (exit status 1 if not):
  - straight at 20 m/s, every tyre of the TMeasy sedan: the tyre's force evaluated at the
    element's own outputs (kappa, alpha, Fz, gamma, Omega, Re, mirrored on the right) equals
    the force in the simulation (within 1 %: the low-speed damping and the turning of the
    wheel about the normal are left out of the evaluation), and its camber part (the force
    minus the same evaluation at gamma = 0) pushes the wheel to the side its top leans to:
    Fgam gamma < 0 in ISO axes, on both sides;
  - steering at rest (brakes held): the front tyres' moment about the normal opposes the
    steering (mean Mz < -100 N m while the wheels turn left, both front tyres against the
    turning on > 90 % of the steps) and the torsion bar carries it to the driver (mean ISO
    steering torque > 10 N m while turning left), where the MF sedan needs < 2 N m (turn slip
    off)."""

import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIRES = os.path.join(ROOT, "config", "tires")
MF_TIR = os.path.join(TIRES, "passenger_245_40R18_pac2002_scaled.tir")
TM_JSON = os.path.join(TIRES, "passenger_245_40R18_tmeasy.json")
VEH = {"MF": os.path.join(ROOT, "config", "vehicles", "sedan.yaml"),
       "TMeasy": os.path.join(ROOT, "config", "vehicles", "sedan_tmeasy.yaml")}
FZ = 4000.0
V = 20.0
CORNERS = ("front_l", "front_r", "rear_l", "rear_r")


def evaluate(binary, path, rows):
    inp = "".join(" ".join("%.17g" % x for x in r) + "\n" for r in rows)
    out = subprocess.run([binary, "--eval", path], input=inp, check=True, capture_output=True,
                         text=True).stdout
    return [[float(x) for x in line.split()] for line in out.splitlines()]


class Tyres:
    """the two tyre functions at one load and speed"""

    def __init__(self, build):
        self.mfb = os.path.join(build, "tests", "core", "test_tire_mf")
        self.tmb = os.path.join(build, "tests", "core", "test_tire_tmeasy")
        P = {}
        out = subprocess.run([self.tmb, "--params", TM_JSON], check=True, capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            f = line.split()
            P[f[0]] = [float(x) for x in f[1:]]
        self.P = P
        self.r0 = P["r0"][0]
        self.mu0 = P["mu0"][0]
        # the element's rolling radius at FZ: (2 r0 + rho) / 3, rho = r0 - FZ / cz
        self.re = self.r0 - FZ / P["cz"][0] / 3.0

    def mf(self, kappa, alpha, gamma=0.0, fz=FZ):
        """(fx, fy, mz)"""
        r = evaluate(self.mfb, MF_TIR, [(kappa, alpha, gamma, fz, 1.0, V)])[0]
        return r[0], r[1], r[2]

    def tm(self, kappa, alpha, gamma=0.0, fz=FZ, wn=None, omega=None, re=None, mu=None):
        """(fx, fy, mz + mb, mb): rolling at V, the carrier not turning unless wn is given"""
        re = self.re if re is None else re
        om = V / re if omega is None else omega
        wn = om * math.sin(gamma) if wn is None else wn
        mu = self.mu0 if mu is None else mu
        r = evaluate(self.tmb, TM_JSON, [(kappa, alpha, fz, mu, gamma, om, wn, re)])[0]
        return r[0], r[1], r[2] + r[3], r[3]


def curves(T):
    out = ["## Steady state: force against slip at Fz = 4000 N (a front corner of the sedan)", "",
           "Pure slip, no camber, each model at its own friction (MF mu scale 1, TMeasy mu = mu0 "
           "= 0.8), 20 m/s.", "",
           "| alpha [deg] | Fy MF [N] | Fy TMeasy [N] | Mz MF [N m] | Mz TMeasy [N m] |",
           "|---:|---:|---:|---:|---:|"]
    for a in (0, 1, 2, 3, 4, 5, 6, 8, 9, 15, 20, 25):
        m, t = T.mf(0.0, math.radians(a)), T.tm(0.0, math.radians(a))
        out.append("| %2d | %5.0f | %5.0f | %5.1f | %5.1f |" % (a, m[1], t[1], m[2], t[2]))
    out += ["", "| kappa | Fx MF [N] | Fx TMeasy [N] |", "|---:|---:|---:|"]
    for k in (0.0, -0.05, -0.10, -0.15, -0.20, -0.50, -0.80):
        out.append("| %5.2f | %5.0f | %5.0f |" % (k, T.mf(k, 0.0)[0], T.tm(k, 0.0)[0]))
    return out


def camber(T):
    out = ["## Camber at Fz = 4000 N, 20 m/s, no slip", "",
           "Positive inclination gamma (ISO: right-hand about the heading) leans the top of the "
           "wheel to -y; the camber force pushes the wheel to the side its top leans to (Fy "
           "gamma < 0). TMeasy's Mz at zero slip is the bore torque of the wheel's turning "
           "Omega sin(gamma) about the normal (its carrier not turning).", "",
           "| gamma [deg] | Fy MF [N] | Fy TMeasy [N] | Mz MF [N m] | Mz TMeasy [N m] |",
           "|---:|---:|---:|---:|---:|"]
    for g in (0, 1, 2, 3, 4, 6, -3):
        m, t = T.mf(0.0, 0.0, math.radians(g)), T.tm(0.0, 0.0, math.radians(g))
        out.append("| %2d | %6.1f | %6.1f | %6.2f | %6.2f |" % (g, m[1], t[1], m[2], t[2]))
    out += ["", "Cornering with camber (TMeasy; MF beside it): Fy at -3 deg (the top leaning in "
            "the direction of the force, as on the outer wheel of a car with negative camber "
            "gain) and +3 deg, against gamma = 0.", "",
            "| alpha [deg] | MF -3 | MF 0 | MF +3 | TMeasy -3 | TMeasy 0 | TMeasy +3 |",
            "|---:|---:|---:|---:|---:|---:|---:|"]
    for a in (0, 1, 2, 4, 8):
        row = [T.mf(0.0, math.radians(a), math.radians(g))[1] for g in (-3, 0, 3)]
        row += [T.tm(0.0, math.radians(a), math.radians(g))[1] for g in (-3, 0, 3)]
        out.append("| %d | " % a + " | ".join("%5.0f" % x for x in row) + " |")
    out += ["", "Bore torque at rest (no spin), the wheel turning about the normal (TMeasy; the "
            "MF tyre has none with turn slip off):", "",
            "| turning rate [rad/s] | 0.002 | 0.005 | 0.01 | 0.02 | 0.05 | 0.1 | 0.5 |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    row = [T.tm(0.0, 0.0, 0.0, wn=w, omega=0.0)[3] for w in (0.002, 0.005, 0.01, 0.02, 0.05,
                                                             0.1, 0.5)]
    out.append("| Mz TMeasy [N m] | " + " | ".join("%.1f" % x for x in row) + " |")
    return out


def sim(rtvd, work, name, veh, duration, head, outputs):
    scen = os.path.join(work, "%s.yaml" % name)
    with open(scen, "w") as f:
        f.write("scenario: {name: %s, vehicle: %s, duration: %g}\n" % (name, veh, duration))
        f.write(head)
        f.write("outputs: [%s]\n" % ", ".join(outputs))
    out = os.path.join(work, "%s.csv" % name)
    subprocess.run([rtvd, "sim", scen, "--out", out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    rows = list(csv.reader(open(out)))
    cols = list(zip(*[[float(x) for x in r] for r in rows[1:]]))
    return {h: list(c) for h, c in zip(rows[0], cols)}


DRIVER = ("  drive: [front_l.drive, front_r.drive]\n"
          "  brake: [front_l.brake, front_r.brake, rear_l.brake, rear_r.brake]\n")


def braking(rtvd, work):
    head = ("driver:\n  speed: [[0, 0], [0.5, 0], [8.0, 20.0], [9.0, 20.0], [13.0, 0.0]]\n"
            + DRIVER + "  max_drive: 1200\n  max_brake: 2500\n")
    sig = ["chassis.x", "chassis.vx", "imu.ax", "front_l.tire.fx", "front_l.tire.kappa"]
    res = {}
    for k, veh in VEH.items():
        d = sim(rtvd, work, "brake_" + k, veh, 16.0, head, sig)
        t = d["t"]
        i9 = min(range(len(t)), key=lambda i: abs(t[i] - 9.0))
        stop = next(i for i in range(i9, len(t)) if abs(d["chassis.vx"][i]) < 0.05)
        br = range(i9, stop + 1)
        res[k] = [d["chassis.vx"][i9], t[stop], d["chassis.x"][stop] - d["chassis.x"][i9],
                  max(-d["imu.ax"][i] for i in br),
                  min(d["front_l.tire.kappa"][i] for i in br),
                  max(abs(d["front_l.tire.fx"][i]) for i in br),
                  d["chassis.vx"][-1], d["chassis.x"][-1] - d["chassis.x"][stop]]
    names = ["speed at 9 s [m/s]", "standstill (vx < 0.05 m/s) at [s]",
             "distance from 9 s to standstill [m]", "peak deceleration [m/s^2]",
             "largest braking slip, front left", "largest front-left Fx [N]",
             "vx at 16 s (3 s after the stop) [m/s]", "creep from standstill to 16 s [m]"]
    fmt = ["%.2f", "%.2f", "%.2f", "%.2f", "%.3f", "%.0f", "%.4f", "%.3f"]
    out = ["## Braking stop (config/scenarios/accel_brake.yaml)", "",
           "| | MF | TMeasy |", "|---|---:|---:|"]
    for j, n in enumerate(names):
        out.append("| %s | %s | %s |" % (n, fmt[j] % res["MF"][j], fmt[j] % res["TMeasy"][j]))
    return out


def straight(rtvd, work, T):
    """the camber force of each tyre of the TMeasy sedan at 20 m/s: the tyre function at the
    element's outputs, with and without gamma, against the simulation"""
    head = "initial: {speed: 20.0}\ndriver:\n  speed: 20.0\n" + DRIVER
    keys = ("fy", "kappa", "alpha", "fz", "gamma", "omega", "rho")
    sig = ["%s.tire.%s" % (c, k) for c in CORNERS for k in keys]
    d = sim(rtvd, work, "straight_TMeasy", VEH["TMeasy"], 3.0, head, sig)
    out = ["## Camber force on the sedan, straight at 20 m/s (TMeasy)", "",
           "Each tyre at 3 s: its outputs fed to the tyre function (mirrored on the right: the "
           "element evaluates a right-hand tyre in mirrored axes), with its camber and at "
           "gamma = 0; the camber part is the difference.", "",
           "| tyre | gamma [deg] | alpha [deg] | Fz [N] | Fy sim [N] | Fy eval [N] | "
           "Fy at gamma = 0 [N] | camber part [N] |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    bad = []
    for c in CORNERS:
        v = {k: d["%s.tire.%s" % (c, k)][-1] for k in keys}
        sm = -1.0 if c.endswith("_r") else 1.0
        re = (2 * T.r0 + v["rho"]) / 3
        full = sm * T.tm(v["kappa"], sm * v["alpha"], sm * v["gamma"], v["fz"],
                         omega=v["omega"], re=re)[1]
        flat = sm * T.tm(v["kappa"], sm * v["alpha"], 0.0, v["fz"], omega=v["omega"], re=re)[1]
        cam = full - flat
        out.append("| %s | %.3f | %.3f | %.0f | %.1f | %.1f | %.1f | %.1f |" %
                   (c, math.degrees(v["gamma"]), math.degrees(v["alpha"]), v["fz"], v["fy"],
                    full, flat, cam))
        if abs(full - v["fy"]) > 0.01 * max(abs(v["fy"]), 50.0):
            bad.append("%s: Fy %.2f in the simulation, %.2f from the tyre function at its "
                       "outputs" % (c, v["fy"], full))
        if not cam * v["gamma"] < 0.0:
            bad.append("%s: camber part %.2f N at gamma %.4f rad does not push to the side "
                       "the top leans to" % (c, cam, v["gamma"]))
    return out, bad


def parking(rtvd, work):
    head = ("inputs:\n  steering.angle: {ramp: {start: 1, end: 4, to: 1.5}}\n" +
            "".join("  %s.brake: 800\n" % c for c in CORNERS))
    sig = ["steering.angle.u", "steering.torsion_bar.mx", "front_l.tire.mz", "front_r.tire.mz",
           "front_l.tire.omega", "chassis.x"]
    res = {}
    for k, veh in VEH.items():
        d = sim(rtvd, work, "park_" + k, veh, 12.0, head, sig)
        t = d["t"]
        turn = [i for i in range(len(t)) if 2.0 <= t[i] <= 4.0]
        tq = [-d["steering.torsion_bar.mx"][i] for i in turn]
        mz = [0.5 * (d["front_l.tire.mz"][i] + d["front_r.tire.mz"][i]) for i in turn]
        res[k] = {
            "torque": (min(tq), sum(tq) / len(tq), max(tq)),
            "mz": (min(mz), sum(mz) / len(mz), max(mz)),
            "against": sum(1 for i in turn if d["front_l.tire.mz"][i] < 0.0
                           and d["front_r.tire.mz"][i] < 0.0) / len(turn),
            "spin": max(abs(d["front_l.tire.omega"][i]) for i in turn),
            "t8": -d["steering.torsion_bar.mx"][min(range(len(t)), key=lambda i: abs(t[i] - 8))],
            "creep": max(abs(x - d["chassis.x"][0]) for x in d["chassis.x"]),
        }

    def rng(x):
        return "%.1f / %.1f / %.1f" % x

    out = ["## Steering at rest", "",
           "The sedan parked, brakes held (800 N m per wheel), steering wheel 0 -> 1.5 rad from "
           "1 to 4 s (0.5 rad/s), then held to 12 s; no assist. Steering torque: the torsion "
           "bar's, ISO sign (positive: the driver turns left against the tyres). Values while "
           "turning (2-4 s) as min / mean / max.", "",
           "| | MF | TMeasy |", "|---|---:|---:|",
           "| steering torque while turning [N m] | %s | %s |" % (
               rng(res["MF"]["torque"]), rng(res["TMeasy"]["torque"])),
           "| front tyres' mean Mz while turning [N m] | %s | %s |" % (
               rng(res["MF"]["mz"]), rng(res["TMeasy"]["mz"])),
           "| steps with both front Mz against the turning | %.1f %% | %.1f %% |" % (
               100 * res["MF"]["against"], 100 * res["TMeasy"]["against"]),
           "| largest front-left spin while turning [rad/s] | %.3f | %.3f |" % (
               res["MF"]["spin"], res["TMeasy"]["spin"]),
           "| steering torque at 8 s (held 4 s) [N m] | %.1f | %.1f |" % (
               res["MF"]["t8"], res["TMeasy"]["t8"]),
           "| largest travel of the chassis [m] | %.4f | %.4f |" % (
               res["MF"]["creep"], res["TMeasy"]["creep"])]
    bad = []
    r = res["TMeasy"]
    if not (r["mz"][1] < -100.0 and r["torque"][1] > 10.0 and r["against"] > 0.9):
        bad.append("parked steering, TMeasy: mean tyre Mz %.1f N m, mean steering torque %.1f N "
                   "m, %.0f %% of the steps against the turning: the bore torque does not "
                   "oppose the turning" % (r["mz"][1], r["torque"][1], 100 * r["against"]))
    if not res["MF"]["torque"][2] < 2.0:
        bad.append("parked steering, MF: %.1f N m (turn slip off: expected ~0)" %
                   res["MF"]["torque"][2])
    return out, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    rtvd = os.path.join(a.build, "app", "rtvd")
    T = Tyres(a.build)
    lines = curves(T) + [""] + camber(T) + [""]
    with tempfile.TemporaryDirectory(prefix="tmeasy.") as work:
        lines += braking(rtvd, work) + [""]
        s, bad = straight(rtvd, work, T)
        p, bad2 = parking(rtvd, work)
        lines += s + [""] + p
        bad += bad2
    print("\n".join(lines))
    if a.check:
        for b in bad:
            print("tmeasy.py: FAIL: " + b, file=sys.stderr)
        print("tmeasy.py: %s" % ("%d failures" % len(bad) if bad else "camber and bore torque "
                                  "plausible on the sedan"), file=sys.stderr)
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
