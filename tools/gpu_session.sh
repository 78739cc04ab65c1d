#!/usr/bin/env bash
# Everything one GPU lease is for, as one command that returns inside the device's 10-minute limit,
# from the repository root of the GPU machine with .gpupack/ carried (tools/bench/pack_for_gpu.sh):
#
#   bash tools/gpu_session.sh OUT_DIR [--budget 570] [--no-train] [--no-timings]
#                                     [--train-minutes-max 6] [--dims llada-8b]
#                                     [--variant 'gpu_train.sh options']... [-- gpu_train.sh options]
#
# 1. untimed, side by side: the GPU tests (gpu_bench.sh steps unpack,tests) while the 8B-shaped
#    random checkpoint is written (step checkpoint);
# 2. timed, with the GPU to themselves: the attention tiling (the dense step at the largest N under
#    each tiling whose tests passed; the faster one is used from then on), forward-cuda and the
#    PyTorch reference on the same weights, the end-to-end decodes, Nsight Compute on one dense
#    step, the summary;
# 3. the rest of the budget: tools/train/gpu_train.sh on the embedded models, its minutes fitted to
#    what is left, beside the CPU-vs-CUDA decode parity (step parity; neither is timed). Each
#    --variant (two at most) is one more gpu_train.sh run side by side on the same GPU, with its
#    own options after the shared ones of `--` (a 2 M-parameter model leaves the GPU mostly idle;
#    the data workers share the cores);
# 4. OUT_DIR gets at most 8 files: session.log, summary.md, parity.md, attention-tiling.md, eval.txt (every variant's),
#    bench.tar.xz (every file gpu_bench.sh wrote, the training logs) and, per variant,
#    v<N>-result.tar.xz.part-aa (gpu_train.sh's models, curves and plots;
#    tools/train/unpack_gpu_result.sh puts them in place).
#
# Each step has its own time limit inside the budget (seconds of wall time from the start), so a
# hang or a crash costs that step only and the files still come back.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT=""
BUDGET=570
TRAIN=1
TIMINGS=1
TRAIN_ARGS=()
VARIANTS=()
DIMS=llada-8b
TRAIN_MAX=6
die() { echo "gpu_session.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    --budget) [[ "${2:-}" =~ ^[0-9]+$ ]] || die "--budget needs whole seconds"; BUDGET="$2"; shift 2 ;;
    --no-train) TRAIN=0; shift ;;
    --no-timings) TIMINGS=0; shift ;;  # tests and parity only, then training gets the time
    --train-minutes-max) [[ "${2:-}" =~ ^[0-9.]+$ ]] || die "--train-minutes-max needs minutes"; TRAIN_MAX="$2"; shift 2 ;;
    --dims) [ -n "${2:-}" ] || die "--dims needs a preset"; DIMS="$2"; shift 2 ;;  # tiny: a quick try anywhere
    --variant) [ $# -ge 2 ] || die "--variant needs gpu_train.sh options in one argument ('' for none)"; VARIANTS+=("$2"); shift 2 ;;
    --) shift; TRAIN_ARGS=("$@"); break ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$OUT" ] || die "more than one OUT_DIR"; OUT="$1"; shift ;;
  esac
done
[ -n "$OUT" ] || die "give OUT_DIR (see --help)"
[ "${#VARIANTS[@]}" -le 2 ] || die "two --variant at most (eight files come back)"
[ "${#VARIANTS[@]}" -gt 0 ] || VARIANTS=("")
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
WORK="$(mktemp -d /tmp/dlmscope-session.XXXXXX)"
BENCH="$WORK/bench"
TRAINED="$WORK/train"
mkdir -p "$BENCH" "$TRAINED"
exec > >(tee "$OUT/session.log") 2>&1

START=$(date +%s)
elapsed() { echo $(( $(date +%s) - START )); }
left() { echo $(( BUDGET - $(elapsed) )); }
# Runs a gpu_bench.sh step list under a limit: the smaller of CAP and what the budget leaves after
# RESERVE seconds kept for what comes later.
bench() {
  local steps="$1" cap="$2" reserve="$3" limit
  shift 3
  limit=$(( $(left) - reserve ))
  [ "$limit" -gt "$cap" ] && limit=$cap
  if [ "$limit" -lt 20 ]; then
    echo "== [$(elapsed) s] skipped $steps: the budget is spent"; return 1
  fi
  echo "== [$(elapsed) s] gpu_bench.sh --steps $steps (limit $limit s)"
  timeout -k 10 "$limit" bash "$ROOT/tools/bench/gpu_bench.sh" "$BENCH" --steps "$steps" \
    --dims "$DIMS" --checkpoint "/tmp/dlmscope-$DIMS-random" "$@" ||
    { local rc=$?; echo "!! [$(elapsed) s] steps $steps ended with status $rc"; }
}

echo "== [0 s] dlmscope GPU session, budget $BUDGET s, $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo 'no git')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
nproc

# 1. untimed: the tests beside the checkpoint's writing.
bench unpack 60 400
bench tests 150 380 &
tests=$!
[ "$TIMINGS" = 1 ] && bench checkpoint 200 360
wait $tests

# 2. timed, alone. Each keeps time back for the ones after it (the CUDA backend's figures before
# the profile, the profile before training).
if [ "$TIMINGS" = 1 ]; then
  bench tiling 120 270
  bench forward 120 150
  bench torch 120 110
  bench decode 150 60
  bench summary 30 40
  bench profile 200 100 --profile-timeout 90
fi

# 3. training and parity side by side, on what is left.
bench parity 200 30 &
parity_pid=$!
if [ "$TRAIN" = 1 ]; then
  # gpu_train.sh needs up to about 140 s besides its training: start-up, export, the final eval
  # (100 s at most), packing.
  minutes=$(awk -v s="$(( $(left) - 160 ))" -v max="$TRAIN_MAX" 'BEGIN { m = s / 60; if (m > max) m = max; printf "%.1f", m }')
  # Under 0.7 min the start-up would outweigh the training, unless that little was asked for.
  if awk -v m="$minutes" -v max="$TRAIN_MAX" 'BEGIN { exit !(m >= 0.7 || m >= max) }'; then
    workers=$(( ($(nproc) - 2) / ${#VARIANTS[@]} ))
    [ "$workers" -ge 2 ] || workers=2
    pids=()
    for i in "${!VARIANTS[@]}"; do
      v=$((i + 1))
      read -r -a extra <<<"${VARIANTS[$i]}"
      echo "== [$(elapsed) s] gpu_train.sh variant $v: $minutes min, $workers data workers, options: ${TRAIN_ARGS[*]} ${extra[*]}"
      timeout -k 10 $(( $(left) - 15 )) bash "$ROOT/tools/train/gpu_train.sh" "$TRAINED/v$v" \
        --mdlm-minutes "$minutes" --ar-minutes "$minutes" --data-workers "$workers" "${TRAIN_ARGS[@]}" "${extra[@]}" \
        >"$TRAINED/v$v.out" 2>&1 &
      pids+=($!)
    done
    for i in "${!pids[@]}"; do
      wait "${pids[$i]}" || { rc=$?; echo "!! [$(elapsed) s] gpu_train.sh variant $((i + 1)) ended with status $rc"; tail -5 "$TRAINED/v$((i + 1)).out"; }
    done
  else
    echo "== [$(elapsed) s] no training: only $minutes min would be left"
  fi
fi
wait $parity_pid

# 4. at most 8 files back.
echo "== [$(elapsed) s] packing"
for f in summary.md parity.md attention-tiling.md; do [ -f "$BENCH/$f" ] && cp "$BENCH/$f" "$OUT/"; done
for d in "$TRAINED"/v*/; do
  [ -d "$d" ] || continue
  v="$(basename "$d")"
  # Killed before its own packing: the last exports (every 1.5 min) from its work folder instead.
  if ! ls "$d"result.tar.xz.part-* >/dev/null 2>&1 && [ -s "$d/work-dir.txt" ]; then
    tw="$(cat "$d/work-dir.txt")"
    echo "== $v: gpu_train.sh did not pack its result: taking the last exports from $tw"
    if [ -d "$tw/result" ]; then
      for k in mdlm ar; do [ -f "$tw/$k/curve.csv" ] && cp "$tw/$k/curve.csv" "$tw/result/curve-$k.csv"; done
      bash "$ROOT/tools/train/pack_result.sh" "$tw/result" "$d/result.tar.xz.part-"
    fi
  fi
  [ -f "$d/eval.txt" ] && { echo "### $v"; cat "$d/eval.txt"; } >>"$OUT/eval.txt"
  n=0
  for p in "$d"result.tar.xz.part-*; do
    [ -f "$p" ] || continue
    n=$((n + 1))
    [ "$n" -le 1 ] && cp "$p" "$OUT/$v-$(basename "$p")" || echo "!! $v: $(basename "$p") left behind: more than 8 files"
  done
done
# The training logs ride in the bench archive; the result parts travel as they are.
${PYTHON:-python3} - "$WORK" "$OUT/bench.tar.xz" <<'PYEOF'
import os, sys, tarfile
work, dest = sys.argv[1], sys.argv[2]
with tarfile.open(dest, "w:xz") as t:
    for root, _, files in os.walk(work):
        for name in sorted(files):
            if not name.startswith("result.tar.xz.part-"):
                path = os.path.join(root, name)
                t.add(path, arcname=os.path.relpath(path, work))
PYEOF
echo "== [$(elapsed) s] done"
ls -la "$OUT"
