#!/usr/bin/python3
"""tests/io/mdf4_check.py FILE.mf4 [--csv FILE.csv] [--unfinished] - an independent structural
reader of the MDF 4.1 files io/mdf4.c writes, from the ASAM MDF 4.1 block definitions (block
header: 4-byte id, 4 reserved, u64 length, u64 link count; then the links; then the data).
It walks ID -> HD -> (FH, MD) -> DG -> CG -> CN chain (TX names and units) -> DT, checks every
block's id, length and link count against the spec's layout, 8-byte alignment, that links
point at blocks of the right kind, the master channel, the record size, that the DT holds
exactly cycle_count records, and decodes the records. With --csv the values must equal the
CSV's columns of the same names (the recorder writes both from the same rows); the CSV's
text has 10 significant digits, so floats agree to 1e-9 relative plus 1e-300 absolute.
Prints a summary; exit status 1 on the first violation. Used by tests/io/CMakeLists.txt
(the golden file) and tests/app/record_test.sh (a real recording)."""
import csv
import math
import struct
import sys


def fail(msg):
    print("mdf4_check: FAIL: " + msg)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    if not args:
        fail("usage: mdf4_check.py FILE.mf4 [--csv FILE.csv] [--unfinished]")
    path = args[0]
    csv_path = args[args.index("--csv") + 1] if "--csv" in args else None
    unfinished_ok = "--unfinished" in args
    data = open(path, "rb").read()

    # ID block
    if len(data) < 64:
        fail("shorter than the ID block")
    file_id, vers, prog = data[0:8], data[8:16], data[16:24]
    ver, = struct.unpack_from("<H", data, 28)
    unfin, = struct.unpack_from("<H", data, 60)
    if file_id == b"UnFinMF ":
        if not unfinished_ok:
            fail("not finalized (UnFinMF)")
    elif file_id != b"MDF     ":
        fail("id_file %r" % file_id)
    elif unfin != 0:
        fail("finalized but id_unfin_flags %#x" % unfin)
    if vers != b"4.10    " or ver != 410:
        fail("version %r %d" % (vers, ver))

    def block(off, want_id, links, data_len=None):
        if off % 8 or off < 64 or off + 24 > len(data):
            fail("block %s at %d: misaligned or outside the file" % (want_id, off))
        bid, _, length, nlinks = struct.unpack_from("<4sIQQ", data, off)
        if bid != want_id.encode():
            fail("at %d: %r, expected %s" % (off, bid, want_id))
        if nlinks != links:
            fail("%s at %d: %d links, spec %d" % (want_id, off, nlinks, links))
        if data_len is not None and length != 24 + 8 * links + data_len:
            fail("%s at %d: length %d, spec %d" % (want_id, off, length, 24 + 8 * links + data_len))
        if off + length > len(data):
            fail("%s at %d: length %d past the end" % (want_id, off, length))
        lk = struct.unpack_from("<%dQ" % links, data, off + 24) if links else ()
        return length, lk, off + 24 + 8 * links

    def text(off, kinds=("TX", "MD")):
        bid = data[off:off + 4].decode("ascii", "replace")
        if bid[2:] not in kinds:
            fail("at %d: %r is not a %s block" % (off, bid, "/".join(kinds)))
        length, _, d = block(off, bid, 0)
        raw = data[d:off + length]
        if b"\0" not in raw:
            fail("text at %d not zero-terminated" % off)
        return raw.split(b"\0", 1)[0].decode("utf-8")

    # HD: dg, fh, ch, at, ev, md; start time, tz, dst, flags...
    _, hd, d = block(64, "##HD", 6, 32)
    start_ns, = struct.unpack_from("<Q", data, d)
    if hd[1] == 0:
        fail("no FH block (required)")
    _, fh, _ = block(hd[1], "##FH", 2, 16)
    fh_text = text(fh[1], ("MD",))
    if "<FHcomment>" not in fh_text or "<tool_id>" not in fh_text:
        fail("FH comment %r" % fh_text)
    if hd[5]:
        text(hd[5])
    # DG -> CG
    if hd[0] == 0:
        fail("no data group")
    _, dg, d = block(hd[0], "##DG", 4, 8)
    if data[d] != 0:
        fail("record id size %d" % data[d])
    if dg[0] != 0:
        fail("more than one data group")
    _, cg, d = block(dg[1], "##CG", 6, 32)
    if cg[0] != 0:
        fail("more than one channel group")
    rec_id, cycles, cg_flags, _, data_bytes, inval_bytes = struct.unpack_from("<QQHH4xII", data, d)
    # CN chain
    chans = []
    off = cg[1]
    while off:
        _, cn, d = block(off, "##CN", 8, 72)
        cn_type, sync, dtype, bit_off, byte_off, bit_count = struct.unpack_from("<BBBBII", data, d)
        name = text(cn[2], ("TX",))
        unit = text(cn[6]) if cn[6] else ""
        if cn[4] or cn[5] or cn[1]:
            fail("channel %s: a conversion, data link or composition this writer never makes" % name)
        if bit_off or bit_count != 64 or dtype not in (0, 4) or byte_off + 8 > data_bytes:
            fail("channel %s: layout %d/%d/%d/%d" % (name, dtype, bit_off, byte_off, bit_count))
        chans.append((name, unit, cn_type, sync, dtype, byte_off))
        off = cn[0]
    if not chans or chans[0][2] != 2 or chans[0][3] != 1 or chans[0][4] != 4:
        fail("the first channel is not a float64 time master")
    if sum(1 for c in chans if c[2] == 2) != 1:
        fail("more than one master")
    if sorted(c[5] for c in chans) != list(range(0, 8 * len(chans), 8)) or data_bytes != 8 * len(chans):
        fail("record layout: %s, %d bytes" % ([c[5] for c in chans], data_bytes))
    # DT
    dt_len, _, d = block(dg[2], "##DT", 0)
    nrec = (dt_len - 24) // data_bytes
    if file_id == b"MDF     ":
        if dt_len != 24 + cycles * data_bytes:
            fail("DT length %d for %d cycles of %d bytes" % (dt_len, cycles, data_bytes))
        if dg[2] + dt_len != len(data):
            fail("bytes after the DT block")
    else:
        nrec = (len(data) - d) // data_bytes  # unfinished: the records on disk
    rows = []
    for k in range(nrec):
        base = d + k * data_bytes
        row = []
        for (name, unit, cn_type, sync, dtype, byte_off) in chans:
            fmt = "<d" if dtype == 4 else "<Q"
            row.append(struct.unpack_from(fmt, data, base + byte_off)[0])
        rows.append(row)
    names = [c[0] for c in chans]
    print("mdf4_check: %s: MDF %s %s, start %d ns, %d channels (%s), %d records of %d bytes%s"
          % (path, vers.decode().strip(), prog.decode().strip(), start_ns, len(chans),
             ", ".join(n + (" [" + u + "]" if u else "") for n, u, *_ in chans), nrec, data_bytes,
             "" if file_id == b"MDF     " else " (unfinished)"))
    if len({r[0] for r in rows}) != len(rows) or rows != sorted(rows, key=lambda r: r[0]):
        fail("time master not strictly increasing")
    if csv_path:
        with open(csv_path) as f:
            rd = csv.reader(f)
            head = next(rd)
            crow = [r for r in rd]
        if len(crow) != len(rows):
            fail("%d CSV rows, %d MDF records" % (len(crow), len(rows)))
        for j, name in enumerate(names):
            col = "time" if j == 0 else name
            if col not in head:
                fail("column %s not in the CSV" % col)
            ci = head.index(col)
            for k in range(len(rows)):
                a, b = rows[k][j], float(crow[k][ci])
                if not (a == b or (math.isnan(a) and math.isnan(b)) or
                        abs(a - b) <= 1e-9 * abs(b) + 1e-300):
                    fail("%s record %d: MDF %r, CSV %r" % (name, k, a, crow[k][ci]))
        print("mdf4_check: every value equals the CSV's (%d rows x %d columns)" % (len(rows), len(names)))


main()
