#!/usr/bin/env bash
# Trains both embedded models on one GPU in one command of under 10 minutes, from the repository
# root of a machine that has PyTorch with CUDA (and sentencepiece), and hands the result back as at
# most 8 files of at most 16 MB each:
#
#   bash tools/train/gpu_train.sh OUT_DIR [--mdlm-minutes 5.5] [--ar-minutes 4.5] [--fresh]
#                                         [--device cuda] [--batch 256] [--eval-per-family 150]
#                                         [--mdlm-size compact|medium|base] [--mdlm-lr 1e-3] [--ar-lr 1e-3] [--mdlm-t-power P]
#                                         [--mdlm-from-ar | --mdlm-dream] [--mixture FAMILY=W,...]
#                                         [--curve-every 4000] [--curve-per-family 20] [--data-workers N]
#                                         [--sorting-form FORM] [--counting-form FORM]  (train.py's forms)
#                                         [--mdlm-digit-suffix 0.3]
#                                         [--mdlm-suffix-mask S] [--mdlm-decode-order-mask D]
#                                         [--mdlm-stale-kv K [--mdlm-stale-kv-states N]]  (the MDLM's masking)
#                                         [--mdlm-init DIR] [--mdlm-first 'train.py options' [--mdlm-first-share 0.2]]
#
# It needs only tools/train/, resources/eval/ and the shipped tokenizer (build-train/ stays behind).
# 1. continues the shipped weights (resources/models/tiny-{mdlm,ar}) with a fresh optimizer, each
#    in the forms its weights were trained in (their training.json: tools/train/milestone.py forms;
#    --sorting-form / --counting-form change both models' from here on), the MDLM in the masking
#    its weights were trained with too (the same training.json: t-power, suffix, digit-suffix and
#    decode-order masking, earlier K/V and their states; each --mdlm-X given changes that one; a
#    run from other weights, --fresh, --mdlm-from-ar or another --mdlm-size, takes 0.5, 0.7, 0, 0,
#    0 and 1), both
#    models at once on the same GPU (bf16 autocast, batch 256, data made by worker processes),
#    each on a wall-time budget (curve points and checkpoints count) with a cosine schedule fitted
#    to it; --ar-minutes 0 keeps the shipped guider and trains the MDLM alone, --mdlm-minutes 0 keeps
#    the shipped MDLM and trains the guider alone; --fresh starts from random
#    weights instead; --mdlm-init DIR continues tiny-mdlm from another export (an earlier call's
#    models/tiny-mdlm, named by its work-dir.txt: the second phase of a two-phase run);
#    --mdlm-first 'OPTIONS' runs the two phases in this one command: the MDLM first trains with
#    train.py's OPTIONS added to its own (space-separated, e.g. '--family-weights counting=1
#    --lr 1e-3') for --mdlm-first-share of --mdlm-minutes, then continues from that export with
#    its own options for the rest (a curriculum; the guider trains beside both phases);
#    --mdlm-from-ar starts the MDLM from the shipped guider's weights instead
#    (tools/train/adapt.py: size "adapted", the guider's shape); --mdlm-dream trains the Dream-family
#    MDLM tiny-dream instead of tiny-mdlm (the guider's network read bidirectionally, shifted
#    logits: it continues the shipped tiny-dream, or starts from the guider's weights where none is
#    shipped or with --fresh, its attention annealed from causal to bidirectional over 1,000 steps);
# 2. exports both (BF16 safetensors, config, tokenizer, golden logits) into a scratch copy of
#    resources/models/ (also every 1.5 min while training: OUT_DIR/work-dir.txt names the folder);
# 3. measures greedy accuracy per family on the test split and the held-out wordings (up to
#    --eval-per-family rows each) with the PyTorch reference sampler (tools/train/eval_py.py; the
#    C++ engine's eval is run where the models land), for the models trained here, and whether
#    each copies a question's words into its answer (tools/train/copy_probe.py), and, for tiny-mdlm,
#    whether it finds the number it has put in a sorted place (tools/train/sorting_lookup.py; in the
#    passes form, whether each pass compares neighbours right: tools/train/sorting_passes.py) and
#    whether it compares a spelled letter with the asked one (tools/train/letter_compare.py);
#    each row's decode goes into the result (predictions-<model>-<split>.jsonl), and eval.txt says
#    where arithmetic, word problems, letter counts and sortings go wrong (tools/train/arithmetic_parts.py,
#    word_problem_parts.py, letter_count_parts.py, sorting_parts.py);
# 4. writes to OUT_DIR: result.tar.xz split into parts of 15 MB (result.tar.xz.part-aa, -ab, ...)
#    holding models/tiny-{mdlm,ar} (and tiny-dream), the loss plots and curves.csv (accuracy per family vs examples
#    seen), and beside it train-mdlm.log, train-ar.log and eval.txt to read at once.
#
# Where the files come back:  tools/train/unpack_gpu_result.sh DIR  puts the models in place (plots
# and eval files into build-train/gpu-result/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT=""
MDLM_MIN=5.5
AR_MIN=4.5
FRESH=0
DEVICE=cuda
EVAL_N=150  # every test row (150 per family); the held-out split has 50
# Curve points are few and small: on the first H200 run one (50 rows per family, test and held-out
# wordings, PyTorch sampler, then one batch per prompt length) cost as much as 3,000 steps.
CURVE_EVERY=4000
CURVE_N=20
DATA_WORKERS=""
BATCH=256
MDLM_SIZE=""   # default: the shipped model's size (continued); another size starts from random weights
MDLM_LR=1e-3
AR_LR=1e-3
MDLM_T_POWER=""  # empty: the continued weights' (below)
MDLM_FROM_AR=0
MDLM_KIND=mdlm   # mdlm: tiny-mdlm (LLaDA family); dream: tiny-dream (Dream family)
MIXTURE=""
SORTING_FORM=""   # default: each model's own (below); columns / ranked / passes: the sort laid out, each number labelled with its place, written out as passes (docs/models.md §4)
COUNTING_FORM=""  # default: each model's own; spelled / echoed / marked / starred / paired: the asked letter written back, matches in capitals / starred / judged letter by letter (§4)
# The MDLM's masking (§5); each one not given is read from the weights' training.json below.
MDLM_DIGIT_SUFFIX=""  # train.py --digit-suffix: the end of a decode, only digits hidden after the cut
MDLM_SUFFIX_MASK=""   # train.py --suffix-mask: the share of sequences masked from a random cut on
MDLM_DECODE_ORDER=""  # train.py --decode-order-mask: the share masked in the model's own decode order
MDLM_STALE_KV=""      # train.py --stale-kv: the share of those reading an earlier state's K/V, as SureLock's cache
MDLM_STALE_STATES=""  # train.py --stale-kv-states: earlier states per such sequence
MDLM_INIT=""          # an export to continue tiny-mdlm from instead of the shipped weights
MDLM_FIRST=""         # train.py options of a first MDLM phase (a curriculum), added to the run's own
MDLM_FIRST_SHARE=0.2  # the first phase's share of --mdlm-minutes
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    --mdlm-minutes) MDLM_MIN="$2"; shift 2 ;;
    --ar-minutes) AR_MIN="$2"; shift 2 ;;
    --fresh) FRESH=1; shift ;;
    --device) DEVICE="$2"; shift 2 ;;            # cpu: a smoke test of this script without a GPU
    --eval-per-family) EVAL_N="$2"; shift 2 ;;   # rows per family of the final eval
    --curve-every) CURVE_EVERY="$2"; shift 2 ;;   # steps between learning-curve points
    --curve-per-family) CURVE_N="$2"; shift 2 ;;  # rows per family of each curve point
    --data-workers) DATA_WORKERS="$2"; shift 2 ;;  # the MDLM's batch makers, the guider's when it trains alone (default: from the cores)
    --batch) BATCH="$2"; shift 2 ;;
    --mdlm-size) MDLM_SIZE="$2"; shift 2 ;;   # another size than the shipped one starts from random weights
    --mdlm-lr) MDLM_LR="$2"; shift 2 ;;
    --ar-lr) AR_LR="$2"; shift 2 ;;
    --mdlm-t-power) MDLM_T_POWER="$2"; shift 2 ;;  # 1: LLaDA's uniform mask rate
    --mdlm-from-ar) MDLM_FROM_AR=1; shift ;;
    --mdlm-dream) MDLM_KIND=dream; shift ;;
    --mixture) MIXTURE="$2"; shift 2 ;;  # train.py --family-weights of both models
    --sorting-form) SORTING_FORM="$2"; shift 2 ;;  # train.py --sorting-form of both models, from here on
    --counting-form) COUNTING_FORM="$2"; shift 2 ;;  # train.py --counting-form of both models, from here on
    --mdlm-digit-suffix) MDLM_DIGIT_SUFFIX="$2"; shift 2 ;;  # train.py --digit-suffix of the MDLM
    --mdlm-suffix-mask) MDLM_SUFFIX_MASK="$2"; shift 2 ;;  # train.py --suffix-mask of the MDLM
    --mdlm-decode-order-mask) MDLM_DECODE_ORDER="$2"; shift 2 ;;
    --mdlm-stale-kv) MDLM_STALE_KV="$2"; shift 2 ;;  # needs --mdlm-decode-order-mask > 0
    --mdlm-stale-kv-states) MDLM_STALE_STATES="$2"; shift 2 ;;
    --mdlm-init) MDLM_INIT="$2"; shift 2 ;;  # continue tiny-mdlm from this export (a second phase)
    --mdlm-first) MDLM_FIRST="$2"; shift 2 ;;  # a first phase's train.py options, in one argument
    --mdlm-first-share) MDLM_FIRST_SHARE="$2"; shift 2 ;;
    -*) echo "gpu_train.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) OUT="$1"; shift ;;
  esac
done
[ -n "$OUT" ] || { echo "gpu_train.sh: give OUT_DIR (see --help)" >&2; exit 2; }
# Checked here, not by train.py minutes into a lease. A run of 0 minutes is not started at all:
# train.py itself reads --minutes 0 as no time limit, a run that would outlast the lease.
for budget in "--mdlm-minutes $MDLM_MIN" "--ar-minutes $AR_MIN"; do
  if awk -v m="${budget#* }" 'BEGIN { exit !(m == m + 0 && m < 0) }'; then
    echo "gpu_train.sh: ${budget% *} is a number of minutes, not '${budget#* }'; nothing was started" >&2
    exit 2
  fi
done
if awk -v m="$MDLM_MIN" -v a="$AR_MIN" 'BEGIN { exit !(m == m + 0 && a == a + 0 && m == 0 && a == 0) }'; then
  echo "gpu_train.sh: --mdlm-minutes 0 and --ar-minutes 0 leave nothing to train; nothing was started" >&2
  exit 2
fi
if [ -n "$MDLM_INIT" ]; then
  [ "$FRESH" = 0 ] && [ "$MDLM_FROM_AR" = 0 ] && [ "$MDLM_KIND" = mdlm ] ||
    { echo "gpu_train.sh: --mdlm-init continues tiny-mdlm; it goes with neither --fresh, --mdlm-from-ar nor --mdlm-dream; nothing was started" >&2; exit 2; }
  for f in config.json model.safetensors tokenizer.model; do
    [ -f "$MDLM_INIT/$f" ] ||
      { echo "gpu_train.sh: --mdlm-init: $MDLM_INIT has no $f (it takes an exported model folder); nothing was started" >&2; exit 2; }
  done
fi
if [ -n "$MDLM_FIRST" ]; then
  [ "$MDLM_KIND" = mdlm ] && awk -v m="$MDLM_MIN" 'BEGIN { exit !(m == m + 0 && m > 0) }' ||
    { echo "gpu_train.sh: --mdlm-first is a first phase of tiny-mdlm's training (not with --mdlm-dream or --mdlm-minutes 0); nothing was started" >&2; exit 2; }
  awk -v s="$MDLM_FIRST_SHARE" 'BEGIN { exit !(s == s + 0 && s > 0 && s < 1) }' ||
    { echo "gpu_train.sh: --mdlm-first-share is the first phase's share of --mdlm-minutes, above 0 and below 1, not '$MDLM_FIRST_SHARE'; nothing was started" >&2; exit 2; }
fi
PY="${PYTHON:-python3}"
command -v "$PY" >/dev/null || { echo "gpu_train.sh: no Python '$PY' (PYTHON names the one with PyTorch)" >&2; exit 1; }

# The embedded models' mixture (docs/models.md §4): the multiplication family trains the products
# of word problems, running_sum their running totals.
MIXTURE=${MIXTURE:-addition=0.08,addition4=0.08,subtraction=0.08,multiplication=0.1,running_sum=0.14,word_problem=0.3,sorting=0.12,counting=0.08,story=0.02}
TRAIN_AR=$(awk -v m="$AR_MIN" 'BEGIN { print (m > 0) ? 1 : 0 }')
TRAIN_MDLM=$(awk -v m="$MDLM_MIN" 'BEGIN { print (m > 0) ? 1 : 0 }')
# Each model goes on in the forms its weights were trained in (their training.json, read by
# milestone.py forms: the response forms, the wordings and the masks a form is learnt with); the
# script's own options are the scale's (batch, rates, mixture). Continued in another form, a model
# would unlearn the one it answers in. --sorting-form / --counting-form change both from here on.
MDLM_SRC="$ROOT/resources/models/tiny-mdlm"
# Whether the MDLM starts from random weights (or the guider's): --fresh, or a Dream MDLM with no
# shipped tiny-dream to continue. The guider's own start is --fresh alone.
MDLM_FRESH=$FRESH
[ "$MDLM_KIND" = dream ] && [ ! -f "$ROOT/resources/models/tiny-dream/model.safetensors" ] && MDLM_FRESH=1
[ "$MDLM_KIND" = dream ] && [ -f "$ROOT/resources/models/tiny-dream/training.json" ] && MDLM_SRC="$ROOT/resources/models/tiny-dream"
[ -n "$MDLM_INIT" ] && MDLM_SRC="$MDLM_INIT"
FORM_CHANGES=()
[ -n "$SORTING_FORM" ] && FORM_CHANGES+=(--sorting-form "$SORTING_FORM")
[ -n "$COUNTING_FORM" ] && FORM_CHANGES+=(--counting-form "$COUNTING_FORM")
if [ ${#FORM_CHANGES[@]} -gt 0 ] && [ "$TRAIN_AR" != "$TRAIN_MDLM" ]; then
  echo "gpu_train.sh: warning: ${FORM_CHANGES[*]} trains one model only; the other keeps its own form, and" \
       "Guided Diffusion's guider then judges drafts in another form than it writes" >&2
fi
forms_of() {  # FOLDER [--only KEY]: its forms as train.py options, after this call's changes
  "$PY" "$ROOT/tools/train/milestone.py" forms "$@" "${FORM_CHANGES[@]}" ||
    { echo "gpu_train.sh: cannot take the forms of $1 (from its training.json, with the forms named here); nothing was started" >&2; exit 2; }
}
# The masking goes on as the weights were trained with it, as their forms do: a continuation
# without the decode-order masking or the earlier K/V unlearns what they taught (SureLock's
# cached K/V read right). Weights from elsewhere start from the script's defaults.
CONTINUES_MDLM=0
if [ "$MDLM_FRESH" = 0 ] && [ "$MDLM_FROM_AR" = 0 ]; then
  SRC_SIZE=$("$PY" "$ROOT/tools/train/milestone.py" recipe "$MDLM_SRC" size) ||
    { echo "gpu_train.sh: cannot read the size of $MDLM_SRC (its training.json); nothing was started" >&2; exit 2; }
  if [ -z "$MDLM_SIZE" ] || [ "$MDLM_SIZE" = "$SRC_SIZE" ]; then CONTINUES_MDLM=1; fi
fi
masking() {  # VALUE KEY DEFAULT: VALUE where given, else the continued weights' KEY, else DEFAULT
  local v="$1"
  if [ -z "$v" ] && [ "$CONTINUES_MDLM" = 1 ]; then
    v=$("$PY" "$ROOT/tools/train/milestone.py" recipe "$MDLM_SRC" "$2") ||
      { echo "gpu_train.sh: cannot read $2 of $MDLM_SRC (its training.json); nothing was started" >&2; exit 2; }
  fi
  echo "${v:-$3}"
}
# Mask rate t = u^0.5 for other weights: more nearly fully masked responses, where the answer must
# come from the prompt. A CPU pilot (docs/models.md) grew the model's use of the prompt faster than uniform t.
MDLM_T_POWER=$(masking "$MDLM_T_POWER" t_power 0.5) || exit 2
MDLM_SUFFIX_MASK=$(masking "$MDLM_SUFFIX_MASK" suffix_mask 0.7) || exit 2
MDLM_DIGIT_SUFFIX=$(masking "$MDLM_DIGIT_SUFFIX" digit_suffix 0) || exit 2
MDLM_DECODE_ORDER=$(masking "$MDLM_DECODE_ORDER" decode_order_mask 0) || exit 2
MDLM_STALE_KV=$(masking "$MDLM_STALE_KV" stale_kv 0) || exit 2
MDLM_STALE_STATES=$(masking "$MDLM_STALE_STATES" stale_kv_states 1) || exit 2
MDLM_FORM_WORDS=$(forms_of "$MDLM_SRC") || exit 2
AR_FORM_WORDS=$(forms_of "$ROOT/resources/models/tiny-ar") || exit 2
read -r -a MDLM_FORMS <<<"$MDLM_FORM_WORDS"
read -r -a AR_FORMS <<<"$AR_FORM_WORDS"
MDLM_SORTING_FORM=$(forms_of "$MDLM_SRC" --only sorting_form) || exit 2
MDLM_COUNTING_FORM=$(forms_of "$MDLM_SRC" --only counting_form) || exit 2
AR_SORTING_FORM=$(forms_of "$ROOT/resources/models/tiny-ar" --only sorting_form) || exit 2
CORES=$(nproc)
# Each run's train.py options but its size, start and folders (those come once the work folder exists).
# The MDLM gets most of the data workers: its batches are longer (it sees the whole canvas).
# --data-workers names the MDLM's, or the guider's when it trains alone.
if [ "$TRAIN_MDLM" = 1 ]; then
  MDLM_WORKERS=${DATA_WORKERS:-$(( CORES <= 8 ? 2 : TRAIN_AR == 1 ? CORES * 2 / 3 : CORES - 4 ))}
  AR_WORKERS=$(( CORES > 8 ? CORES / 4 : 1 ))
else
  MDLM_WORKERS=1  # not started; its options are still checked
  AR_WORKERS=${DATA_WORKERS:-$(( CORES > 8 ? CORES - 4 : 1 ))}
fi
MDLM_OPTS=(--model "$MDLM_KIND" --device "$DEVICE" --batch "$BATCH" --lr "$MDLM_LR" --t-power "$MDLM_T_POWER"
  --warmup 100 --steps 1000000 --minutes "$MDLM_MIN" --seed 11
  --suffix-mask "$MDLM_SUFFIX_MASK" --digit-suffix "$MDLM_DIGIT_SUFFIX" --decode-order-mask "$MDLM_DECODE_ORDER"
  --stale-kv "$MDLM_STALE_KV" --stale-kv-states "$MDLM_STALE_STATES"
  --family-weights "$MIXTURE" "${MDLM_FORMS[@]}"
  --data-workers "$MDLM_WORKERS" --threads 2
  --val-every 250 --curve-every "$CURVE_EVERY" --curve-per-family "$CURVE_N" --ckpt-min 1.5)
AR_OPTS=(--model ar --size base --device "$DEVICE" --batch "$BATCH" --lr "$AR_LR" --warmup 100 --steps 1000000
  --minutes "$AR_MIN" --seed 12 --family-weights "$MIXTURE" "${AR_FORMS[@]}"
  --data-workers "$AR_WORKERS" --threads 1
  --val-every 250 --curve-every "$CURVE_EVERY" --curve-per-family "$CURVE_N" --ckpt-min 1.5)
# train.py's own rules, checked here (train_options.py needs no PyTorch) rather than by train.py
# minutes into a lease, once the other run has started beside it.
read -r -a MDLM_FIRST_OPTS <<<"$MDLM_FIRST"
MDLM_FIRST_OPTS=("${MDLM_OPTS[@]}" "${MDLM_FIRST_OPTS[@]}")
RUNS="MDLM AR"
[ -n "$MDLM_FIRST" ] && RUNS="MDLM_FIRST $RUNS"
for run in $RUNS; do
  opts="${run}_OPTS[@]"
  why=$("$PY" "$ROOT/tools/train/train_options.py" "${!opts}" 2>&1 >/dev/null) ||
    { { grep 'error:' <<<"$why" || echo "$why"; } >&2  # argparse's error line, without train.py's usage
      echo "gpu_train.sh: the $run run's train.py options are refused, nothing was started" \
        "(--mdlm-X gives the MDLM train.py's --X, --mixture is --family-weights)" >&2; exit 2; }
done
echo "gpu_train.sh: the MDLM's forms: ${MDLM_FORMS[*]}" >&2
echo "gpu_train.sh: the guider's forms: ${AR_FORMS[*]}" >&2
MASKING_FROM="the script's defaults"
[ "$CONTINUES_MDLM" = 1 ] && MASKING_FROM="$MDLM_SRC/training.json"
echo "gpu_train.sh: the MDLM's masking: --t-power $MDLM_T_POWER --suffix-mask $MDLM_SUFFIX_MASK" \
  "--digit-suffix $MDLM_DIGIT_SUFFIX --decode-order-mask $MDLM_DECODE_ORDER --stale-kv $MDLM_STALE_KV" \
  "--stale-kv-states $MDLM_STALE_STATES (where not given here: $MASKING_FROM)" >&2
mkdir -p "$OUT"
"$PY" -c "import torch, sentencepiece; assert '$DEVICE' == 'cpu' or torch.cuda.is_available(), 'no CUDA device'" ||
  { echo "gpu_train.sh: needs PyTorch with a CUDA device and sentencepiece" >&2; exit 1; }
[ "$DEVICE" = cpu ] || nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true

WORK="$(mktemp -d /tmp/dlmscope-train.XXXXXX)"
# Where the exports land while training runs: a caller whose time runs out can still take them.
echo "$WORK" >"$OUT/work-dir.txt"
MODELS="$WORK/result/models"
PLOTS="$WORK/result/img"
mkdir -p "$MODELS" "$PLOTS"
cp -r "$ROOT/resources/models/tiny-mdlm" "$ROOT/resources/models/tiny-ar" "$MODELS/"
if [ -n "$MDLM_INIT" ]; then rm -rf "$MODELS/tiny-mdlm"; cp -r "$MDLM_INIT" "$MODELS/tiny-mdlm"; fi
init() { [ "$2" = 1 ] || echo "--init-from-shipped $MODELS/$1"; }  # NAME FRESH
SHIPPED_MDLM_SIZE=$("$PY" -c "import json, sys; sys.path.insert(0, '$ROOT/tools/train'); import common as C; print(C.mdlm_size_of(json.load(open('$MODELS/tiny-mdlm/config.json'))))")
MDLM_NAME=tiny-mdlm
if [ "$MDLM_KIND" = dream ]; then
  [ -z "$MDLM_SIZE" ] && [ "$MDLM_FROM_AR" = 0 ] ||
    { echo "gpu_train.sh: --mdlm-dream has the guider's shape (no --mdlm-size, no --mdlm-from-ar)" >&2; exit 2; }
  MDLM_NAME=tiny-dream
  MDLM_SIZE=base
  cp -r "$MODELS/tiny-ar" "$WORK/guider-start"
  [ "$MDLM_FRESH" = 1 ] || cp -r "$ROOT/resources/models/tiny-dream" "$MODELS/"
elif [ "$MDLM_FROM_AR" = 1 ]; then
  [ -z "$MDLM_SIZE" ] || [ "$MDLM_SIZE" = adapted ] || { echo "gpu_train.sh: --mdlm-from-ar trains size 'adapted'" >&2; exit 2; }
  MDLM_SIZE=adapted
  # The guider as shipped, copied aside: the AR run below exports over $MODELS/tiny-ar.
  cp -r "$MODELS/tiny-ar" "$WORK/guider-start"
fi
[ -n "$MDLM_SIZE" ] || MDLM_SIZE="$SHIPPED_MDLM_SIZE"
init_mdlm() {
  if [ "$MDLM_KIND" = dream ]; then
    # From the guider, the attention anneals from causal to bidirectional (docs/models.md §5).
    if [ "$MDLM_FRESH" = 1 ]; then echo "--init-from-ar $WORK/guider-start --attention-anneal 1000"; else init tiny-dream 0; fi
  elif [ "$MDLM_FROM_AR" = 1 ]; then echo "--init-from-ar $WORK/guider-start"
  elif [ "$MDLM_SIZE" = "$SHIPPED_MDLM_SIZE" ]; then init tiny-mdlm "$MDLM_FRESH"; fi
}

train_mdlm() {
  local minutes="$MDLM_MIN" start
  start=$(init_mdlm)
  : >"$OUT/train-mdlm.log"
  if [ -n "$MDLM_FIRST" ]; then
    # The first phase, then the run's own options from its export, whatever the first started from.
    local first
    first=$(awk -v m="$MDLM_MIN" -v s="$MDLM_FIRST_SHARE" 'BEGIN { printf "%.2f", m * s }')
    minutes=$(awk -v m="$MDLM_MIN" -v f="$first" 'BEGIN { printf "%.2f", m - f }')
    echo "first phase: $first min with ${MDLM_FIRST} (train-mdlm-first.log); then $minutes min" >>"$OUT/train-mdlm.log"
    # A first phase that fails ends the MDLM's training: its second phase would not be the curriculum.
    if ! "$PY" "$ROOT/tools/train/train.py" "${MDLM_FIRST_OPTS[@]}" --minutes "$first" --size "$MDLM_SIZE" $start \
      --work "$WORK/mdlm-first" --out "$WORK/mdlm-first/export" --plot "$PLOTS/loss-$MDLM_NAME-first.png" \
      >"$OUT/train-mdlm-first.log" 2>&1; then
      { echo "the first phase failed (train-mdlm-first.log):"; tail -20 "$OUT/train-mdlm-first.log"; } >>"$OUT/train-mdlm.log"
      return 1
    fi
    rm -rf "$MODELS/tiny-mdlm"
    cp -r "$WORK/mdlm-first/export" "$MODELS/tiny-mdlm"
    start="--init-from-shipped $MODELS/tiny-mdlm"
  fi
  "$PY" "$ROOT/tools/train/train.py" "${MDLM_OPTS[@]}" --minutes "$minutes" --size "$MDLM_SIZE" $start \
    --work "$WORK/mdlm" --out "$MODELS/$MDLM_NAME" --plot "$PLOTS/loss-$MDLM_NAME.png" >>"$OUT/train-mdlm.log" 2>&1
}
mdlm=""
[ "$TRAIN_MDLM" = 1 ] && train_mdlm &
[ "$TRAIN_MDLM" = 1 ] && mdlm=$!
ar=""
[ "$TRAIN_AR" = 1 ] && "$PY" "$ROOT/tools/train/train.py" "${AR_OPTS[@]}" $(init tiny-ar "$FRESH") \
  --work "$WORK/ar" --out "$MODELS/tiny-ar" --plot "$PLOTS/loss-tiny-ar.png" >"$OUT/train-ar.log" 2>&1 &
[ "$TRAIN_AR" = 1 ] && ar=$!
status=0
if [ -n "$mdlm" ]; then
  wait $mdlm || { status=1; echo "!! MDLM training failed (train-mdlm.log)"; tail -20 "$OUT/train-mdlm.log"; }
else
  echo "(--mdlm-minutes 0: the shipped $MDLM_NAME is kept as it is)"
fi
if [ -n "$ar" ]; then
  wait $ar || { status=1; echo "!! AR training failed (train-ar.log)"; tail -20 "$OUT/train-ar.log"; }
else
  echo "(--ar-minutes 0: the shipped guider is kept as it is)"
fi

{ echo "kind,step,examples_seen,elapsed_s,families..."
  for k in mdlm ar; do [ -f "$WORK/$k/curve.csv" ] && sed "s/^/$k,/" "$WORK/$k/curve.csv"; done; } >"$WORK/result/curves.csv"

# The test split and the held-out wordings, for each model trained here (a kept model is as shipped).
TRAINED_MODELS=$( [ "$TRAIN_MDLM" = 1 ] && echo "$MDLM_NAME"; [ "$TRAIN_AR" = 1 ] && echo tiny-ar; true )
for m in $TRAINED_MODELS; do
  sorting_form=$MDLM_SORTING_FORM
  [ "$m" = tiny-ar ] && sorting_form=$AR_SORTING_FORM
  for split in test heldout; do
    timeout 100 "$PY" "$ROOT/tools/train/eval_py.py" --model "$MODELS/$m" --split "$ROOT/resources/eval/$split.jsonl" \
      --per-family "$EVAL_N" --device "$DEVICE" --batch 256 --sorting-form "$sorting_form" --predictions "$WORK/result/predictions-$m-$split.jsonl" \
      >"$WORK/eval-$m-$split.txt" 2>&1 ||
      echo "!! eval of $m on $split did not finish" >>"$WORK/eval-$m-$split.txt" &
  done
done
# Whether each copies a question's words into its answer (what a new wording needs): seconds on a CPU core.
for m in $TRAINED_MODELS; do
  timeout 100 "$PY" "$ROOT/tools/train/copy_probe.py" --model "$MODELS/$m" >"$WORK/eval-$m-copy.txt" 2>&1 ||
    echo "!! copy probe of $m did not finish" >>"$WORK/eval-$m-copy.txt" &
done
# Sorting's lookup and whether it compares letters at all (docs/models.md): an LLaDA-family MDLM
# only (the probes read unshifted logits).
if [ "$TRAIN_MDLM" = 1 ] && [ "$MDLM_KIND" = mdlm ]; then
  SORT_PROBE=sorting_lookup.py  # the column form's lookup; the passes form's comparison of neighbours
  [ "$MDLM_SORTING_FORM" = passes ] && SORT_PROBE=sorting_passes.py
  { timeout 150 "$PY" "$ROOT/tools/train/$SORT_PROBE" --model "$MODELS/$MDLM_NAME" --n 20 >"$WORK/eval-$MDLM_NAME-sort.txt" 2>&1 ||
    echo "!! the sorting probe ($SORT_PROBE) of $MDLM_NAME did not finish" >>"$WORK/eval-$MDLM_NAME-sort.txt"; } &
  { timeout 150 "$PY" "$ROOT/tools/train/letter_compare.py" --model "$MODELS/$MDLM_NAME" --form "$MDLM_COUNTING_FORM" \
    >"$WORK/eval-$MDLM_NAME-letters.txt" 2>&1 || echo "!! letter comparison of $MDLM_NAME did not finish" >>"$WORK/eval-$MDLM_NAME-letters.txt"; } &
fi
wait
# Where each model's arithmetic, word problems, letter counts and sortings go wrong, part by part (docs/models.md, "Where
# held-out arithmetic breaks"): reading a wording against computing the worked line.
for f in "$WORK"/result/predictions-*.jsonl; do
  [ -s "$f" ] || continue
  { echo "--- $(basename "$f" .jsonl)"
    "$PY" "$ROOT/tools/train/arithmetic_parts.py" "$f" || true
    "$PY" "$ROOT/tools/train/word_problem_parts.py" "$f" || true
    "$PY" "$ROOT/tools/train/letter_count_parts.py" "$f" || true
    "$PY" "$ROOT/tools/train/sorting_parts.py" "$f" || true; } >>"$WORK/eval-parts.txt" 2>&1
done
cat "$WORK"/eval-*.txt | tee "$OUT/eval.txt"
cp "$OUT/eval.txt" "$WORK/result/"

PYTHON="$PY" bash "$ROOT/tools/train/pack_result.sh" "$WORK/result" "$OUT/result.tar.xz.part-"
ls -la "$OUT"
exit $status
