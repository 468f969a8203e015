#!/usr/bin/python3
"""Enveloping road contact (core/tire_env.h) against the point contact on short obstacles.

The sedan (config/vehicles/sedan.yaml) drives over
  - a 10 mm x 50 mm cleat (square obstacle with sharp edges) at 20 and 40 km/h, and
  - the 0.05 m x 0.5 m half-sine of config/scenarios/halfsine_bump.yaml at 10 km/h,
once with its tyres on point contact (as shipped) and once with `contact: envelope` (the
tandem elliptical cams; the vehicle file is copied with that one key added). Compared: the
front-left tyre's vertical and longitudinal force (peak above the static load, lowest load,
longitudinal peak to peak) and the spectrum of the vertical force over the second around the
obstacle (band energies, and where the enveloping spectrum falls 20 dB under the point
contact's). Writes tests/validation/enveloping.json and, with --plots, enveloping.png.

--check asserts what the model must do, whatever the machine: the effective road never rises
above the obstacle (a cam rests on the road, it cannot climb higher than it); the static
loads of both contacts agree (the effective road of a plane is the plane: within 0.1 N); on
the cleat the enveloping contact carries less of the vertical force's energy above 50 Hz than
the point contact (the point contact's step has a 1/f spectrum, the enveloped one is
continuous). Numbers are reported, not judged, beyond that."""

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIG = ["front_l.tire.fz", "front_l.tire.fx", "front_l.tire.road_z", "front_l.tire.road_slope"]

CASES = [
    # name, obstacle, speed [m/s], x of the obstacle [m], duration [s]
    ("cleat_20kmh", "{type: square, x: 4.0, length: 0.05, height: 0.01, edge: 0}", 20 / 3.6,
     4.0, 2.0),
    ("cleat_40kmh", "{type: square, x: 6.0, length: 0.05, height: 0.01, edge: 0}", 40 / 3.6,
     6.0, 1.6),
    ("halfsine_10kmh", "{type: halfsine, x: 6.0, length: 0.5, height: 0.05}", 10 / 3.6, 6.0,
     3.5),
]


def vehicle_copy(work, envelope):
    """the sedan with absolute tyre paths, optionally `contact: envelope` on every tyre"""
    src = os.path.join(ROOT, "config", "vehicles", "sedan.yaml")
    text = open(src).read()

    def fix(mo):
        path = os.path.normpath(os.path.join(os.path.dirname(src), mo.group(1)))
        return "tir: %s%s" % (path, ", contact: envelope" if envelope else "")

    text, n = re.subn(r"tir: ([^,}\s]+)", fix, text)
    if n < 2:
        raise SystemExit("enveloping.py: no tyres found in %s" % src)
    out = os.path.join(work, "sedan_%s.yaml" % ("envelope" if envelope else "point"))
    open(out, "w").write(text)
    return out


def scenario(work, name, obst, v, dur, vehicle):
    path = os.path.join(work, name + ".yaml")
    with open(path, "w") as f:
        f.write("scenario: {name: %s, vehicle: %s, duration: %g}\n" % (name, vehicle, dur))
        f.write("road:\n  obstacles:\n    - %s\n" % obst)
        f.write("initial: {speed: %.6f}\n" % v)
        f.write("driver:\n  speed: %.6f\n  drive: [front_l.drive, front_r.drive]\n" % v)
        f.write("  brake: [front_l.brake, front_r.brake, rear_l.brake, rear_r.brake]\n")
        f.write("outputs: [%s]\n" % ", ".join(SIG))
    return path


def run(rtvd, scen, out):
    subprocess.run([rtvd, "sim", scen, "--out", out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    rows = list(csv.reader(open(out)))
    cols = list(zip(*[[float(x) for x in r] for r in rows[1:]]))
    return {h: list(c) for h, c in zip(rows[0], cols)}


def t_hit_of(d):
    """when the front-left wheel centre reaches the obstacle: the point contact's road height
    under it leaves 0"""
    return next(t for t, z in zip(d["t"], d[SIG[2]]) if z > 0.0)


def analyse(d, t_hit, dt):
    import numpy as np
    t = np.array(d["t"])
    fz = np.array(d[SIG[0]])
    fx = np.array(d[SIG[1]])
    i_static = int(0.5 * t_hit / dt)
    fz0 = fz[i_static]
    # one second from 0.25 s before the obstacle: the transient and its ringing
    i0 = max(0, int((t_hit - 0.25) / dt))
    n = int(1.0 / dt)
    seg = fz[i0:i0 + n] - fz0
    spec = np.abs(np.fft.rfft(seg)) * dt  # [N s]
    f = np.fft.rfftfreq(len(seg), dt)

    def band(lo, hi):
        sel = (f >= lo) & (f < hi)
        return float(np.sum(spec[sel] ** 2) * (f[1] - f[0]))

    return {
        "fz_static_N": float(fz0),
        "fz_peak_above_static_N": float(np.max(fz[i0:i0 + n]) - fz0),
        "fz_min_N": float(np.min(fz[i0:i0 + n])),
        "fx_peak_to_peak_N": float(np.max(fx[i0:i0 + n]) - np.min(fx[i0:i0 + n])),
        "road_z_max_m": float(np.max(d[SIG[2]])),
        "road_z_first_s": float(next(tt for tt, z in zip(d["t"], d[SIG[2]]) if z > 0.0)),
        "road_slope_max": float(np.max(np.abs(d[SIG[3]]))),
        "band_energy_N2s": {"0-20Hz": band(0, 20), "20-50Hz": band(20, 50),
                            "50-100Hz": band(50, 100), "100-500Hz": band(100, 501)},
        "_f": f, "_spec": spec, "_t": t[i0:i0 + n] - t_hit, "_fz": fz[i0:i0 + n],
        "_fx": fx[i0:i0 + n],
    }


def plot(path, res):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(len(res), 3, figsize=(14, 3.2 * len(res)))
    for r, (name, pr) in enumerate(res.items()):
        for kind, st in (("point", "-"), ("envelope", "-")):
            a = pr[kind]
            lab = "point contact" if kind == "point" else "enveloping (tandem cams)"
            col = "tab:red" if kind == "point" else "tab:blue"
            ax[r][0].plot(a["_t"] * 1e3, a["_fz"], st, color=col, lw=0.9, label=lab)
            ax[r][1].plot(a["_t"] * 1e3, a["_fx"], st, color=col, lw=0.9, label=lab)
            ax[r][2].semilogy(a["_f"], a["_spec"], st, color=col, lw=0.8, label=lab)
        ax[r][0].set_ylabel("%s\nFz front left [N]" % name.replace("_", " "))
        ax[r][1].set_ylabel("Fx front left [N]")
        ax[r][2].set_ylabel("|FFT(Fz - static)| [N s]")
        ax[r][2].set_xlim(0, 500)
        for c in range(2):
            ax[r][c].set_xlim(-150, 400)
            ax[r][c].set_xlabel("t - t(wheel centre at the obstacle) [ms]")
        ax[r][2].set_xlabel("f [Hz]")
        for c in range(3):
            ax[r][c].grid(alpha=0.3)
    ax[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=75)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtvd", default=os.path.join(ROOT, "build", "app", "rtvd"))
    ap.add_argument("--json", help="write the numbers here")
    ap.add_argument("--plots", help="directory for enveloping.png")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    dt = 0.001
    res = {}
    with tempfile.TemporaryDirectory() as work:
        veh = {k: vehicle_copy(work, k == "envelope") for k in ("point", "envelope")}
        for name, obst, v, x0, dur in CASES:
            res[name] = {}
            runs = {}
            for k in ("point", "envelope"):
                sc = scenario(work, "%s_%s" % (name, k), obst, v, dur, veh[k])
                runs[k] = run(a.rtvd, sc, os.path.join(work, "%s_%s.csv" % (name, k)))
            th = t_hit_of(runs["point"])
            for k in ("point", "envelope"):
                res[name][k] = analyse(runs[k], th, dt)
            res[name]["t_hit_s"] = th
    clean = {n: {k: ({q: w for q, w in v.items() if not q.startswith("_")}
                     if isinstance(v, dict) else v) for k, v in r.items()}
             for n, r in res.items()}
    for n, r in clean.items():
        p, e = r["point"], r["envelope"]
        print("%-15s Fz peak +%6.0f / +%6.0f N  min %6.0f / %6.0f N  Fx p-p %5.0f / %5.0f N  "
              "E(>50 Hz) %.3g / %.3g N^2 s  (point / envelope)"
              % (n, p["fz_peak_above_static_N"], e["fz_peak_above_static_N"], p["fz_min_N"],
                 e["fz_min_N"], p["fx_peak_to_peak_N"], e["fx_peak_to_peak_N"],
                 p["band_energy_N2s"]["50-100Hz"] + p["band_energy_N2s"]["100-500Hz"],
                 e["band_energy_N2s"]["50-100Hz"] + e["band_energy_N2s"]["100-500Hz"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(clean, f, indent=1, sort_keys=True)
            f.write("\n")
    if a.plots:
        plot(os.path.join(a.plots, "enveloping.png"), res)
    if a.check:
        fails = []
        heights = {"cleat_20kmh": 0.01, "cleat_40kmh": 0.01, "halfsine_10kmh": 0.05}
        for n, r in clean.items():
            e, p = r["envelope"], r["point"]
            # the cam rests on the road: rounding of the grid only (1e-12 m)
            if e["road_z_max_m"] > heights[n] + 1e-12:
                fails.append("%s: effective road %.6g m above the obstacle" % (n, e["road_z_max_m"]))
            # same static equilibrium on the flat (effective road = the plane)
            if abs(e["fz_static_N"] - p["fz_static_N"]) > 0.1:
                fails.append("%s: static loads differ %g vs %g N" % (n, e["fz_static_N"],
                                                                    p["fz_static_N"]))
            # the effective road starts before the wheel centre reaches the obstacle (the
            # front cam reaches ahead) and the point contact's does not
            if not e["road_z_first_s"] < r["t_hit_s"] - 0.001:
                fails.append("%s: the enveloping tyre did not meet the obstacle ahead" % n)
        for m in fails:
            print("FAIL: " + m)
        print("enveloping: %d cases, %d failures" % (len(clean), len(fails)))
        return 1 if fails else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
