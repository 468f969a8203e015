#!/usr/bin/python3
"""Write a Project Chrono MFTire parameter file (JSON, one object per .tir section) as a
TYDEX .tir property file, the format tyre suppliers deliver and rtvd reads.

  config/tires/json2tir.py SOURCE.json > OUT.tir

Chrono's MagicFormula61/62_Parameters.json (shared/data/tires/suv_255_55R20_mf6?_example.json)
hold the sections of an MF 6.1 / 6.2 .tir with the same keys and values; this prints them in
.tir syntax in the file's order: `[SECTION]` then `KEY = value` (strings quoted, FILE_VERSION
as 3.0). The top-level keys that are not sections (Name, Type, Template, Mass, Inertia,
Friction: Chrono's own) become comments. Numbers are written as the JSON has them."""

import json
import re
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: json2tir.py SOURCE.json > OUT.tir")
    src = sys.argv[1]
    text = re.sub(r"//[^\n]*", "", open(src).read())  # Chrono's JSON allows // comments
    data = json.loads(text)
    out = ["$ rtvd: converted from %s by config/tires/json2tir.py (Project Chrono," % src.split("/")[-1],
           "$ BSD-3-Clause); the values and their order are the JSON's."]
    for k, v in data.items():
        if not isinstance(v, dict):
            out.append("$ %s: %s" % (k, json.dumps(v)))
    for sec, body in data.items():
        if not isinstance(body, dict):
            continue
        out.append("[%s]" % sec)
        for k, v in body.items():
            if isinstance(v, str):
                val = "'%s'" % v
            elif k == "FILE_VERSION":
                val = "%.1f" % v
            else:
                val = repr(v) if isinstance(v, float) else str(v)
            out.append("%-24s = %s" % (k, val))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
