#!/bin/sh
# tests/app/monitor_web_test.sh RTVD [SCREENSHOT.png] - the monitor's web view in a real
# browser: a short rtvd run with injected overruns feeds rtvd monitor --http; Debian's
# chromium loads the page headless and takes a screenshot; python3-pil then looks inside each
# of the four chart cells (the page's fixed layout: header 48 px, 600 x 330 panels from
# x = 8, y = 56, 12 px apart, a 24 px title above each 600 x 300 canvas) for the pixels of the
# series colours: the turnaround line (blue) and the overrun markers (red) in the first, the
# histogram bars (orange and blue) in the second, the overrun bars (red) in the third, the
# CAN rates (green, purple) in the fourth. A page that loads but draws no data fails.
# SCREENSHOT: keep the PNG there (the README's picture is made this way).
# Ports: udp 25871, http 25881, the run's CAN 25910/25911.
set -u
RTVD=$1
SHOT=${2:-}
tmp=$(mktemp -d)
mpid=""
cleanup() { [ -n "$mpid" ] && kill "$mpid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "FAIL: no chromium (deploy/install-deps.sh installs it)" >&2
    exit 1
fi
/usr/bin/python3 -c "import PIL" 2>/dev/null || { echo "FAIL: no python3-pil" >&2; exit 1; }

"$RTVD" monitor 127.0.0.1:25871 --http 127.0.0.1:25881 --quiet --duration 120 \
    2>"$tmp/mon.err" &
mpid=$!
i=0
until grep -q "listening" "$tmp/mon.err" 2>/dev/null || [ $i -ge 600 ]; do sleep 0.05; i=$((i + 1)); done
grep -q "listening" "$tmp/mon.err" || { echo "FAIL: the monitor never said it was listening (30 s)" >&2; exit 1; }
"$RTVD" run --duration 4 --period-us 5000 --policy skip --udp 127.0.0.1:25871 --can-port 25910 --quiet \
    --inject-delay 200:6500,500:8000,600:6200 --report-dir "$tmp/r" >"$tmp/run.out" 2>&1 ||
    { echo "FAIL: rtvd run" >&2; cat "$tmp/run.out" >&2; exit 1; }

# the page polls /api/status once a second: 3 s of virtual time draw it from the data
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/profile" --hide-scrollbars --window-size=1236,1100 \
    --virtual-time-budget=3000 --screenshot="$tmp/shot.png" http://127.0.0.1:25881/ \
    >"$tmp/chromium.log" 2>&1
[ -s "$tmp/shot.png" ] || { echo "FAIL: no screenshot" >&2; tail -5 "$tmp/chromium.log" >&2; exit 1; }
[ -n "$SHOT" ] && cp "$tmp/shot.png" "$SHOT"

/usr/bin/python3 - "$tmp/shot.png" <<'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
W, H = im.size
assert W >= 1236 and H >= 740, im.size
colour = {"blue": (0x1f, 0x77, 0xb4), "orange": (0xff, 0x7f, 0x0e), "red": (0xd6, 0x27, 0x28),
          "green": (0x2c, 0xa0, 0x2c), "purple": (0x94, 0x67, 0xbd)}
def count(cell, name):
    col, row = cell
    x0, y0 = 8 + col * 612, 56 + row * 342 + 24       # the canvas of that panel
    want, n = colour[name], 0
    px = im.load()
    for y in range(y0, y0 + 300):
        for x in range(x0, x0 + 600):
            if px[x, y] == want:
                n += 1
    return n
need = [((0, 0), "blue", 300), ((0, 0), "red", 30), ((1, 0), "orange", 100), ((1, 0), "blue", 100),
        ((0, 1), "red", 100), ((1, 1), "green", 200), ((1, 1), "purple", 200)]
fails = 0
for cell, name, least in need:
    n = count(cell, name)
    print("chart %s: %d %s pixels (at least %d)" % (cell, n, name, least))
    if n < least:
        fails += 1
# nothing of the series colours outside the charts' canvases but the text (legend-free page)
sys.exit(1 if fails else 0)
PY
rc=$?
[ $rc -eq 0 ] && echo "monitor_web_test: passed" || echo "FAIL: the charts did not draw the data" >&2
exit $rc
