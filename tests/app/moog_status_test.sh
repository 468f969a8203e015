#!/bin/sh
# tests/app/moog_status_test.sh RTVD - a Moog MBC's status messages end to end over loopback
# UDP: `rtvd run` feeds Moog MDA (format moog_mda, the quarter car at 500 Hz, heartbeat
# watched) to `rtvd motion --format moog_mda`, which acts as the MBC and answers every command
# with a status message (io/MOTION_DATAGRAMS.md):
# - the engage handshake: the feed commands ENGAGE with neutral cues until the MBC reports
#   ENGAGED and only then fades in (the MBC sees no motion while in STANDBY; without the
#   heartbeat watched, as in motion_test, the first fade-in command comes with ENGAGE);
# - a fault injected (fault word 2 bit 6, HostCommandRangeExceeded, at 1 s) while every 50th
#   status is malformed on purpose (six kinds in turn): the feed parks with "platform fault"
#   at its first send after the fault report (counted in datagrams, not timed), fading for
#   park_s before it sends DISENGAGE; every malformed status rejected and counted by its
#   reason, none taken as a heartbeat; the report, the summary and the status datagrams
#   (telemetry: motion.platform) carry the machine state and fault words; the platform, left
#   without commands after the run, latches hostComm (word 1 bit 0);
# - a fault state without fault bits (INHIBITED at 0.8 s) parks the feed the same way;
# - FROZEN (not a fault) parks nothing: the run ends parked after stop;
# - the MBC gone silent (the receiver exits after 1 s): the heartbeat, watched on the status
#   messages, is lost;
# - the engage timeout (run file motion.engage_timeout_s: 1): an MBC that ignores ENGAGE
#   (--moog-never-engage) gets ENGAGE with neutral cues for exactly floor(1 s / 2 ms) + 1 = 501
#   sends (slot times, not the wall clock), then the feed parks with "engage timeout", latched
#   and counted (report, summary, status datagrams) and sends DISENGAGE; no RESET ever;
# - the fault reset (run file motion.reset): never (the default) sends no RESET whatever the
#   MBC reports; at_start resets a fault the MBC reports before the first ENGAGE (latched
#   before the run: --moog-fault at 0 s) and then engages and runs to a normal park; a fault
#   during the run (at 1 s) is never reset, with at_start too; a fault state the MBC holds
#   (--moog-state fault1@0: RESET does not clear it) gets RESET for exactly APP_MOTION_RESET_S
#   (2 s: floor(2 s / 2 ms) + 1 = 1001 sends), then latches as a platform fault.
# Ports: motion 24970..24979 and 24982, status 24980 and 24981 (none of the other tests' ports).
set -u
RTVD=$1
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
RUN="<embedded>/config/runs/quarter_car.yaml"
. "$(dirname "$0")/ready.sh"

# the Moog-like receiver in the background, rp its pid; $1 name, $2 port, $3 its options.
# Its hostComm timeout is 5 s unless $3 sets one (the last given counts): the MBC's 0.2 s
# would latch a fault when a loaded machine holds rtvd's motion thread off that long, which
# only case 1 tests (it gives its own)
receiver() {
    "$RTVD" motion "127.0.0.1:$2" --format moog_mda --duration 30 \
        --exit-when-silent 1 --json "$tmp/$1.json" --moog-timeout 5 $3 >"$tmp/$1.motion" 2>&1 &
    rp=$!
    ready "$tmp/$1.motion" "listening on"
}

# the motion objects of the status datagrams to udp port $2, a list into $tmp/$1 (written when
# none came for 10 s), in the background, dgpid its pid
listen() {
    $PY - "$tmp/$1" "$2" <<'PY' &
import socket, sys, json
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[2]))); s.settimeout(10)
open(sys.argv[1] + ".ready", "w").write("bound\n")
got = []
try:
    while True:
        d = json.loads(s.recv(65536))
        if "motion" in d:
            d["motion"].setdefault("platform", None)
            got.append(d["motion"])
except socket.timeout:
    pass
json.dump(got, open(sys.argv[1], "w"))
PY
    dgpid=$!
    ready "$tmp/$1.ready" bound
}

# one run against the Moog-like receiver; $1 name, $2 port, $3 receiver options, $4.. run options
pair() {
    name=$1 port=$2
    receiver "$1" "$2" "$3"
    shift 3
    "$RTVD" run "$RUN" --duration 3 --report-dir "$tmp/$name" --motion "127.0.0.1:$port" \
        --motion-format moog_mda --motion-rate 500 --motion-heartbeat 0.5 "$@" \
        >"$tmp/$name.out" 2>&1
    echo $? >"$tmp/$name.rc"
    wait $rp
}

# 1. a latched fault, malformed status datagrams among the good ones, the telemetry listened to;
# hostComm at 1 s (not the MBC's 0.2 s) so that only the silence after the run latches it (the
# receiver waits 2 s before it exits), not a motion thread held off by a loaded machine
listen dgrams.json 24980
pair fault 24970 "--moog-fault 2:6@1.0 --moog-timeout 1 --exit-when-silent 2 --moog-bad-every 50" --udp 127.0.0.1:24980
wait $dgpid
grep -q "platform (Moog MBC status): state fault2, fault words 0x00000000 0x00000040 0x00000000" \
    "$tmp/fault.out" || bad "summary: $(grep -A1 'motion feed' "$tmp/fault.out")"
grep -q "heartbeat watched (the MBC's status messages" "$tmp/fault.out" ||
    bad "describe line: $(grep 'motion feed' "$tmp/fault.out")"
$PY - "$tmp" <<'PY' || bad "fault injection"
import json, sys
d = sys.argv[1]
rep = json.load(open(d + "/fault/rtvd-report.json"))["motion"]
rx = json.load(open(d + "/fault.json"))
tm = json.load(open(d + "/dgrams.json"))
pl, mo = rep["platform"], rx["moog"]
ok = True
def check(c, what):
    global ok
    if not c:
        print("FAIL:", what, file=sys.stderr); ok = False
print("  fault: %s after %s; platform %s, words %s, %d status, %d rejected %s; fault -> park %d "
      "sends, %.3f ms; receiver: fault at command %d, first DISENGAGE at %d" %
      (rep["state"], rep["reason"], pl["state"], pl["fault_words"], pl["status"],
       pl["rejected_total"], pl["rejected"], pl["fault_to_park_sends"], pl["fault_to_park_ms"],
       mo["fault_at_command"], mo["first_disengage_after_fault"]))
check(rep["state"] == "fault" and rep["reason"] == "platform fault", "parked for the platform")
check(rep["faults"]["platform fault"] == 1, "one platform-fault event")
check(pl["fault"] and pl["first_fault_state"] == "fault2" and pl["state"] == "fault2"
      and pl["fault_words"] == [0, 64, 0] and pl["fault_words_seen"] == [0, 64, 0],
      "state and fault words: %s" % pl)
check(pl["motion_mode"] == 3 and pl["update_rate_hz"] == 500, "MDA mode, the rate echoed")
check(pl["engage_wait_sends"] >= 1 and mo["motion_in_standby"] == 0,
      "engage handshake: %d ENGAGE with neutral cues, %d motion commands in STANDBY" %
      (pl["engage_wait_sends"], mo["motion_in_standby"]))
# the park is the first send after the report: the thread drains the socket in every slot and
# the state machine takes the fault on the next send, in the same thread
check(pl["fault_to_park_sends"] == 0, "fault to park: %d sends" % pl["fault_to_park_sends"])
# the fault is never reset by rtvd (run file reset: never, the default)
check(pl["reset"] == "never" and pl["reset_sends"] == 0 and mo["reset"] == 0,
      "no RESET: %d sent, the MBC got %d" % (pl["reset_sends"], mo["reset"]))
# the fade takes park_s (2 s) at 500 Hz: the MBC sees >= 1000 more commands (ENGAGE) before
# the first DISENGAGE; a jump to neutral would show fewer
check(mo["fault_at_command"] > 0 and
      mo["first_disengage_after_fault"] - mo["fault_at_command"] >= 1000,
      "the fade before DISENGAGE: commands %d .. %d" % (mo["fault_at_command"],
                                                      mo["first_disengage_after_fault"]))
# every malformed status is rejected by its reason, none accepted; what the platform sent and
# rtvd read agree (the statuses sent after rtvd closed its socket are not read: <=)
check(all(pl["rejected"][k] >= 1 for k in ("short", "not a status id", "length field",
                                           "machine state", "feedback chain", "value")),
      "every kind of malformed status rejected: %s" % pl["rejected"])
check(sum(pl["rejected"].values()) == pl["rejected_total"] <= mo["bad_sent"], "rejected count")
check(pl["status"] + pl["rejected_total"] <= mo["status_sent"], "status read <= sent")
check(rep["heartbeats"] == pl["status"] and rep["faults"]["heartbeat lost"] == 0,
      "the accepted status messages are the heartbeat")
check(pl["gaps"] == 0 or pl["gaps"] == pl["rejected_total"],
      "status sequence gaps: only the rejected ones")
check(rx["gaps"] == 0 and rx["bad"] == 0, "commands: gaps %d, bad %d" % (rx["gaps"], rx["bad"]))
# the platform, left without commands after the run: hostComm latched
check(mo["fault_words"][0] & 1 and mo["fault_words"][1] == 64, "receiver's words %s" % mo["fault_words"])
# the telemetry: status datagrams with motion.platform, the last one in fault2 with word 2 bit 6
pls = [x for x in tm if x["platform"]]
check(len(pls) > 3, "status datagrams with motion.platform: %d" % len(pls))
if pls:
    last = tm[-1]
    check(last["platform"]["state"] == "fault2" and last["platform"]["fault2"] == 64
          and last["platform"]["status"] > 0 and last["platform"]["rejected"] > 0
          and last["fault"] == "platform fault", "telemetry: %s" % last)
sys.exit(0 if ok else 1)
PY

# 2. a fault state without fault bits; 3. FROZEN, no fault
pair inhib 24971 "--moog-state inhibited@0.8" --udp off
pair frozen 24972 "--moog-state frozen@0.5" --udp off
# 4. the MBC goes silent: the heartbeat (its status messages) is lost
pair silent 24973 "--duration 1" --udp off
$PY - "$tmp" <<'PY' || bad "states and silence"
import json, sys
d = sys.argv[1]
ok = True
for name, state, reason, plat, words in (("inhib", "fault", "platform fault", "inhibited", [0, 0, 0]),
                                         ("frozen", "parked", "stop", "frozen", [0, 0, 0]),
                                         ("silent", "fault", "heartbeat lost", None, None)):
    rep = json.load(open("%s/%s/rtvd-report.json" % (d, name)))["motion"]
    mo = json.load(open("%s/%s.json" % (d, name)))["moog"]
    pl = rep["platform"]
    good = (rep["state"] == state and rep["reason"] == reason and pl["rejected_total"] == 0
            and mo["motion_in_standby"] == 0)
    if plat:
        good = good and pl["state"] == plat and pl["fault_words"] == words
    if name == "inhib":
        good = good and pl["first_fault_state"] == "inhibited" and pl["fault_to_park_sends"] == 0
    if name == "silent":
        good = good and pl["status"] > 0 and not pl["fault"]
    print("  %s: %s after %s, platform %s, %d status" % (name, rep["state"], rep["reason"],
                                                        pl["state"], pl["status"]))
    if not good:
        print("FAIL: %s: %s" % (name, rep), file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
PY

# 5. without the heartbeat watched there is no handshake: the fade-in starts with the first
# ENGAGE, which finds the MBC in STANDBY (the check above can fail)
receiver nohs 24974 ""
"$RTVD" run "$RUN" --duration 1 --udp off --report-dir "$tmp/nohs" --motion 127.0.0.1:24974 \
    --motion-format moog_mda >"$tmp/nohs.out" 2>&1
wait $rp
$PY - "$tmp" <<'PY' || bad "no handshake"
import json, sys
mo = json.load(open(sys.argv[1] + "/nohs.json"))["moog"]
pl = json.load(open(sys.argv[1] + "/nohs/rtvd-report.json"))["motion"]["platform"]
ok = mo["motion_in_standby"] >= 1 and pl["engage_wait_sends"] == 0
print("  no handshake: %d motion commands in STANDBY" % mo["motion_in_standby"])
sys.exit(0 if ok else 1)
PY

# 7. the engage timeout and the fault reset, from a run file (the quarter car's with a motion
# section; pair's command line gives the rest)
runfile() { # $1 name, $2.. motion keys
    f=$tmp/$1.yaml
    shift
    {
        echo "model: <embedded>/config/models/quarter_car.yaml"
        echo "rt: {period_us: 1000, policy: skip, grace_cycles: 10}"
        echo "motion:"
        echo "  dest: 127.0.0.1:1"
        for kv in "$@"; do echo "  $kv"; done
    } >"$f"
    echo "$f"
}
RUN0=$RUN
RUN=$(runfile eto "engage_timeout_s: 1")
listen eto_dgrams.json 24981
# (--moog-timeout 5: the MBC's hostComm latch is case 1's; here a host held off by a loaded
# machine for 0.2 s must not add a fault these cases do not test)
pair eto 24975 "--moog-never-engage --moog-timeout 5" --udp 127.0.0.1:24981
wait $dgpid
RUN=$(runfile rs_never)
pair rs_never 24976 "--moog-fault 2:6@0 --moog-timeout 5" --udp off
RUN=$(runfile rs_start "reset: at_start")
pair rs_start 24977 "--moog-fault 2:6@0 --moog-timeout 5" --udp off
pair rs_run 24978 "--moog-fault 2:6@1 --moog-timeout 5" --udp off
pair rs_held 24979 "--moog-state fault1@0 --moog-timeout 5" --udp off
# an MBC that reports ENGAGED (held) with a fault word latched before the run: reset first,
# never faded in while the fault stands
pair rs_eng 24982 "--moog-state engaged@0 --moog-fault 2:6@0 --moog-timeout 5" --udp off
RUN=$RUN0
grep -q "fault reset at start (faults reported before the first ENGAGE, once)" "$tmp/rs_start.out" ||
    bad "describe line: $(grep 'engage handshake' "$tmp/rs_start.out")"
$PY - "$tmp" <<'PY' || bad "engage timeout and fault reset"
import json, re, sys
d = sys.argv[1]
ok = True
def check(c, what):
    global ok
    if not c:
        print("FAIL:", what, file=sys.stderr); ok = False
# the summary's handshake line of the engage timeout against the report: 501 ENGAGE commanded,
# sent all of them but those sendto refused (a loaded machine: counted in send_errors, of any
# datagram), so tries - send_errors <= sent <= tries, the summary's numbers the report's; no
# RESET. None, or what is wrong
def eto_summary(out, rep):
    m = re.search(r"engage handshake: (\d+) ENGAGE with neutral cues sent of (\d+) commanded "
                  r"\(timeout 1 s: timed out\); fault reset never: (\d+) RESET sent of (\d+) "
                  r"commanded\n", out)
    if not m:
        return "no engage handshake line"
    sent, tries, rsent, rtries = map(int, m.groups())
    pl = rep["platform"]
    if not (tries == 501 and 501 - rep["send_errors"] <= sent <= 501
            and (sent, tries) == (pl["engage_wait_sends"], pl["engage_wait_tries"])
            and rsent == rtries == pl["reset_sends"] == pl["reset_tries"] == 0):
        return "%d ENGAGE sent of %d, %d RESET of %d; report %s, %d send errors" % (
            sent, tries, rsent, rtries, pl, rep["send_errors"])
    return None
# ... which takes a run with a refused sendto and refuses a count no send error explains
line = ("engage handshake: %d ENGAGE with neutral cues sent of 501 commanded (timeout 1 s: "
        "timed out); fault reset never: 0 RESET sent of 0 commanded\n")
def fake(sent, errors):
    return {"send_errors": errors, "platform": {"engage_wait_sends": sent, "engage_wait_tries": 501,
                                                "reset_sends": 0, "reset_tries": 0}}
check(eto_summary(line % 501, fake(501, 0)) is None and eto_summary(line % 500, fake(500, 1)) is None
      and eto_summary(line % 499, fake(499, 3)) is None
      and eto_summary(line % 500, fake(500, 0)) is not None
      and eto_summary(line % 499, fake(499, 1)) is not None
      and eto_summary(line % 500, fake(501, 1)) is not None, "the summary check itself")
def load(name):
    return (json.load(open("%s/%s/rtvd-report.json" % (d, name)))["motion"],
            json.load(open("%s/%s.json" % (d, name))))
# the engage timeout: 501 ENGAGE (slot arithmetic: sends j = 0.. with j x 2 ms <= 1 s), then
# DISENGAGE; the MBC got every one of them (loopback, no gap) and never saw motion
rep, rx = load("eto")
pl, mo = rep["platform"], rx["moog"]
why = eto_summary(open(d + "/eto.out").read(), rep)
check(why is None, "engage timeout summary: %s" % why)
print("  engage timeout: %s after %s, %d ENGAGE sent, the MBC got %d ENGAGE, %d DISENGAGE, %d RESET"
      % (rep["state"], rep["reason"], pl["engage_wait_sends"], mo["engage"], mo["disengage"],
         mo["reset"]))
check(rep["state"] == "fault" and rep["reason"] == "engage timeout", "parked for the timeout")
check(rep["faults"]["engage timeout"] == 1 and sum(rep["faults"].values()) == 1,
      "one fault event: %s" % rep["faults"])
# the handshake's clock counts the ENGAGE commanded (tries); those sent are all of them
# unless sendto refused some (then counted in send_errors)
check(pl["engage_timed_out"] and pl["engage_timeout_s"] == 1 and pl["engage_wait_tries"] == 501
      and 501 - rep["send_errors"] <= pl["engage_wait_sends"] <= 501,
      "501 ENGAGE then the timeout: %s" % pl)
# (the MBC's counts are exact when it lost no command: a receiver held off long enough to
# overflow its socket shows sequence gaps, and then they are bounds)
check((mo["engage"] == 501 if rx["gaps"] == 0 else mo["engage"] <= 501) and mo["disengage"] >= 1
      and mo["reset"] == 0 and mo["motion_in_standby"] == 0 and mo["never_engage"],
      "the MBC's count: %s (gaps %d)" % (mo, rx["gaps"]))
check(pl["state"] == "standby" and not pl["fault"], "the MBC stayed in standby, no fault")
tm = json.load(open(d + "/eto_dgrams.json"))
tm = tm[-1] if tm else None
check(tm and tm["fault"] == "engage timeout" and tm["engage_timeouts"] == 1
      and tm["platform"]["resets"] == 0, "telemetry: %s" % tm)
# reset never: a fault before the first ENGAGE parks at once, no RESET
rep, rx = load("rs_never")
pl, mo = rep["platform"], rx["moog"]
check(rep["state"] == "fault" and rep["reason"] == "platform fault" and pl["reset"] == "never"
      and pl["reset_sends"] == 0 and mo["reset"] == 0 and pl["engage_wait_sends"] == 0,
      "reset never: %s / %s" % (rep, mo))
# reset at start: RESET until the MBC reports no fault, then the handshake and a normal run
rep, rx = load("rs_start")
pl, mo = rep["platform"], rx["moog"]
print("  reset at start: %s after %s, %d RESET sent (acknowledged %s), fault words before "
      "engage %s, the MBC cleared %d" % (rep["state"], rep["reason"], pl["reset_sends"],
                                         pl["reset_acked"], pl["fault_words_before_engage"],
                                         mo["resets_cleared"]))
check(rep["state"] == "parked" and rep["reason"] == "stop" and not pl["fault"]
      and pl["reset"] == "at_start" and pl["reset_sends"] >= 1 and pl["reset_acked"]
      and not pl["reset_failed"] and pl["fault_words_before_engage"] == [0, 64, 0]
      and pl["fault_state_before_engage"] == "fault2" and pl["engage_wait_sends"] >= 1
      and not pl["engage_timed_out"], "reset at start: %s" % pl)
check(mo["resets_cleared"] == 1 and 1 <= mo["reset"] <= pl["reset_sends"]
      and (mo["reset"] == pl["reset_sends"] or rx["gaps"] > 0) and mo["motion_in_standby"] == 0
      and sum(v for k, v in rep["faults"].items() if k != "stop") == 0,
      "reset at start, the MBC: %s" % mo)
# a fault during the run is never reset, with at_start too
rep, rx = load("rs_run")
pl, mo = rep["platform"], rx["moog"]
check(rep["state"] == "fault" and rep["reason"] == "platform fault" and pl["reset_sends"] == 0
      and mo["reset"] == 0 and pl["fault_words"] == [0, 64, 0], "fault during the run: %s" % pl)
# a fault state the MBC holds: RESET for 2 s exactly (1001 sends), then the fault latches
rep, rx = load("rs_held")
pl, mo = rep["platform"], rx["moog"]
print("  reset not acknowledged: %s after %s, %d RESET sent, failed %s" %
      (rep["state"], rep["reason"], pl["reset_sends"], pl["reset_failed"]))
check(rep["state"] == "fault" and rep["reason"] == "platform fault" and pl["reset_tries"] == 1001
      and 1001 - rep["send_errors"] <= pl["reset_sends"] <= 1001 and pl["reset_failed"] and not pl["reset_acked"] and pl["engage_wait_sends"] == 0
      and pl["first_fault_state"] == "fault1", "held fault: %s" % pl)
check(mo["reset"] == 1001 if rx["gaps"] == 0 else 1 <= mo["reset"] <= 1001,
      "the MBC's RESET count %d" % mo["reset"])
# ENGAGED with a fault word before the first ENGAGE: RESET until the MBC reports no fault
# (acknowledged by a status during this reset), then the fade-in and a normal run (before the
# fix the feed faded the cues in on the stale ENGAGED and never reset: platform fault)
rep, rx = load("rs_eng")
pl, mo = rep["platform"], rx["moog"]
print("  ENGAGED with a fault: %s after %s, %d RESET sent (acknowledged %s), the MBC cleared %d"
      % (rep["state"], rep["reason"], pl["reset_sends"], pl["reset_acked"], mo["resets_cleared"]))
check(rep["state"] == "parked" and rep["reason"] == "stop" and pl["reset_sends"] >= 1
      and pl["reset_acked"] and not pl["reset_failed"] and pl["fault_words_before_engage"] == [0, 64, 0]
      and pl["fault_state_before_engage"] == "engaged" and mo["resets_cleared"] == 1
      and sum(v for k, v in rep["faults"].items() if k != "stop") == 0, "ENGAGED with a fault: %s / %s" % (pl, mo))
sys.exit(0 if ok else 1)
PY
# the run file's keys: a located error for a bad value
f=$(runfile bad1 "engage_timeout_s: 0.5")
"$RTVD" run "$f" --duration 0.1 --udp off >"$tmp/bad1.out" 2>&1 && bad "engage_timeout_s 0.5 accepted"
grep -q "bad1.yaml:[0-9]*:[0-9]*: error: .*engage_timeout_s.*0.5" "$tmp/bad1.out" ||
    bad "engage_timeout_s error: $(cat "$tmp/bad1.out")"
f=$(runfile bad2 "reset: always")
"$RTVD" run "$f" --duration 0.1 --udp off >"$tmp/bad2.out" 2>&1 && bad "reset: always accepted"
grep -q "bad2.yaml:[0-9]*:[0-9]*: error: .*reset.*always" "$tmp/bad2.out" ||
    bad "reset error: $(cat "$tmp/bad2.out")"

# 6. the receiver's options
"$RTVD" motion --moog-fault 2:6@1 >/dev/null 2>"$tmp/o1" && bad "--moog-fault without --format"
grep -q "need --format moog_mda" "$tmp/o1" || bad "option error: $(cat "$tmp/o1")"
"$RTVD" motion --format moog_mda --moog-fault 4:1@1 >/dev/null 2>"$tmp/o2" && bad "word 4"
grep -q "word 1-3" "$tmp/o2" || bad "word error: $(cat "$tmp/o2")"
"$RTVD" motion --moog-never-engage >/dev/null 2>"$tmp/o4" && bad "--moog-never-engage without --format"
grep -q "need --format moog_mda" "$tmp/o4" || bad "option error: $(cat "$tmp/o4")"
"$RTVD" motion --format moog_mda --moog-state nosuch@1 >/dev/null 2>"$tmp/o3" && bad "state"
grep -q "unknown state" "$tmp/o3" || bad "state error: $(cat "$tmp/o3")"

[ $fails = 0 ] && echo "moog_status_test: all passed" || echo "moog_status_test: $fails failed"
exit $fails
