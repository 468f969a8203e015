#!/bin/sh
# deploy/run.sh - the README's first command: install the dependencies, build, and run the
# main job, `rtvd run`, on its embedded default (config/runs/default.yaml: the sedan in the
# default HIL scenario at 1 kHz, reports in out/). Extra arguments go to `rtvd run`, e.g.
# `./deploy/run.sh --duration 5` or `./deploy/run.sh config/runs/quarter_car.yaml`.
set -eu
cd "$(dirname "$0")/.."
./deploy/install-deps.sh --runtime-only
./deploy/build.sh release
exec ./build/app/rtvd run "$@"
