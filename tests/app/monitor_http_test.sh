#!/bin/sh
# tests/app/monitor_http_test.sh RTVD - rtvd monitor's HTTP connection limits (app/cmd_monitor.c):
# connections opened at once from 127.0.0.1 and all accepted by the monitor (its accept queue
# empty), then a GET /metrics sent on each, then each read.
# Bound to loopback, where every browser tab and a local Prometheus come from 127.0.0.1, 48
# are all served (no per-address limit) and of 70 exactly 64 (the global limit: the 6 beyond
# it closed unanswered); bound to 0.0.0.0, of 48 from 127.0.0.1 exactly 32 are served (the
# per-address limit) and 16 closed. A fresh monitor for each case, so that no connection of
# one case still holds a slot in the next. Ports: udp 25877 (one monitor at a time), http any
# free one (the monitor prints it).
set -u
RTVD=$1
PY=/usr/bin/python3
tmp=$(mktemp -d)
mpid=""
cleanup() { [ -n "$mpid" ] && kill "$mpid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# case HTTP_ADDR CONNECTIONS SERVED
case_() {
    rm -f "$tmp/mon.err" # (else the wait below can read the last case's line and port)
    "$RTVD" monitor 127.0.0.1:25877 --http "$1" --quiet --duration 60 2>"$tmp/mon.err" &
    mpid=$!
    i=0
    until grep -q "web view" "$tmp/mon.err" 2>/dev/null || [ $i -ge 400 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    port=$(sed -n 's|.*web view http://[0-9.]*:\([0-9]*\)/.*|\1|p' "$tmp/mon.err")
    if [ -z "$port" ]; then
        bad "--http $1: the monitor never said where it serves (20 s): $(cat "$tmp/mon.err")"
    else
        $PY - "$port" "$2" "$3" <<'PY' || bad "--http $1: $2 connections from 127.0.0.1"
import socket, sys, time
port, n, want = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])


def backlog():
    """connections waiting in the monitor's accept queue (/proc/net/tcp: the rx_queue of a
    listening socket)"""
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            p = line.split()
            if p[3] == "0A" and int(p[1].split(":")[1], 16) == port:
                return int(p[4].split(":")[1], 16)
    raise SystemExit("no listening socket on port %d" % port)


socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(n)]
# every connection accepted (and kept or closed) before any request: the monitor closes a
# connection once it has answered, which would free a slot for one still queued
for _ in range(400):
    if backlog() == 0:
        break
    time.sleep(0.05)
else:
    raise SystemExit("the monitor did not accept the connections in 20 s")
for s in socks:
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    except OSError:
        pass  # closed by the monitor already
served = closed = 0
for s in socks:
    head = b""
    try:
        while len(head) < 12:
            d = s.recv(12 - len(head))
            if not d:
                break
            head += d
    except ConnectionResetError:
        pass
    # a timeout (socket.timeout) is neither: the test fails on it
    served += head.startswith(b"HTTP/1.1 200")
    closed += head == b""
print("%d connections at once from 127.0.0.1: %d served, %d closed unanswered" %
      (n, served, closed))
assert served == want and closed == n - want, (served, closed, want)
PY
    fi
    kill "$mpid" 2>/dev/null
    wait "$mpid"
    mpid=""
}

case_ 127.0.0.1:0 48 48
case_ 127.0.0.1:0 70 64
case_ 0.0.0.0:0 48 32

# the policy is in --help
"$RTVD" monitor --help | grep -q "at most 64 connections at once" || bad "--help: the global limit"
"$RTVD" monitor --help | grep -q "bound elsewhere than loopback at most 32 of them from" ||
    bad "--help: the per-address limit"

[ $fails -eq 0 ] && echo "monitor_http_test: passed"
exit $fails
