#!/usr/bin/env bash
# Installs, from Debian 12 packages only, whatever kube-sandbox needs and the machine lacks.
# Idempotent and non-interactive; runs as root or through sudo.
#   install-deps.sh          build + run dependencies
#   install-deps.sh --test   also the peers the test suite drives (etcd, python client, Xvfb, Mesa)
set -euo pipefail

build_pkgs=(
  g++ cmake ninja-build ccache pkg-config
  libboost1.81-dev          # Beast/Asio; 1.74 breaks with g++ 12 + C++20 coroutines (see docs/)
  nlohmann-json3-dev libyaml-cpp-dev liblmdb-dev libssl-dev libre2-dev
  libimgui-dev libglfw3-dev libgl-dev libstb-dev fonts-dejavu-core
  catch2
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
)
test_pkgs=(
  clang libfuzzer-14-dev    # the sanitizer tree (cmake --preset asan) and the fuzz targets
  python3 python3-kubernetes python3-yaml
  etcd-client etcd-server
  xvfb xauth libgl1-mesa-dri mesa-utils imagemagick xdotool
  procps curl openssl
  chromium                  # the web console's end-to-end tests drive it headless
)
# Node.js and npm bundle the web console's page (npm packages from its committed lockfile). A
# Node.js installed by other means, with its own npm, is used as it is.
if ! command -v npm >/dev/null 2>&1; then
  build_pkgs+=(nodejs npm)
fi

want=("${build_pkgs[@]}")
if [[ "${1:-}" == "--test" ]]; then
  want+=("${test_pkgs[@]}")
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--test]" >&2
  exit 2
fi

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: everything is already installed"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  sudo_cmd=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Packaged daemons (etcd-server) must not be started by the install: tests start their own.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee "$policy" >/dev/null
  "${sudo_cmd[@]}" chmod +x "$policy"
  made_policy=1
fi
trap '[[ $made_policy -eq 1 ]] && "${sudo_cmd[@]}" rm -f "$policy"' EXIT
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
