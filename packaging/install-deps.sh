#!/usr/bin/env bash
# Installs the Debian packages Trainyard needs to build, test and run, and only
# those that are missing, so a second `make` costs nothing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache
  qt6-base-dev qt6-base-dev-tools libgl-dev
  libtorch-dev nlohmann-json3-dev libqcustomplot-dev
  python3-torch python3-optuna dataset-fashion-mnist libopenblas0-pthread
  python3 python3-venv
  protobuf-compiler python3-protobuf python3-crcmod python3-jsonschema python3-pandas
  xvfb xauth clang clang-format-16 shellcheck libclang-rt-14-dev dpkg-dev file
  slurmctld slurmd slurm-client munge openssh-server
  dbus-daemon
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
