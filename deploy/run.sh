#!/bin/sh
# deploy/run.sh - the README's first command: install the dependencies, build, and run the
# main job on its embedded default model. Extra arguments go to `rtvd sim`.
set -eu
cd "$(dirname "$0")/.."
./deploy/install-deps.sh --runtime-only
./deploy/build.sh release
exec ./build/app/rtvd sim "$@"
