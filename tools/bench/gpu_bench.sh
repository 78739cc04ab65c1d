#!/usr/bin/env bash
# The GPU checks and benchmarks in one command, on the GPU machine (H200), from the repository root,
# with .gpupack/ (made here by tools/bench/pack_for_gpu.sh) carried along:
#
#   bash tools/bench/gpu_bench.sh [OUT_DIR] [options]
#
# 1. unpacks the CUDA build of dlmscope-cli and its libraries to /tmp and checks that they load;
# 2. makes the random-weight LLaDA-8B checkpoint (dlmscope-cli make-checkpoint, ~16 GB bf16)
#    under /tmp, unless it is already there;
# 3. runs `dlmscope-cli bench --section forward-cuda` (dense and SureLock-shaped steps, % of the
#    roofline measured on the device)      -> OUT_DIR/cuda-bench.json, OUT_DIR/cuda-bench.md
# 4. runs the eager PyTorch + SDPA reference on the same checkpoint and grid
#                                          -> OUT_DIR/torch-bench.json
# 5. end-to-end decodes per preset (bench --section decode)   -> OUT_DIR/decode-bench.{json,md}
# 6. Nsight Compute on one dense step       -> OUT_DIR/ncu-kernels.csv, ncu-gemms.csv, ncu-stalls.csv, ncu-digest.md
# 7. writes the comparison and the goals   -> OUT_DIR/summary.md (also printed)
# Before the timings: the GPU tests under each attention tiling (-> gpu-tests.json for narrow4,
# the default, gpu-tests-<tiling>.json for the others) and CPU-vs-CUDA decode parity on the embedded model
# (tools/bench/gpu_parity.py -> parity.md). Between the checkpoint and the timings, step tiling
# times the dense step at the largest N under each tiling whose tests passed and keeps the faster
# (-> attention-tiling.md; every later step runs with DLM_CUDA_ATTENTION_TILING set to it).
# Everything the run prints is kept in OUT_DIR/gpu-bench.log.
#
# Options:
#   --dry-run            print what would run, run nothing (works anywhere)
#   --checkpoint DIR     where the checkpoint lives / is made (default /tmp/dlmscope-llada-8b-random)
#   --dims PRESET        make-checkpoint preset (default llada-8b; medium/small/tiny for a quick try)
#   --lengths LIST       canvas lengths N = 64 + generation (default 320,576,1088)
#   --batch LIST         batch sizes (default 1,4)
#   --fractions LIST     shares of the generated rows of the SureLock-shaped steps (default 1,0.75,0.5,0.25)
#   --reps N             timed steps per measurement, median reported (default 10)
#   --pack DIR           the pack folder (default .gpupack)
#   --decode-gen LIST    generation lengths of the end-to-end decodes (default 256)
#   --decode-presets L   presets of the end-to-end decodes, by name or strategy key (default "LLaDA
#                        low-confidence,Fast-dLLM dual cache,SureLock,SureLock + FreeCache")
#   --no-profile         skip the Nsight Compute profile of one dense step
#   --steps LIST         run only these steps, in the order above: unpack, tests, parity, checkpoint,
#                        tiling, forward, torch, decode, profile, summary (default: all). tools/gpu_session.sh
#                        runs the untimed steps beside training and the timed ones alone.
#   --profile-timeout S  seconds per Nsight Compute pass (default 200)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT=""
DRY=0
CKPT=/tmp/dlmscope-llada-8b-random
DIMS=llada-8b
LENGTHS=320,576,1088
BATCH=1,4
FRACTIONS=1,0.75,0.5,0.25
REPS=10
PROMPT=64
PACK="$ROOT/.gpupack"
UNPACKED=/tmp/dlmscope-gpupack
DECODE_GEN=256
DECODE_PRESETS="LLaDA low-confidence,Fast-dLLM dual cache,SureLock,SureLock + FreeCache"
PROFILE=1
PROFILE_TIMEOUT=200
ALL_STEPS=unpack,tests,parity,checkpoint,tiling,forward,torch,decode,profile,summary
TILINGS="wide narrow narrow4"  # kernels/attention.cu, kTilingNames
STEPS=$ALL_STEPS

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
die() { echo "gpu_bench.sh: $*" >&2; exit 2; }
need_value() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value (see --help)"; }

while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --dry-run) DRY=1; shift ;;
    --checkpoint) need_value "$@"; CKPT="$2"; shift 2 ;;
    --dims) need_value "$@"; DIMS="$2"; shift 2 ;;
    --lengths) need_value "$@"; LENGTHS="$2"; shift 2 ;;
    --batch) need_value "$@"; BATCH="$2"; shift 2 ;;
    --fractions) need_value "$@"; FRACTIONS="$2"; shift 2 ;;
    --reps) need_value "$@"; REPS="$2"; shift 2 ;;
    --pack) need_value "$@"; PACK="$2"; shift 2 ;;
    --decode-gen) need_value "$@"; DECODE_GEN="$2"; shift 2 ;;
    --decode-presets) need_value "$@"; DECODE_PRESETS="$2"; shift 2 ;;
    --no-profile) PROFILE=0; shift ;;
    --steps) need_value "$@"; STEPS="$2"; shift 2 ;;
    --profile-timeout) need_value "$@"; PROFILE_TIMEOUT="$2"; shift 2 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$OUT" ] || die "more than one OUT_DIR ('$OUT' and '$1')"; OUT="$1"; shift ;;
  esac
done
OUT="${OUT:-$ROOT/out/gpu-bench}"
[[ "$REPS" =~ ^[0-9]+$ ]] && [ "$REPS" -ge 1 ] || die "--reps must be a positive integer, got '$REPS'"
for list in "$LENGTHS" "$BATCH"; do
  [[ "$list" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "'$list' is not a comma-separated list of integers"
done
[[ "$FRACTIONS" =~ ^[0-9.]+(,[0-9.]+)*$ ]] || die "'$FRACTIONS' is not a comma-separated list of fractions"
case "$DIMS" in llada-8b|medium|small|tiny) ;; *) die "--dims must be llada-8b, medium, small or tiny" ;; esac
[[ "$PROFILE_TIMEOUT" =~ ^[0-9]+$ ]] || die "--profile-timeout must be a whole number of seconds"
for step in ${STEPS//,/ }; do
  [[ ",$ALL_STEPS," == *",$step,"* ]] || die "unknown step '$step' (steps: $ALL_STEPS)"
done
want() { [[ ",$STEPS," == *",$1,"* ]]; }

CLI="$UNPACKED/bin/dlmscope-cli"
PY="${PYTHON:-python3}"
# Prints a command; runs it unless --dry-run. Output goes to the terminal and the log.
run() {
  printf '+'; printf ' %q' "$@"; printf '\n'
  [ "$DRY" = 1 ] || "$@"
}

if [ "$DRY" = 0 ]; then
  mkdir -p "$OUT"
  # Appended to: a session runs the steps in several calls into the same folder.
  exec > >(tee -a "$OUT/gpu-bench.log") 2>&1
fi
echo "== dlmscope GPU benchmark -> $OUT$([ "$DRY" = 1 ] && echo ' (dry run: nothing is executed)'), steps $STEPS"

# --- 1. the packed build --------------------------------------------------------------------
if want unpack; then
  if [ ! -f "$PACK/dlmscope-gpupack.tar.xz" ]; then
    msg="no $PACK/dlmscope-gpupack.tar.xz: run tools/bench/pack_for_gpu.sh on the build machine and carry .gpupack"
    [ "$DRY" = 1 ] && echo "warning: $msg" || { echo "gpu_bench.sh: $msg" >&2; exit 1; }
  fi
  run rm -rf "$UNPACKED"
  run mkdir -p "$UNPACKED"
  if [ "$DRY" = 1 ]; then
    echo "+ tar -C $UNPACKED -xJf $PACK/dlmscope-gpupack.tar.xz"
  else
    # tar's xz filter where xz exists, Python's lzma otherwise.
    tar -C "$UNPACKED" -xJf "$PACK/dlmscope-gpupack.tar.xz" 2>/dev/null ||
      "$PY" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
        "$PACK/dlmscope-gpupack.tar.xz" "$UNPACKED"
    head -6 "$UNPACKED/MANIFEST.txt"
  fi
elif [ "$DRY" = 0 ] && [ ! -x "$CLI" ]; then
  echo "gpu_bench.sh: $CLI is missing: run the unpack step first" >&2; exit 1
fi

# cuBLAS comes from the machine: the CUDA toolkit's folder, the loader's cache, or the
# nvidia-cublas wheel next to PyTorch.
find_cublas() {
  local d
  for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
    ls "$d"/libcublas.so.13* >/dev/null 2>&1 && { echo "$d"; return; }
  done
  d=$(ldconfig -p 2>/dev/null | awk '/libcublas\.so\.13/{print $NF; exit}')
  [ -n "$d" ] && { dirname "$d"; return; }
  "$PY" - <<'PYEOF' 2>/dev/null || true
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()]
for r in roots:
    for f in sorted(glob.glob(os.path.join(r, "nvidia", "**", "libcublas.so.13*"), recursive=True)):
        print(os.path.dirname(f)); sys.exit(0)
sys.exit(1)
PYEOF
}
LIBS="$UNPACKED/lib"
if [ "$DRY" = 0 ]; then
  CUBLAS_DIR="$(find_cublas)"
  [ -n "$CUBLAS_DIR" ] || { echo "gpu_bench.sh: libcublas.so.13 not found on this machine" >&2; exit 1; }
  LIBS="$LIBS:$CUBLAS_DIR"
  # The build machine's libstdc++ only if this machine's own is too old for the binary.
  if LD_LIBRARY_PATH="$LIBS" ldd "$CLI" | grep -q 'not found'; then
    LIBS="$LIBS:$UNPACKED/lib-fallback"
  fi
  if LD_LIBRARY_PATH="$LIBS" ldd "$CLI" | grep 'not found'; then
    echo "gpu_bench.sh: dlmscope-cli cannot load the libraries above" >&2; exit 1
  fi
fi
echo "== LD_LIBRARY_PATH for dlmscope-cli: $LIBS"
cli() { run env LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$CLI" "$@"; }
# The attention tiling chosen by step tiling (an earlier call into the same OUT_DIR), else the
# default; every dlmscope-cli run below inherits it.
use_chosen_tiling() {
  if [ -s "$OUT/attention-tiling.txt" ]; then
    export DLM_CUDA_ATTENTION_TILING="$(head -1 "$OUT/attention-tiling.txt")"
    echo "== attention tiling: $DLM_CUDA_ATTENTION_TILING (chosen by step tiling)"
  fi
}
[ "$DRY" = 1 ] || use_chosen_tiling
run nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv || true
cli --version

# --- 1b. the GPU tests (kernels and backend against the CPU reference), before any timing ----
# Once per attention tiling; the tilings whose tests pass are the ones step tiling may choose.
status=0
if want tests && { [ -x "$UNPACKED/bin/gpu_tests" ] || [ "$DRY" = 1 ]; }; then
  [ "$DRY" = 1 ] || : >"$OUT/tilings-passed.txt"
  for tiling in $TILINGS; do
    report="$OUT/gpu-tests.json"
    [ "$tiling" = narrow4 ] || report="$OUT/gpu-tests-$tiling.json"
    # DLM_SOURCE_DIR: the tests read resources/ (the embedded model) from this checkout.
    if run env LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" DLM_SOURCE_DIR="$ROOT" \
      DLM_CUDA_ATTENTION_TILING="$tiling" "$UNPACKED/bin/gpu_tests" --gtest_output="json:$report"; then
      [ "$DRY" = 1 ] || echo "$tiling" >>"$OUT/tilings-passed.txt"
    else
      status=1; echo "!! GPU tests failed with the $tiling attention tiling"
    fi
  done
fi

# --- 1c. CPU-vs-CUDA decode parity on the embedded model (identical ids at T = 0) --------------
if want parity; then
  run env LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$PY" "$ROOT/tools/bench/gpu_parity.py" \
    --cli "$CLI" --out "$OUT/parity.md" || { status=1; echo "!! CPU/CUDA decode parity failed"; }
fi

# --- 2. the checkpoint ------------------------------------------------------------------------
if ! want checkpoint; then
  :
elif [ -f "$CKPT/config.json" ]; then
  echo "== reusing the checkpoint in $CKPT"
else
  echo "== making the $DIMS random checkpoint in $CKPT"
  cli make-checkpoint --dims "$DIMS" --out "$CKPT" --force
fi

# --- 2b. the attention tiling: the dense step at the largest N, batch 1 and 4, per tiling -------
if want tiling; then
  largest="${LENGTHS##*,}"
  passed="$TILINGS"
  [ -f "$OUT/tilings-passed.txt" ] && passed="$(tr '\n' ' ' <"$OUT/tilings-passed.txt")"
  for tiling in $passed; do
    DLM_CUDA_ATTENTION_TILING="$tiling" cli bench --section forward-cuda --model "$CKPT" --lengths "$largest" \
      --prompt-len "$PROMPT" --batch "$BATCH" --fractions 1 --reps 5 --json "$OUT/tiling-$tiling.json" --out "$OUT/tiling-$tiling.md" || echo "!! the $tiling tiling's step bench failed"
  done
  if [ "$DRY" = 0 ]; then
    "$PY" - "$OUT" $passed <<'PYEOF' || echo "!! no attention tiling chosen: the default stays"
import json, os, sys
out, tilings = sys.argv[1], sys.argv[2:]
times = {}
for t in tilings:
    try:
        with open(os.path.join(out, f"tiling-{t}.json")) as f:
            points = json.load(f)["points"]
        times[t] = {(p["n"], p["batch"]): p["dense"]["ms"] for p in points}
    except (OSError, KeyError, ValueError):
        pass
if not times:
    sys.exit(1)
keys = sorted(set.intersection(*(set(v) for v in times.values())))
best = min(times, key=lambda t: sum(times[t][k] for k in keys))
lines = ["# Attention tiling: the dense step per tiling (median of 5 steps, same run)", "",
         "| N | batch | " + " | ".join(f"{t} ms" for t in times) + " |", "|---|---|" + "---:|" * len(times)]
for k in keys:
    lines.append(f"| {k[0]} | {k[1]} | " + " | ".join(f"{times[t][k]:.2f}" for t in times) + " |")
lines += ["", f"Chosen: **{best}** (the smallest sum over these points); the later steps run with it."]
with open(os.path.join(out, "attention-tiling.md"), "w") as f:
    f.write("\n".join(lines) + "\n")
with open(os.path.join(out, "attention-tiling.txt"), "w") as f:
    f.write(best + "\n")
print("\n".join(lines))
PYEOF
    use_chosen_tiling
  fi
fi

# --- 3, 4. the two benchmarks (a failure of one still lets the other run) ---------------------
if want forward; then
  cli bench --section forward-cuda --model "$CKPT" --lengths "$LENGTHS" --prompt-len "$PROMPT" \
    --batch "$BATCH" --fractions "$FRACTIONS" --reps "$REPS" \
    --json "$OUT/cuda-bench.json" --out "$OUT/cuda-bench.md" || { status=1; echo "!! the dlmscope CUDA bench failed"; }
fi
if want torch; then
  run env PYTHONUNBUFFERED=1 "$PY" "$ROOT/tools/bench/torch_llada_reference.py" --model "$CKPT" --device cuda \
    --dtype bf16 --lengths "$LENGTHS" --prompt-len "$PROMPT" --batch "$BATCH" --reps "$REPS" \
    --json "$OUT/torch-bench.json" || { status=1; echo "!! the PyTorch reference failed"; }
fi

# --- 4b. end-to-end decodes on the same checkpoint, one per preset --------------------------------
if want decode; then
  cli bench --section decode --model "$CKPT" --backend cuda --gen-lens "$DECODE_GEN" --prompt-len "$PROMPT" \
    --strategies "$DECODE_PRESETS" --json "$OUT/decode-bench.json" --out "$OUT/decode-bench.md" ||
    { status=1; echo "!! the end-to-end decode bench failed"; }
fi

# --- 4c. Nsight Compute on one dense step at the largest N (speed of light, occupancy) -----------
# Two passes over the same step bench (batch 1, one rep): the engine's own kernels of the first
# layers, then cuBLAS's GEMMs after the 13 of the roofline measurement and the first 4 layers.
if want profile && [ "$PROFILE" = 1 ] && command -v ncu >/dev/null; then
  largest="${LENGTHS##*,}"
  ncu_step() {
    run timeout "$PROFILE_TIMEOUT" env LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ncu --section SpeedOfLight \
      --section LaunchStats --section Occupancy --csv --page details "$@" \
      "$CLI" bench --section forward-cuda --model "$CKPT" --lengths "$largest" --prompt-len "$PROMPT" --batch 1 \
      --fractions 1 --reps 1 --out -
  }
  # The own kernels of the first two layers (14 launches: each extra section costs replay passes)
  # also get the stall reasons and pipe use: why a latency-bound kernel waits.
  ncu_step -k 'regex:attention|rms|swiglu|rope|kv_cache|embedding|gather|row_stats|bias|cover' --launch-count 14 \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis \
    >"$OUT/ncu-kernels.csv" 2>"$OUT/ncu.err" || echo "!! ncu (own kernels) did not finish (see ncu.err)"
  ncu_step -k 'regex:gemm|nvjet|xmma|cutlass' --launch-skip 29 --launch-count 8 \
    >"$OUT/ncu-gemms.csv" 2>>"$OUT/ncu.err" || echo "!! ncu (GEMMs) did not finish (see ncu.err)"
  # The attention kernel's stall reasons one by one (the sections give only the largest, as a
  # rule's text); its own pass, so that a metric this ncu lacks costs this table alone.
  ncu_step -k 'regex:flash_attention' --launch-count 1 \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
    >"$OUT/ncu-stalls.csv" 2>>"$OUT/ncu.err" || echo "!! ncu (attention stalls) did not finish (see ncu.err)"
  run "$PY" "$ROOT/tools/bench/ncu_digest.py" --kernels "$OUT/ncu-kernels.csv" --gemms "$OUT/ncu-gemms.csv" \
    --stalls "$OUT/ncu-stalls.csv" --out "$OUT/ncu-digest.md" >/dev/null || echo "!! the Nsight Compute digest failed"
fi

# --- 5. the summary -----------------------------------------------------------------------------
if want summary; then
  run "$PY" "$ROOT/tools/bench/summarize_gpu_bench.py" --cuda "$OUT/cuda-bench.json" \
    --torch "$OUT/torch-bench.json" --out "$OUT/summary.md" || status=1
fi
echo "== done (status $status, steps $STEPS): $OUT"
exit $status
