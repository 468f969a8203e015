#!/usr/bin/python3
"""deploy/rtvm/guest-files.py CONSOLE.log DIR: the files a guest printed on its console
between `RTVM-FILE-BEGIN name` and `RTVM-FILE-END name` lines (guest-test.sh and
service-guest.sh print their reports, histograms and logs that way: the guest has no shared
folder) written into DIR under their names. Carriage returns are dropped and undecodable
bytes replaced, as a serial console mangles both."""
import os
import re
import sys


def main():
    log, art = sys.argv[1], sys.argv[2]
    name, buf = None, []
    text = open(log, "rb").read().decode("utf-8", "replace").replace("\r", "")
    for line in text.split("\n"):
        m = re.fullmatch(r"RTVM-FILE-(BEGIN|END) (\S+)", line)
        if m and m.group(1) == "BEGIN":
            name, buf = m.group(2), []
        elif m and name:
            with open(os.path.join(art, name), "w") as f:
                f.write("\n".join(buf) + "\n")
            name = None
        elif name:
            buf.append(line)


if __name__ == "__main__":
    main()
