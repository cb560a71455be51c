#!/usr/bin/env bash
# Builds and tests `trainyard` and the core with TRAINYARD_BUILD_GUI=OFF as on
# a cluster's login node with only Qt Core and Network: when run as root (CI),
# Qt's GUI modules (Gui, Widgets, PrintSupport, OpenGL) and QCustomPlot, their
# headers, CMake files and libraries, are hidden in a private mount namespace,
# so a stray #include <QWidget>, find_package(QCustomPlotQt6) or link to
# trainyard_ui fails the build instead of passing because this machine happens
# to have them. Then no built program may need one of those libraries (ldd),
# and `trainyard` without a command must say that it has no desktop app.
#   packaging/check-build-without-gui.sh [BUILD_DIR] [extra cmake args...]
# CI adds -DTRAINYARD_BUILD_WORKER=OFF -DTRAINYARD_WORKER_PROGRAM=<the main
# build's worker>, so LibTorch is not compiled twice and the tests that train
# still run.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build-nogui}
shift || true
started=$SECONDS
gui_libs='libQt6(Gui|Widgets|PrintSupport|OpenGL|OpenGLWidgets)\.so|libQCustomPlot'

arch=x86_64-linux-gnu
lib=/usr/lib/$arch
hide=()
for p in "$lib"/cmake/Qt6{Gui,GuiTools,Widgets,WidgetsTools,PrintSupport,OpenGL,OpenGLWidgets} \
         "$lib"/cmake/QCustomPlot{,Qt6} /usr/include/qcustomplot.h \
         /usr/include/$arch/qt6/Qt{Gui,Widgets,PrintSupport,OpenGL,OpenGLWidgets} \
         "$lib"/libQt6{Gui,Widgets,PrintSupport,OpenGL,OpenGLWidgets}.so.6.* "$lib"/libQCustomPlot*.so.*.*.*; do
  [[ -e $p && ! -L $p ]] && hide+=("$p")
done

if [[ -z ${TRAINYARD_GUI_HIDDEN:-} ]]; then
  if [[ $(id -u) -eq 0 ]] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
    echo "check-build-without-gui: Qt GUI and QCustomPlot hidden (${#hide[@]} paths) in a private mount namespace"
    TRAINYARD_GUI_HIDDEN=1 exec unshare -m bash "$0" "$build" "$@"
  fi
  echo "check-build-without-gui: not root, Qt GUI stays visible; checking the build option and the binaries only"
else
  # Here, in the namespace: an empty folder or file over each path.
  empty_dir=$(mktemp -d)
  empty_file=$(mktemp)
  trap 'rm -rf "$empty_dir" "$empty_file"' EXIT
  for p in "${hide[@]}"; do
    if [[ -d $p ]]; then mount --bind "$empty_dir" "$p"; else mount --bind "$empty_file" "$p"; fi
  done
fi

cmake -S "$top" -B "$build" -G Ninja -DTRAINYARD_BUILD_GUI=OFF "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"

# No program built here loads a GUI library, directly (NEEDED) or through
# another library (ldd; with the libraries hidden, ldd fails on one that does).
programs=0
bad=0
for f in "$build"/bin/*; do
  if [[ ! -f $f ]] || ! readelf -h "$f" >/dev/null 2>&1; then continue; fi
  programs=$((programs + 1))
  if ! deps=$(ldd "$f" 2>&1); then
    echo "check-build-without-gui: ldd $f failed: $deps" >&2
    bad=1
  elif grep -iE "$gui_libs" <<<"$deps$(readelf -d "$f")" >&2; then
    echo "check-build-without-gui: $f needs the GUI libraries above" >&2
    bad=1
  fi
done
[[ $bad -eq 0 ]] || exit 1
echo "check-build-without-gui: none of the $programs programs in $build/bin needs Qt Gui, Widgets, PrintSupport or QCustomPlot"

# `trainyard --help` lists the headless commands; the desktop app is refused.
grep -q 'trainyard run FILE.json' <<<"$("$build/bin/trainyard" --help)"
status=0
message=$("$build/bin/trainyard" 2>&1) || status=$?
if [[ $status -ne 2 || $message != *"no desktop app"* ]]; then
  echo "check-build-without-gui: trainyard without a command exited $status: $message" >&2
  exit 1
fi
echo "check-build-without-gui: trainyard without a command says: $message"

cd "$build" && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$(nproc)" -LE style
echo "check-build-without-gui: passed in $((SECONDS - started)) s"
