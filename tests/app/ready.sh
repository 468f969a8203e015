# tests/app/ready.sh - sourced by the end-to-end scripts (after bad() is defined).
# ready FILE PATTERN: wait (at most 30 s) until FILE has a line matching PATTERN: a receiver
# is ready (`rtvd motion` prints "listening on" once its socket is bound; a python receiver
# writes a file after its bind). Polled, not slept: on a loaded machine a fixed sleep can end
# before the receiver binds.
ready() {
    i=0
    while [ $i -lt 300 ]; do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
        i=$((i + 1))
    done
    bad "never ready: $1 has no '$2'"
    return 1
}
