#!/usr/bin/python3
"""tests/config/ce_in_sync.py JOINTS.yaml CE.yaml - a vehicle in minimal coordinates is its
ideal-joint twin with `solver.formulation: ce`: apart from comments, blank lines, the model
name, the solver section's method, formulation and weld, `drive: hub` for `drive: shaft` (the
CE tree has no half shafts) and the joint file's `driveline:` section (its last), the two
files must be the same line for line (hardpoints, masses, tyres, every number; the steering
on ideal joints in both). Prints the other differences and exits 1 if there
are any."""
import difflib
import re
import sys

SOLVER_KEYS = ("method", "formulation", "weld", "linear", "constraints", "project", "reselect")


def lines(path, drop_driveline):
    out = []
    section = ""
    for raw in open(path, encoding="utf-8"):
        s = raw.rstrip("\n")
        if s.lstrip().startswith("#"):
            continue
        s = re.sub(r"\s+#.*$", "", s).rstrip()
        if not s:
            continue
        m = re.match(r"^([a-z_]+):", s)
        if m:
            section = m.group(1)
        if drop_driveline and section == "driveline":
            continue
        out.append((section, s))
    return out


def allowed(section, line):
    s = line.strip()
    if s in ("drive: shaft", "drive: hub"):
        return True
    if section == "model" and s.startswith("name:"):
        return True
    return section == "solver" and s.split(":")[0] in SOLVER_KEYS


def main():
    a, b = lines(sys.argv[1], True), lines(sys.argv[2], False)
    bad = []
    sm = difflib.SequenceMatcher(a=[x[1] for x in a], b=[x[1] for x in b], autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        for i in range(i1, i2):
            if not allowed(*a[i]):
                bad.append("-%s" % a[i][1])
        for j in range(j1, j2):
            if not allowed(*b[j]):
                bad.append("+%s" % b[j][1])
    for line in bad:
        print(line)
    print("%s vs %s: %s" % (sys.argv[1], sys.argv[2],
                            "in sync" if not bad else "%d lines differ" % len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
