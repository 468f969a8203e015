#!/bin/sh
# tests/layering.sh - dependencies point one way: app -> {rt, io, config} -> core.
# core includes only core/ and system headers; rt, io and config include only core/ and
# their own folder. Fails listing every wrong-way #include.
set -u
cd "$(dirname "$0")/.."
fails=0
check() { # $1 = layer, $2 = allowed project folders (regex alternatives)
    for f in "$1"/*.c "$1"/*.h; do
        [ -e "$f" ] || continue
        grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
            inc=$(printf '%s' "$line" | sed -E 's/.*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/')
            case "$inc" in
            */*) dir=${inc%%/*} ;;
            *) dir=$1 ;; # same folder
            esac
            if ! printf '%s' "$dir" | grep -qxE "$2"; then
                echo "wrong-way include in $f: $line"
            fi
        done
    done
}
out=$( (check core 'core'; check config 'config|core'; check rt 'rt|core'; check io 'io|core') )
if [ -n "$out" ]; then
    echo "$out"
    fails=$(printf '%s\n' "$out" | wc -l)
fi
n=$(ls core/*.[ch] config/*.[ch] rt/*.[ch] io/*.[ch] | wc -l)
echo "layering: $n files checked, $fails wrong-way includes"
[ "$fails" -eq 0 ] && [ "$n" -gt 0 ]
