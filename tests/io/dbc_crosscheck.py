#!/usr/bin/python3
"""tests/io/dbc_crosscheck.py - compare rtvd's DBC parser and encoder (io/dbc.c, printed by
tests/io/dbc_dump) with Debian's python3-canmatrix 0.9.5 on the same files.

usage: /usr/bin/python3 tests/io/dbc_crosscheck.py <dbc_dump> [-s seed] [-n N] file.dbc...

Compared per file: the message set keyed by (id, extended) with name, length, FD flag, cycle
time, transmitter and comment; per message the signal set with start bit (DBC and LSB),
size, byte order, sign, factor, offset, min, max, unit, multiplexing, value type,
receivers, VAL_ entries and comment; for N pseudo-random values per signal the raw value
chosen by rounding, the encoded frame (canmatrix Frame.encode) and the decoded physical value
(canmatrix Frame.decode); one frame per message (and multiplexer value) with all
non-overlapping signals encoded together.

Known canmatrix 0.9.5 behaviours are handled explicitly, counted and printed, never
skipped silently (see KNOWN below). Anything else that differs is a failure (exit 1).
"""
import collections
import decimal
import io
import math
import subprocess
import sys

# canmatrix prints "xxx is not supported" for each optional format it lacks on import
_saved, sys.stdout, sys.stderr = (sys.stdout, sys.stderr), io.StringIO(), io.StringIO()
try:
    import canmatrix.formats  # noqa: E402
finally:
    sys.stdout, sys.stderr = _saved

D = decimal.Decimal
decimal.getcontext().prec = 60

KNOWN = {
    "phys2raw-trunc": "canmatrix Signal.phys2raw truncates toward zero (int()); rtvd rounds to "
    "the nearest raw value - accepted when the exact quotient is within 1e-6 of rtvd's raw",
    "fd-default": "canmatrix ignores BA_DEF_DEF_ \"VFrameFormat\" (FD flag only from explicit "
    "BA_); rtvd applies the default",
    "cycle-default": "canmatrix ignores BA_DEF_DEF_ \"GenMsgCycleTime\" (cycle time 0 unless "
    "an explicit BA_); rtvd applies the default",
    "comment-lines": "canmatrix strips each line of a multi-line comment and drops empty lines; "
    "compared after the same normalisation",
}


def unesc(s):
    if s == "-":
        return None
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            out.append({"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}.get(n, n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def norm_comment(c):
    if c is None:
        return None
    lines = [ln.strip() for ln in c.replace("\r", "").split("\n")]
    return "\n".join(ln for ln in lines if ln)


def round_half_away(x):
    """nearest integer to the exact value of double x, halves away from zero (C round())"""
    return int(D(x).quantize(D(1), rounding=decimal.ROUND_HALF_UP))


class Check:
    def __init__(self):
        self.fail = 0
        self.count = collections.Counter()
        self.known = collections.Counter()
        self.first = []
        self.cm_exc = []  # canmatrix exceptions, reported

    def eq(self, what, a, b):
        self.count["fields"] += 1
        if a != b:
            self.fail += 1
            if len(self.first) < 40:
                self.first.append("%s: rtvd %r, canmatrix %r" % (what, a, b))
            return False
        return True

    def bad(self, msg):
        self.fail += 1
        if len(self.first) < 40:
            self.first.append(msg)


def run_dump(dump, args, path):
    """dbc_dump's records; its diagnostics are shown in full on failure, else summarised"""
    out = subprocess.run([dump] + args + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         check=False)
    err = out.stderr.decode("utf-8", "replace")
    if out.returncode != 0:
        sys.stderr.write(err)
        raise SystemExit("%s: dbc_dump failed (%d)" % (path, out.returncode))
    notes = [ln for ln in err.splitlines() if ": note: " in ln]
    warns = [ln for ln in err.splitlines() if ": warning: " in ln]
    other = [ln for ln in err.splitlines()
             if ln[:1] not in (" ", "") and ": note: " not in ln and ": warning: " not in ln]
    if notes:
        print("  %s: %d parser notes (constructs read and ignored), first: %s"
              % (path, len(notes), notes[0]))
    for w in warns:
        print("  parser warning (read the obvious way): %s" % w)
    if other:
        sys.stderr.write(err)
        raise SystemExit("%s: unexpected dbc_dump diagnostics" % path)
    return out.stdout.decode("utf-8").splitlines()


def parse_dump(lines):
    msgs = collections.OrderedDict()
    vals, groups, skips = [], [], []
    for ln in lines:
        f = ln.split("\t")
        if f[0] == "M":
            m = dict(name=unesc(f[1]), id=int(f[2]), ext=f[3] == "1", len=int(f[4]),
                     fd=f[5] == "1", cycle=int(f[6]), tx=f[7].split(","), nsig=int(f[8]),
                     comment=unesc(f[9]), sigs=collections.OrderedDict())
            msgs[m["name"]] = m
        elif f[0] == "S":
            s = dict(start=int(f[3]), lsb=int(f[4]), size=int(f[5]), intel=f[6] == "I",
                     signed=f[7] == "1", factor=float(f[8]), offset=float(f[9]),
                     min=float(f[10]), max=float(f[11]), unit=unesc(f[12]), mux=f[13],
                     vtype=f[14], rx=[r for r in f[15].split(",") if r], nval=int(f[16]),
                     comment=unesc(f[17]), vals={})
            msgs[f[1]]["sigs"][f[2]] = s
        elif f[0] == "L":
            msgs[f[1]]["sigs"][f[2]]["vals"][int(f[3])] = unesc(f[4])
        elif f[0] == "V":
            vals.append((f[1], f[2], f[3], f[4], f[5], f[6]))
        elif f[0] == "G":
            groups.append((f[1], f[2], f[3], f[4]))
        elif f[0] == "K":
            skips.append((f[1], f[2], f[3]))
    return msgs, vals, groups, skips


def frame_key(fr):
    return (fr.arbitration_id.id, bool(fr.arbitration_id.extended))


def cm_call(ck, where, fn, *a):
    """a canmatrix call; an exception it raises is reported (counted, printed) and None
    returned, so that one file canmatrix cannot handle does not end the comparison"""
    try:
        return fn(*a)
    except Exception as e:  # noqa: BLE001 - any canmatrix failure is reported, not fatal
        ck.cm_exc.append("%s: canmatrix raised %s: %s" % (where, type(e).__name__, e))
        return None


def compare_file(dump, args, path, ck):
    msgs, vals, groups, skips = parse_dump(run_dump(dump, args, path))
    dbs = cm_call(ck, path + ": loadp", lambda: canmatrix.formats.loadp(
        path, dbcImportEncoding="utf-8", dbcImportCommentEncoding="utf-8"))
    if dbs is None or "" not in dbs:
        if dbs is not None:
            ck.cm_exc.append("%s: canmatrix loaded no database" % path)
        return len(msgs)
    db = dbs[""]
    frames = {frame_key(fr): fr for fr in db.frames}
    vff_default = cyc_default = None
    if "GenMsgCycleTime" in db.frame_defines:
        cyc_default = int(float(db.frame_defines["GenMsgCycleTime"].defaultValue or 0))
    if "VFrameFormat" in db.frame_defines:
        vff_default = db.frame_defines["VFrameFormat"].defaultValue

    # message set
    cm_keys = set(frames)
    c_keys = {(m["id"], m["ext"]): m for m in msgs.values()}
    ck.eq(path + ": message (id, ext) set", sorted(c_keys), sorted(cm_keys))
    for key, m in c_keys.items():
        fr = frames.get(key)
        if fr is None:
            continue
        ck.count["messages"] += 1
        w = "%s: %s" % (path, m["name"])
        ck.eq(w + ": name", m["name"], fr.name)
        ck.eq(w + ": length", m["len"], fr.size)
        cm_cycle = fr.cycle_time
        if cm_cycle == 0 and "GenMsgCycleTime" not in fr.attributes and cyc_default \
                and m["cycle"] == cyc_default:
            ck.known["cycle-default"] += 1
            cm_cycle = cyc_default
        ck.eq(w + ": cycle time", m["cycle"], cm_cycle)
        # canmatrix drops the placeholder node Vector__XXX (db.del_ecu)
        ck.eq(w + ": transmitters", [t for t in m["tx"] if t != "Vector__XXX"],
              list(fr.transmitters))
        cm_fd = bool(fr.is_fd)
        if not cm_fd and "VFrameFormat" not in fr.attributes and vff_default \
                and "_FD" in str(vff_default).strip('"') and m["fd"]:
            ck.known["fd-default"] += 1
            cm_fd = True
        if fr.size > 8:
            cm_fd = True
        ck.eq(w + ": FD", m["fd"], cm_fd)
        cm_comment = fr.comment or None  # canmatrix frames say '' for no comment
        if m["comment"] != cm_comment:
            if norm_comment(m["comment"]) == norm_comment(cm_comment):
                ck.known["comment-lines"] += 1
            else:
                ck.eq(w + ": comment", m["comment"], cm_comment)
        if m["comment"] is not None:
            ck.count["comments"] += 1

        # signals
        cm_sigs = {s.name: s for s in fr.signals}
        ck.eq(w + ": signal set", sorted(m["sigs"]), sorted(cm_sigs))
        for name, s in m["sigs"].items():
            cs = cm_sigs.get(name)
            if cs is None:
                continue
            ck.count["signals"] += 1
            ws = "%s.%s" % (w, name)
            ck.eq(ws + ": start", s["start"], cs.get_startbit(bit_numbering=1))
            ck.eq(ws + ": lsb", s["lsb"], cs.get_startbit(bit_numbering=1, start_little=True))
            ck.eq(ws + ": size", s["size"], int(cs.size))
            ck.eq(ws + ": intel", s["intel"], bool(cs.is_little_endian))
            if s["vtype"] == "int":
                ck.eq(ws + ": signed", s["signed"], bool(cs.is_signed))
            ck.eq(ws + ": factor", s["factor"], float(cs.factor))
            ck.eq(ws + ": offset", s["offset"], float(cs.offset))
            ck.eq(ws + ": min", s["min"], float(cs.min))
            ck.eq(ws + ": max", s["max"], float(cs.max))
            ck.eq(ws + ": unit", s["unit"], cs.unit)
            if cs.is_multiplexer:
                cm_mux = "M"
            elif cs.mux_val is not None:
                cm_mux = "m%d" % cs.mux_val
            else:
                cm_mux = "-"
            ck.eq(ws + ": multiplexing", s["mux"], cm_mux)
            cm_vt = "int" if not cs.is_float else ("f32" if cs.size == 32 else "f64")
            ck.eq(ws + ": value type", s["vtype"], cm_vt)
            cm_rx = [r for x in cs.receivers for r in x.split()]
            ck.eq(ws + ": receivers", [r for r in s["rx"] if r != "Vector__XXX"], cm_rx)
            cm_vals = {int(k): v for k, v in cs.values.items()}
            ck.eq(ws + ": VAL_", s["vals"], cm_vals)
            ck.count["VAL_ entries"] += len(s["vals"])
            if s["comment"] != cs.comment:
                if norm_comment(s["comment"]) == norm_comment(cs.comment):
                    ck.known["comment-lines"] += 1
                else:
                    ck.eq(ws + ": comment", s["comment"], cs.comment)
            if s["comment"] is not None:
                ck.count["comments"] += 1

    # random single-signal encodings
    for mname, sname, phys_s, raw_s, hexs, back_s in vals:
        m = msgs[mname]
        s = m["sigs"][sname]
        fr = frames[(m["id"], m["ext"])]
        cs = fr.signal_by_name(sname)
        w = "%s: %s.%s = %s" % (path, mname, sname, phys_s)
        phys = float(phys_s)
        ck.count["random values"] += 1
        if s["vtype"] == "int":
            raw = int(raw_s)
            # rtvd's raw: nearest integer to (phys - offset) / factor in doubles
            ck.eq(w + ": raw by rounding", raw, round_half_away((phys - s["offset"]) / s["factor"]))
            cm_raw = cs.phys2raw(D(phys_s))
            if cm_raw != raw:
                exact = (D(phys_s) - cs.offset) / cs.factor
                if abs(cm_raw - raw) == 1 and abs(exact - raw) < D("1e-6"):
                    ck.known["phys2raw-trunc"] += 1
                else:
                    ck.eq(w + ": phys2raw", raw, cm_raw)
        else:
            raw = float(raw_s)
        data = {sname: raw}
        if s["mux"].startswith("m"):
            for on, os_ in m["sigs"].items():
                if os_["mux"] == "M":
                    data[on] = int(s["mux"][1:])
        enc = cm_call(ck, w + ": encode", fr.encode, data)
        dec = cm_call(ck, w + ": decode", fr.decode, bytearray.fromhex(hexs))
        if enc is None or dec is None:
            continue
        cm_bytes = bytes(enc).hex().upper()
        ck.eq(w + ": encoded frame", hexs, cm_bytes)
        if sname not in dec:
            ck.bad(w + ": canmatrix does not decode the signal")
            continue
        cm_phys = float(dec[sname].phys_value)
        back = float(back_s)
        # decoded values: rtvd computes raw * factor + offset in doubles, canmatrix in
        # decimals; both round once, so they agree to a few ulps of the magnitudes involved
        tol = 4 * sys.float_info.epsilon * (abs(cm_phys) + abs(s["offset"]) + 1.0)
        if not abs(back - cm_phys) <= tol:
            ck.eq(w + ": decoded", back, cm_phys)
        ck.count["decoded values"] += 1

    # whole frames
    for mname, muxv, hexs, assigns in groups:
        m = msgs[mname]
        fr = frames[(m["id"], m["ext"])]
        data = {}
        for a in assigns.split(","):
            if not a:
                continue
            k, v = a.split("=")
            data[k] = float(v) if m["sigs"][k]["vtype"] != "int" else int(v)
        where = "%s: %s (mux %s): frame" % (path, mname, muxv)
        enc = cm_call(ck, where, fr.encode, data)
        if enc is None:
            continue
        ck.count["frames"] += 1
        ck.count["signals in frames"] += len(data)
        ck.eq(where, hexs, bytes(enc).hex().upper())
    for mname, sname, why in skips:
        ck.known["no-values: " + why] += 1
        print("  skipped random values of %s.%s: %s" % (mname, sname, why))
    return len(msgs)


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    dump, rest = argv[1], argv[2:]
    args = []
    while rest and rest[0] in ("-s", "-n"):
        args += rest[:2]
        rest = rest[2:]
    total = Check()
    for path in rest:
        ck = Check()
        compare_file(dump, args, path, ck)
        print("%s: %d messages, %d signals, %d VAL_ entries, %d comments, %d random values "
              "(%d decoded), %d frames with %d signals; %d fields compared, %d differences"
              % (path, ck.count["messages"], ck.count["signals"], ck.count["VAL_ entries"],
                 ck.count["comments"], ck.count["random values"], ck.count["decoded values"],
                 ck.count["frames"], ck.count["signals in frames"], ck.count["fields"], ck.fail))
        for k, n in sorted(ck.known.items()):
            print("  known deviation %s: %d (%s)" % (k, n, KNOWN.get(k, "see above")))
        for ln in ck.first:
            print("  DIFF " + ln)
        for ln in ck.cm_exc[:20]:
            print("  CANMATRIX " + ln)
        if len(ck.cm_exc) > 20:
            print("  CANMATRIX ... %d more" % (len(ck.cm_exc) - 20))
        total.cm_exc += ck.cm_exc
        total.fail += ck.fail
        total.count.update(ck.count)
        total.known.update(ck.known)
    print("total: %d messages, %d signals, %d VAL_ entries, %d random values, %d frames; "
          "%d known deviations; %d differences; %d canmatrix exceptions (values canmatrix could "
          "not load, encode or decode: not compared, listed above)"
          % (total.count["messages"], total.count["signals"], total.count["VAL_ entries"],
             total.count["random values"], total.count["frames"], sum(total.known.values()),
             total.fail, len(total.cm_exc)))
    if total.count["signals"] == 0 or total.count["random values"] == 0:
        print("FAIL: nothing compared")
        return 1
    return 1 if total.fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
