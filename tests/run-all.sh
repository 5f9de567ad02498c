#!/usr/bin/env bash
# Builds and runs every test: the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
# (build/asan, Clang), then each libFuzzer target for a few seconds over its seed corpus (a new
# crash, or a regression input that crashes again, fails here), then the integration tests
# against the optimised binary (build/default).
# Long stress runs are hidden behind Catch2's [.] tags and are not run here.
set -euo pipefail
cd "$(dirname "$0")/.."
# A request may nest JSON 10,000 levels deep, and tests and fuzz targets run request code on their
# main thread, whose sanitizer frames need more than the usual 8 MiB there (the server binary sizes
# its own threads' stacks).
ulimit -s 65536 2>/dev/null || true

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# Paths relative to the checkout in cache keys, and the build directory left out of them (it is
# only in the debug info), so that fresh clones share compiled objects.
export CCACHE_BASEDIR=$PWD
export CCACHE_NOHASHDIR=1
export CTEST_OUTPUT_ON_FAILURE=1

cmake --preset asan -DKS_WERROR=ON >/dev/null
cmake --build --preset asan
cmake --preset default -DKS_WERROR=ON >/dev/null
cmake --build --preset default --target integration-deps

ctest --preset asan -L unit
ctest --preset asan -L fuzz
ctest --preset default -L integration
