#!/usr/bin/env bash
# Builds and tests the app and the core with TRAINYARD_BUILD_WORKER=OFF as on a
# GUI machine without libtorch-dev: when run as root (CI), LibTorch's headers
# and CMake files are hidden in a private mount namespace, so a stray
# #include <torch/...> or find_package(Torch) fails the build instead of
# passing because this machine happens to have them.
#   packaging/check-build-without-torch.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build-noworker}
shift || true

hide=()
for d in /usr/include/torch /usr/include/ATen /usr/include/c10 /usr/include/caffe2 \
         /usr/lib/x86_64-linux-gnu/cmake/Torch /usr/lib/x86_64-linux-gnu/cmake/ATen \
         /usr/lib/x86_64-linux-gnu/cmake/Caffe2; do
  [[ -d $d ]] && hide+=("$d")
done

inner=$(cat <<'SCRIPT'
set -euo pipefail
empty=$(mktemp -d)
for d in $HIDE; do mount --bind "$empty" "$d"; done
cmake -S "$TOP" -B "$BUILD" -G Ninja -DTRAINYARD_BUILD_WORKER=OFF $ARGS >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
cd "$BUILD" && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$(nproc)" -LE style
SCRIPT
)
export TOP=$top BUILD=$build HIDE="${hide[*]}" ARGS="$*"
if [[ $(id -u) -eq 0 ]] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
  echo "check-build-without-torch: LibTorch hidden (${#hide[@]} folders) in a private mount namespace"
  exec unshare -m bash -c "$inner"
fi
echo "check-build-without-torch: not root, LibTorch stays visible; checking the build option only"
HIDE="" exec bash -c "$inner"
