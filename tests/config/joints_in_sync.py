#!/usr/bin/python3
"""tests/config/joints_in_sync.py BUSHINGS.yaml JOINTS.yaml - a vehicle with ideal joints is its
bushing twin with `connection: joints` in its suspensions: apart from comments, blank lines,
the model name, the solver section (method, linear, constraints, project, reselect) and the
added `connection: joints` lines, the two files must be the same line for line (markers, tyre
files, every number). Prints the other differences and exits 1 if there are any."""
import difflib
import re
import sys

SOLVER_KEYS = ("method", "linear", "constraints", "project", "reselect")


def lines(path):
    out = []
    for raw in open(path, encoding="utf-8"):
        s = raw.rstrip("\n")
        if s.lstrip().startswith("#"):
            continue
        s = re.sub(r"\s+#.*$", "", s).rstrip()
        if s:
            out.append(s)
    return out


def allowed(line, section):
    s = line.strip()
    if s in ("connection: joints", "connection: bushings"):
        return True
    if section == "model" and s.startswith("name:"):
        return True
    return section == "solver" and s.split(":")[0] in SOLVER_KEYS


def section_of(text, index):
    for i in range(index, -1, -1):
        m = re.match(r"^([a-z_]+):", text[i])
        if m:
            return m.group(1)
    return ""


def main():
    a, b = lines(sys.argv[1]), lines(sys.argv[2])
    bad = []
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        for i in range(i1, i2):
            if not allowed(a[i], section_of(a, i)):
                bad.append("-%d: %s" % (i + 1, a[i]))
        for j in range(j1, j2):
            if not allowed(b[j], section_of(b, j)):
                bad.append("+%d: %s" % (j + 1, b[j]))
    for line in bad:
        print(line)
    print("%s vs %s: %s" % (sys.argv[1], sys.argv[2],
                            "in sync" if not bad else "%d lines differ" % len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
