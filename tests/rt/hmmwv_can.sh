#!/bin/sh
# tests/rt/hmmwv_can.sh RTVD - the HMMWV's CAN bench (config/runs/hmmwv_bench.yaml: the mapping
# config/can/hmmwv.yaml on hmmwv_bench.dbc, the in-process virtual ECU over udp) with each form
# of the vehicle: minimal coordinates (hmmwv_ce.yaml, the run file's), bushings (hmmwv.yaml)
# and ideal joints (hmmwv_joints.yaml), 3 s of `rtvd run` each, from the embedded files (a
# missing embedded file fails the load). Checked per form from the run's JSON report (the
# counters both ends keep, per message), none of it depending on how promptly the threads ran:
#   - the run ended by its duration; the mapping loaded against the vehicle's signals; no
#     transmitted value was clamped to its DBC range, no send failed;
#   - every frame either end received was used: none rejected (no bad length, range, NaN,
#     invalid value, unknown id or E2E error), every E2E check OK (RX timeouts are not judged:
#     at 3 cycle times, 30-60 ms, a thread held off that long by the load times out, as it
#     must);
#   - ECU -> target: the target received every frame the ECU sent (the ECU stops first and the
#     target drains its socket when it stops) and the kernel dropped none (rx_overflow 0: its
#     212992-byte receive buffer holds a few hundred of these one-frame datagrams (each
#     charged with its buffer overhead, ~1 KiB), about half a second of the ECU's 400
#     frames/s; a CAN thread held off that long is a broken bench, and the failure names the
#     kernel's count);
#   - target -> ECU: the ECU stops first (app/run_session.c), the target keeps sending until it
#     stops too, so the frames the ECU never read are the target's last ones; how many depends
#     only on how soon the main thread gets to stop the target, i.e. on scheduling. What the
#     software guarantees is checked instead: of every message the ECU received a gap-free
#     prefix (each frame E2E OK: its alive counter the previous one's + 1; no datagram lost:
#     rx_overflow and the cannelloni sequence gaps 0), and the frames it did not receive are
#     exactly those after ONE instant of the target's slot schedule (the ECU's last drain of
#     its one socket, which gets the datagrams in the order sent). From the target's own
#     records: message m (cycle c_m ms, sent in the slots s = phase_m mod c_m) had its last
#     frame in slot S_m (the report's tx_last) and tail_m = target frames - ECU frames not
#     received, so its last received frame was in slot L_m = S_m - tail_m c_m and its first
#     missing one in U_m = L_m + c_m (none: U_m = infinity). One cut: max L_m <= min U_m (<=:
#     the frames of one slot go out one after the other, a cut can fall between them). Slots
#     the target skipped (more than APP_SLOTS_CATCHUP late: counted) hold no frames: with K of
#     them L_m may lie up to K c_m earlier, so then max (L_m - K c_m) <= min U_m is checked.
#   The tail (in the target's slots) is printed, never judged.
# The bus is on udp ports 20110/20111 (--can-port), apart from the default's 20000/20001,
# which tests without the ctest lock (cli_test) may hold.
set -u
RTVD=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
for v in hmmwv_ce hmmwv hmmwv_joints; do
    "$RTVD" run "<embedded>/config/runs/hmmwv_bench.yaml" \
        --vehicle "<embedded>/config/vehicles/$v.yaml" --duration 3 --quiet --udp off --can-port 20110 \
        --motion off --no-mlock --report-dir "$tmp/$v" >"$tmp/$v.out" 2>&1
    rc=$?
    out=$tmp/$v.out
    echo "$v: rc $rc | $(grep -E '^  CAN hmmwv-bench' "$out") | $(grep -E '^  ECU: tx' "$out")"
    if [ $rc -ne 0 ] || ! /usr/bin/python3 - "$tmp/$v"/*-report.json "$v" <<'PY'; then
import json, sys

rep, name = sys.argv[1], sys.argv[2]
d = json.load(open(rep))
t, e = d["can"]["target"], d["can"]["ecu"]
bad = []


def need(ok, what):
    if not ok:
        bad.append(what)


need(d["result"]["stop_reason"] == "duration", "the run did not end by its duration")
tb, eb = t["buses"][0]["stats"], e["buses"][0]["stats"]
for who, side, bus in (("target", t, tb), ("ECU", e, eb)):
    rx = side["map"]["rx"]
    need(rx["frames"] == rx["used"] == rx["e2e"]["OK"] and rx["frames"] > 0,
         "%s: rx %d frames, %d used, %d E2E OK" % (who, rx["frames"], rx["used"], rx["e2e"]["OK"]))
    need(all(rx[k] == 0 for k in ("bad_len", "out_of_range", "nan", "invalid_value", "unknown",
                                  "other")), "%s: values rejected" % who)
    need(side["map"]["tx"]["clamped"] == 0 and side["map"]["tx"]["dropped"] == 0,
         "%s: tx values clamped or frames dropped" % who)
    need(bus["tx_frames"] == side["map"]["tx"]["frames"] and bus["tx_dropped"] == 0 and
         bus["tx_errors"] == 0, "%s: the transport did not send every frame" % who)
# ECU -> target: all of it, none dropped by the kernel
lost = e["map"]["tx"]["frames"] - t["map"]["rx"]["frames"]
need(lost == 0 and tb["rx_overflow"] == 0,
     "ECU sent %d frames, the target received %d (kernel drops %d)" %
     (e["map"]["tx"]["frames"], t["map"]["rx"]["frames"], tb["rx_overflow"]))
# target -> ECU: a gap-free prefix of every message, the rest after one cut
need(eb["rx_overflow"] == 0 and eb["udp_seq_lost"] == 0,
     "ECU: datagrams lost (overflow %d, sequence gaps %d)" % (eb["rx_overflow"], eb["udp_seq_lost"]))
got = {m["name"]: m for m in e["map"]["messages"] if not m["sent"]}
K = t["counters"]["skipped_slots"]
lo, hi, tails = [], [], []
for m in t["map"]["messages"]:
    if not m["sent"]:
        continue
    r = got.get(m["name"])
    if r is None or m["name"] not in t["tx_last"]:
        bad.append("%s: not received by the ECU or never sent" % m["name"])
        continue
    tail, c, S = m["frames"] - r["frames"], m["cycle_ms"], t["tx_last"][m["name"]]["slot"]
    need(0 <= tail < m["frames"] and r["used"] == r["frames"] and r["e2e_rejected"] == 0,
         "%s: target sent %d, ECU received %d, used %d" % (m["name"], m["frames"], r["frames"],
                                                           r["used"]))
    need(S % c == m["phase_ms"], "%s: last frame in slot %d, not on its phase" % (m["name"], S))
    lo.append(S - tail * c - K * c)
    hi.append(S - tail * c + c if tail > 0 else float("inf"))
    tails.append("%s %d" % (m["name"], tail))
if lo and hi:
    need(max(lo) <= min(hi), "the frames the ECU missed are not those after one instant: last "
         "received slots >= %d, first missing <= %s (%s; %d skipped slots)" %
         (max(lo), min(hi), ", ".join(tails), K))
    print("%s: frames the target sent after the ECU's last drain: %s (%d slots skipped)" %
          (name, ", ".join(tails), K))
for b in bad:
    print("FAIL: %s: %s" % (name, b), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
        echo "FAIL: $v: the CAN counters do not match (or the run failed):" >&2
        cat "$out" >&2
        fails=1
    fi
done
# the default run (the sedan's mapping) with the HMMWV: refused at load, located in the
# mapping, with the way out
"$RTVD" run --vehicle "<embedded>/config/vehicles/hmmwv_ce.yaml" --duration 0.1 --quiet \
    --udp off --motion off --no-mlock --report-dir "$tmp/def" >"$tmp/def.out" 2>&1
rc=$?
if [ $rc -ne 1 ] ||
    ! grep -q "sedan.yaml:[0-9]*:[0-9]*: error: output '[^']*' is not a signal of model hmmwv_ce .*config/can/hmmwv.yaml" "$tmp/def.out"; then
    echo "FAIL: the sedan's mapping with the HMMWV: exit $rc, no located error with the hint:" >&2
    cat "$tmp/def.out" >&2
    fails=1
fi
[ $fails -eq 0 ] && echo "hmmwv_can: passed"
exit $fails
