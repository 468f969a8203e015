#!/usr/bin/python3
"""The sedan's steering torque on its complete tyre (config/vehicles/sedan.yaml:
passenger_245_40R18_pac2002_scaled.tir) against the pure-slip file it replaced (combined slip by
the friction ellipse, no SSZ terms), in three manoeuvres at 20 m/s, without steering assist:
  - steer ramp (ISO 4138 constant speed): the steering-wheel angle 0 -> 8 rad over 30 s,
  - ISO 3888-1 double lane change (config/scenarios/dlc_iso3888.yaml, the path driver),
  - braking in a turn: a steady turn (1.2 rad at the steering wheel), then the driver's speed
    schedule brings it from 20 to 8 m/s in 3 s (about 4 m/s^2, up to 2500 N m per wheel).
The steering torque is the torsion bar's (the EPS sensor), ISO sign (-mx: positive when the
driver holds a left turn), in angle mode without assist; beside it the front tyres' aligning
moments, which is what the tyre model contributes to it. Writes
tests/validation/steering_torque.json and, with --plots, steering_torque.png.

--check asserts, on the complete tyre as mounted on the sedan (front left, in the ramp): Mz
aligns at small slip (Mz alpha > 0, ISO); it drops past the peak slip angle (at the end of the
ramp |Mz| under half its peak, at a larger |alpha|); and braking in the turn changes it by
more than 1 N m between the steady turn and the braking (the combined-slip terms: Fx on the
SSZ lever arm, Gyk reducing Fy and with it -t Fy'); and the torsion-bar torque drops past the
front axle's saturation too (its end value under half its peak, the peak before the end of the
ramp): the torque reaches the driver through the column. Magnitudes are reported, not judged."""

import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OLD_TIR = "passenger_245_40R18_pac2002_pure_slip_only.tir"
SIG = ["steering.angle.u", "steering.torsion_bar.mx", "imu.fy", "imu.vx",
       "front_l.tire.mz", "front_r.tire.mz", "front_l.tire.alpha", "front_l.tire.fy",
       "front_l.tire.fx", "front_r.tire.alpha"]


def vehicle_copy(work, old):
    src = os.path.join(ROOT, "config", "vehicles", "sedan.yaml")
    text = open(src).read()

    def fix(mo):
        name = OLD_TIR if old else os.path.basename(mo.group(1))
        return "tir: %s" % os.path.normpath(os.path.join(ROOT, "config", "tires", name))

    text, n = re.subn(r"tir: ([^,}\s]+)", fix, text)
    if n < 2:
        raise SystemExit("steering_torque.py: no tyres in %s" % src)
    out = os.path.join(work, "sedan_%s.yaml" % ("old" if old else "new"))
    open(out, "w").write(text)
    return out


HEAD = "scenario: {name: %s, vehicle: %s, duration: %g}\n"
DRV = ("  drive: [front_l.drive, front_r.drive]\n"
       "  brake: [front_l.brake, front_r.brake, rear_l.brake, rear_r.brake]\n")


def scenarios(work, veh):
    out = "outputs: [%s]\n" % ", ".join(SIG)
    s = {}
    p = os.path.join(work, "ramp_%s" % os.path.basename(veh))
    # steer ramp at constant speed (ISO 4138): 20 m/s, the steering-wheel angle 0 -> 8 rad over
    # 30 s (past the front axle's saturation near 1.5 rad; the rack's end stop is near 7.8 rad)
    with open(p, "w") as f:
        f.write(HEAD % ("steer-ramp", veh, 32.0))
        f.write("initial: {speed: 20.0}\n")
        f.write("inputs:\n  steering.angle: {ramp: {start: 1, end: 31, to: 8.0}}\n")
        f.write("driver:\n  speed: 20.0\n" + DRV + out)
    s["ramp"] = p
    p = os.path.join(work, "brake_%s" % os.path.basename(veh))
    with open(p, "w") as f:
        f.write(HEAD % ("brake-in-turn", veh, 8.0))
        f.write("initial: {speed: 20.0}\n")
        f.write("inputs:\n  steering.angle: {ramp: {start: 0.5, end: 2.5, to: 1.2}}\n")
        f.write("driver:\n  speed: [[0, 20], [5, 20], [8, 8]]\n  max_brake: 2500\n" + DRV + out)
    s["brake"] = p
    dlc = open(os.path.join(ROOT, "config", "scenarios", "dlc_iso3888.yaml")).read()
    dlc = re.sub(r"vehicle: \S+", "vehicle: %s" % veh, dlc)
    dlc = re.sub(r"outputs: \[[^\]]*\]", out.strip(), dlc, flags=re.S)
    p = os.path.join(work, "dlc_%s" % os.path.basename(veh))
    open(p, "w").write(dlc)
    s["dlc"] = p
    return s


def run(rtvd, scen, out):
    subprocess.run([rtvd, "sim", scen, "--out", out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    rows = list(csv.reader(open(out)))
    cols = list(zip(*[[float(x) for x in r] for r in rows[1:]]))
    d = {h: list(c) for h, c in zip(rows[0], cols)}
    d["torque"] = [-x for x in d["steering.torsion_bar.mx"]]
    return d


def at(d, key, cond):
    return [v for v, c in zip(d[key], cond) if c]


def summary(r):
    ramp, brake, dlc = r["ramp"], r["brake"], r["dlc"]
    al = ramp["front_l.tire.alpha"]
    mz = ramp["front_l.tire.mz"]
    # past the start of the ramp (t > 1.5 s) and left of the toe-in's offset
    idx = [i for i, t in enumerate(ramp["t"]) if t > 1.5]
    ipk = max(idx, key=lambda i: abs(mz[i]) if al[i] < 0 else 0.0)
    lin = [i for i in idx if -0.035 < al[i] < -0.025]
    itq = max(range(len(ramp["torque"])), key=lambda i: ramp["torque"][i])
    t = brake["t"]

    def mean(key, lo, hi):
        v = [x for x, tt in zip(brake[key], t) if lo <= tt <= hi]
        return sum(v) / len(v)

    return {
        "ramp_front_l_mz_peak_Nm": mz[ipk],
        "ramp_front_l_alpha_at_mz_peak_deg": math.degrees(al[ipk]),
        "ramp_front_l_mz_end_Nm": mz[-1],
        "ramp_front_l_alpha_end_deg": math.degrees(al[-1]),
        "ramp_front_l_mz_times_alpha_linear_min": min(mz[i] * al[i] for i in lin) if lin else None,
        "ramp_ay_max": max(ramp["imu.fy"]),
        "ramp_torque_range_Nm": [min(ramp["torque"]), max(ramp["torque"])],
        "ramp_torque_peak_at_angle_rad": ramp["steering.angle.u"][itq],
        "ramp_torque_end_Nm": ramp["torque"][-1],
        "dlc_torque_range_Nm": [min(dlc["torque"]), max(dlc["torque"])],
        "brake_torque_steady_Nm": mean("torque", 4.0, 5.0),
        "brake_torque_braking_Nm": mean("torque", 6.0, 7.5),
        "brake_front_l_mz_steady_Nm": mean("front_l.tire.mz", 4.0, 5.0),
        "brake_front_l_mz_braking_Nm": mean("front_l.tire.mz", 6.0, 7.5),
        "brake_front_l_fx_N": mean("front_l.tire.fx", 6.0, 7.5),
    }


def plot(path, res):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, 2, figsize=(13, 8))
    sty = {"new": ("tab:blue", "complete tyre (scaled PAC2002)"),
           "old": ("tab:red", "pure-slip file (friction ellipse)")}
    for k, (col, lab) in sty.items():
        r = res[k]
        ax[0][0].plot(r["ramp"]["steering.angle.u"], r["ramp"]["torque"], color=col, lw=1,
                      label=lab)
        ax[0][1].plot([57.29578 * a for a in r["ramp"]["front_l.tire.alpha"]],
                      r["ramp"]["front_l.tire.mz"], color=col, lw=1, label=lab + ": front left")
        ax[1][0].plot(r["dlc"]["t"], r["dlc"]["torque"], color=col, lw=1, label=lab)
        ax[1][1].plot(r["brake"]["t"], r["brake"]["front_l.tire.mz"], color=col, lw=1, label=lab)
    ax2 = ax[1][0].twinx()
    ax2.plot(res["new"]["dlc"]["t"], res["new"]["dlc"]["steering.angle.u"], "k:", lw=0.8)
    ax2.set_ylabel("steering-wheel angle [rad] (dotted)")
    ax3 = ax[1][1].twinx()
    ax3.plot(res["new"]["brake"]["t"], res["new"]["brake"]["imu.vx"], "k:", lw=0.8)
    ax3.set_ylabel("speed [m/s] (dotted)")
    ax[0][0].set_xlabel("steering-wheel angle [rad]")
    ax[0][0].set_ylabel("steering torque [N m] (no assist)")
    ax[0][0].set_title("steer ramp at 20 m/s (ISO 4138): torsion-bar torque")
    ax[0][1].set_xlabel("front-left slip angle [deg]")
    ax[0][1].set_ylabel("front-left Mz [N m]")
    ax[0][1].set_title("aligning moment in the ramp: the drop past the peak slip")
    ax[1][0].set_xlabel("t [s]")
    ax[1][0].set_ylabel("steering torque [N m]")
    ax[1][0].set_title("ISO 3888-1 double lane change at 20 m/s")
    ax[1][1].set_xlabel("t [s]")
    ax[1][1].set_ylabel("front-left Mz [N m]")
    ax[1][1].set_title("braking in a turn: 20 -> 8 m/s from t = 5 s, front-left Mz")
    for a in ax.flat:
        a.grid(alpha=0.3)
    ax[0][0].legend(fontsize=8)
    ax[0][1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=75)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtvd", default=os.path.join(ROOT, "build", "app", "rtvd"))
    ap.add_argument("--json")
    ap.add_argument("--plots")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    res = {}
    with tempfile.TemporaryDirectory() as work:
        for k in ("new", "old"):
            veh = vehicle_copy(work, k == "old")
            sc = scenarios(work, veh)
            res[k] = {n: run(a.rtvd, p, os.path.join(work, "%s_%s.csv" % (n, k)))
                      for n, p in sc.items()}
    summ = {k: summary(r) for k, r in res.items()}
    for k, s in summ.items():
        print("%s: %s" % (k, json.dumps(s)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summ, f, indent=1, sort_keys=True)
            f.write("\n")
    if a.plots:
        plot(os.path.join(a.plots, "steering_torque.png"), res)
    if a.check:
        s = summ["new"]
        fails = []
        # aligning in the linear range: Mz opposes the slip (Mz alpha > 0, ISO)
        if s["ramp_front_l_mz_times_alpha_linear_min"] is None or \
                not s["ramp_front_l_mz_times_alpha_linear_min"] > 0.0:
            fails.append("front-left Mz not aligning at small slip")
        # the drop past the peak slip angle: at the end of the ramp, |Mz| under half its peak
        # while |alpha| is larger than at the peak
        if not (abs(s["ramp_front_l_mz_end_Nm"]) < 0.5 * abs(s["ramp_front_l_mz_peak_Nm"]) and
                abs(s["ramp_front_l_alpha_end_deg"]) > abs(s["ramp_front_l_alpha_at_mz_peak_deg"])):
            fails.append("no drop of Mz past the peak slip angle: peak %.1f N m at %.2f deg, end "
                         "%.1f N m at %.2f deg" % (s["ramp_front_l_mz_peak_Nm"],
                                                   s["ramp_front_l_alpha_at_mz_peak_deg"],
                                                   s["ramp_front_l_mz_end_Nm"],
                                                   s["ramp_front_l_alpha_end_deg"]))
        # the driver feels it: the torsion-bar torque peaks before the end of the ramp and
        # falls to under half that peak at its end (a steering column that carries the
        # torque itself, as the sedan's did with its column bearing off the column axis, makes
        # the torque grow with the steering-wheel angle to the end)
        if not (s["ramp_torque_end_Nm"] < 0.5 * s["ramp_torque_range_Nm"][1] and
                s["ramp_torque_peak_at_angle_rad"] < 7.0):
            fails.append("the steering torque does not drop past the front axle's saturation: "
                         "peak %.1f N m at %.2f rad, end %.1f N m" %
                         (s["ramp_torque_range_Nm"][1], s["ramp_torque_peak_at_angle_rad"],
                          s["ramp_torque_end_Nm"]))
        # braking in the turn: the combined-slip terms (SSZ lever arm, Gyk, SVyk) change Mz
        if not abs(s["brake_front_l_mz_braking_Nm"] - s["brake_front_l_mz_steady_Nm"]) > 1.0:
            fails.append("braking in the turn does not change the front-left Mz")
        for m in fails:
            print("FAIL: " + m)
        print("steering_torque: %d failures" % len(fails))
        return 1 if fails else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
