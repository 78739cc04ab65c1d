#!/usr/bin/python3
"""The options of a training run (tools/train/train.py) and the rules that refuse a bad combination,
kept free of PyTorch so that tools/train/gpu_train.sh can check a run's options with any Python 3
before a lease's minutes are spent (train.py applies the same rules, then checks what needs the
model: an --init-from-shipped folder's shape).

  python3 tools/train/train_options.py <train.py options>   # exit 0: accepted; 2: refused, and why
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402

# The options that are a share, and of what.
SHARES = {"suffix_mask": "sequences", "prompt_digit_mask": "sequences", "prompt_digit_noise": "sequences",
          "digit_suffix": "sequences", "decode_order_mask": "sequences", "stale_kv": "decode-order-masked sequences",
          "long_prob": "batches",
          "aside_prob": "composed questions", "filler_prob": "arithmetic question cores",
          "free_letter_prob": "composed letter counts", "comparison_mask": "letter counts",
          "verdicts_shown": "comparison-masked letter counts", "total_mask": "letter counts",
          "absent_letter_prob": "letter counts", "invented_item_prob": "word problems",
          "plain_sentence_prob": "word counts"}


def parser():
    """train.py's options; errors read "train.py: error: ..." whichever file parses them."""
    ap = argparse.ArgumentParser(prog="train.py")
    ap.add_argument("--model", choices=["mdlm", "dream", "ar"], required=True,
                    help="mdlm: LLaDA-family MDLM; dream: Dream-family MDLM (the guider's network, bidirectional, "
                    "shifted logits); ar: the causal guider")
    ap.add_argument("--size", default="small")
    ap.add_argument("--out", help="shipped model folder to export to at each checkpoint")
    ap.add_argument("--work", help="checkpoint dir (default build-train/<model>-<size>)")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--accum", type=int, default=1, metavar="K",
                    help="batches whose gradients make one optimizer step (the step sees K*batch examples): "
                    "on a CPU, batches of 32 run faster per example than one of 256, whose activations "
                    "outgrow the caches, while the step keeps the larger batch's lower gradient noise")
    ap.add_argument("--processes", type=int, default=1, metavar="N",
                    help="CPU only: N processes share each step's --accum batches and sum their gradients "
                    "(gloo), so one run uses every core; the step reads the batches of the run with 1. On a "
                    "small model one process with two threads steps no faster than with one; two processes "
                    "of one thread step 1.86x as fast")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--min-lr-frac", type=float, default=0.1)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--wd", type=float, default=0.1)
    ap.add_argument("--long-prob", type=float, default=0.1)
    ap.add_argument("--max-len", type=int, default=320)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ckpt-min", type=float, default=6.0)
    ap.add_argument("--val-every", type=int, default=100)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--bench", type=int, default=0, help="time N steps and exit")
    ap.add_argument("--init-from", default=None, help="start from a grown state dict (tools/train/grow.py) "
                    "when no checkpoint exists yet")
    ap.add_argument("--plot", default=None, help="loss PNG path (default <work>/loss.png; a run to be documented names its docs/img/ file)")
    ap.add_argument("--init-from-shipped", default=None, metavar="DIR",
                    help="start from an exported model folder (e.g. resources/models/tiny-mdlm) with a fresh "
                    "optimizer when no checkpoint exists yet: continues the shipped weights")
    ap.add_argument("--init-from-ar", default=None, metavar="DIR",
                    help="start an MDLM from the causal guider's exported weights (e.g. resources/models/tiny-ar) when "
                    "no checkpoint exists yet: --model dream (every tensor as it is) or --model mdlm --size adapted "
                    "(tools/train/adapt.py)")
    ap.add_argument("--attention-anneal", type=int, default=0, metavar="STEPS",
                    help="dream: the share of later columns each row may see rises from 0 to 1 over "
                         "STEPS steps (causal to bidirectional, as DiffuLLaMA adapts an AR: arXiv 2410.17891)")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (bf16 autocast on cuda)")
    ap.add_argument("--data-workers", type=int, default=0, help="processes that make batches ahead (0: inline)")
    ap.add_argument("--minutes", type=float, default=0.0,
                    help="wall-time budget: stop and finish the cosine schedule when it runs out (0: none). "
                    "Wall time counts everything after start-up: steps, validation, curve points, checkpoints")
    ap.add_argument("--curve-every", type=int, default=0,
                    help="every N steps, greedy accuracy per family on a fixed test sample (PyTorch, "
                    "tools/train/eval_py.py), appended to <work>/curve.csv (0: off)")
    ap.add_argument("--curve-per-family", type=int, default=50, help="validation rows per family of each curve point")
    ap.add_argument("--t-power", type=float, default=1.0,
                    help="MDLM: mask rate t = u ** power (u uniform); < 1 favours nearly fully masked responses")
    ap.add_argument("--curve-families", default="", help="families of the learning curve (default: every scored one)")
    ap.add_argument("--family-weights", default="",
                    help="the training mixture as family=weight,... (e.g. addition=3,word_problem=1); default: "
                    "the corpus mixture")
    ap.add_argument("--suffix-mask", type=float, default=0.0,
                    help="MDLM: share of sequences masked from a random cut of the response on (see mdlm_loss)")
    ap.add_argument("--prompt-digit-mask", type=float, default=0.0, metavar="SHARE",
                    help="share of the suffix-masked sequences whose prompt digits are hidden, so that "
                         "results are computed from the response's own worked lines (MDLM only)")
    ap.add_argument("--prompt-digit-noise", type=float, default=0.0, metavar="SHARE",
                    help="share of the suffix-masked sequences cut after their last '=' whose prompt digits "
                         "are replaced by random digits, so that the line's operands win over the question's")
    ap.add_argument("--digit-suffix", type=float, default=0.0, metavar="SHARE",
                    help="share of the suffix-masked sequences that keep every token after the cut visible but the "
                         "digits: the end of a decode, where only results remain to be computed (MDLM only)")
    ap.add_argument("--decode-order-mask", type=float, default=0.0, metavar="SHARE",
                    help="MDLM: share of sequences masked in the order a low-confidence decode reveals them: the "
                         "model ranks the fully masked response's positions by confidence, its k most confident "
                         "are shown (k uniform), the rest masked (see decode_order_mask)")
    ap.add_argument("--stale-kv", type=float, default=0.0, metavar="SHARE",
                    help="MDLM (LLaDA): share of the decode-order-masked sequences that attend to the positions "
                         "shown at an earlier state of the same decode with that state's K/V, as SureLock's cache "
                         "serves its locked positions (see stale_columns)")
    ap.add_argument("--stale-kv-states", type=int, default=1, metavar="N",
                    help="MDLM (LLaDA), with --stale-kv: earlier states drawn per such sequence; each position gets "
                         "the K/V of the first one that showed it, as a decode locks positions one by one (one "
                         "forward without gradient per state)")
    ap.add_argument("--aligned-arithmetic", nargs="?", const="max", default="fixed", choices=["plain", "max", "fixed"],
                    help="worked arithmetic lines (corpus.ALIGNED): fixed (the embedded models' form) = zero-padded "
                    "to the family's widest operand (074 + 064 = 0138); max = to the wider operand (023 + 516 = "
                    "0539); plain = as the numbers are (74 + 64 = 138)")
    ap.add_argument("--varied-wording", type=float, default=0.0, metavar="SHARE",
                    help="share of training questions worded by tools/train/phrasing.py instead of a fixed "
                    "template (0 = templates only); the learning curve then adds the held-out wordings")
    ap.add_argument("--schedule", default="cosine", choices=["cosine", "wsd"],
                    help="learning rate after warm-up: cosine over --steps/--minutes, or wsd (constant, then a cosine "
                    "over --anneal-steps from --anneal-start; the run stops at the end of the anneal)")
    ap.add_argument("--anneal-start", type=int, default=None, help="wsd: the step the anneal starts at (none: constant)")
    ap.add_argument("--anneal-steps", type=int, default=1000, help="wsd: length of the anneal in steps")
    ap.add_argument("--word-problem-form", default="sentences", choices=["sentences", "lines"],
                    help="how a word problem's arithmetic is written (corpus.WORD_PROBLEM_FORM)")
    ap.add_argument("--sorting-form", default="plain", choices=["plain", "columns", "ranked", "passes"],
                    help="how a sorted list is written (corpus.SORTING_FORM)")
    ap.add_argument("--counting-form", default="words", choices=["words", *corpus.SPELLED_MARKS],
                    help="how a letter count is written (corpus.COUNTING_FORM)")
    ap.add_argument("--aside-prob", type=float, default=corpus.ASIDE_PROB,
                    help="share of composed questions (not counting's) after a sentence of counting's words (corpus.ASIDE_PROB)")
    ap.add_argument("--filler-prob", type=float, default=corpus.phrasing.FILLER_PROB,
                    help="share of arithmetic question cores with a word after the first operand (phrasing.FILLER_PROB)")
    ap.add_argument("--free-letter-prob", type=float, default=corpus.phrasing.FREE_LETTER_PROB,
                    help="share of composed letter counts asked in no fixed form (phrasing.FREE_LETTER_PROB)")
    ap.add_argument("--absent-letter-prob", type=float, default=corpus.ABSENT_LETTER_PROB,
                    help="share of letter counts asking a letter their words do not have (corpus.ABSENT_LETTER_PROB)")
    ap.add_argument("--invented-item-prob", type=float, default=corpus.INVENTED_ITEM_PROB,
                    help="share of word problems that buy made-up items at prices from 1 to 30 (corpus.INVENTED_ITEM_PROB)")
    ap.add_argument("--plain-sentence-prob", type=float, default=corpus.PLAIN_SENTENCE_PROB,
                    help="share of word counts whose sentence is in lower case without a period, as letter counts' texts are "
                    "(corpus.PLAIN_SENTENCE_PROB)")
    ap.add_argument("--count-weight", type=float, default=1.0, metavar="W",
                    help="MDLM: loss weight of each word's count in a spelled letter count (the digit after ' (' "
                    "in 'dog: d o g (1)'), the one token that asks the letter comparison; 1 = as any token")
    ap.add_argument("--comparison-mask", type=float, default=0.0, metavar="SHARE",
                    help="MDLM: share of spelled letter counts masked so that only their comparisons are asked: "
                    "each word's count (and the paired form's verdicts) and the total hidden, the words, letters "
                    "and copies shown")
    ap.add_argument("--verdicts-shown", type=float, default=0.0, metavar="SHARE",
                    help="MDLM, paired form: share of the comparison-masked letter counts with their verdicts shown, "
                    "so that each count is read off the verdicts before it (the counts and total still hidden)")
    ap.add_argument("--total-mask", type=float, default=0.0, metavar="SHARE",
                    help="MDLM: share of spelled letter counts (beside the comparison-masked ones) masked so that "
                    "only their total is asked: the first line with every word's count shown, the total line and "
                    "answer hidden")
    ap.add_argument("--tie-head", action="store_true",
                    help="mdlm: the LM head is the embedding (LLaDA's weight_tying), so a token read from the "
                    "prompt can be written back without a head row of its own trained in that role")
    return ap


def parse(ap, argv=None):
    """The options of argv (default: the command line), refused through ap.error (exit 2) where a rule
    forbids them, with the values derived from them (family_weight_map, a wsd run's last step)."""
    a = ap.parse_args(argv)
    # A typo such as --suffix-mask 7 would otherwise mask every sequence without a word.
    for share, of_what in SHARES.items():
        if not 0 <= getattr(a, share) <= 1:
            ap.error(f"--{share.replace('_', '-')} is a share of {of_what}: use a value from 0 to 1")
    # These act on suffix-masked MDLM sequences only: refuse them where they would do nothing.
    diffusion = a.model in ("mdlm", "dream")
    if (a.prompt_digit_mask or a.prompt_digit_noise or a.digit_suffix) and (not diffusion or a.suffix_mask <= 0):
        ap.error("--prompt-digit-mask, --prompt-digit-noise and --digit-suffix apply to suffix-masked sequences: "
                 "use them with --model mdlm or dream and --suffix-mask > 0")
    if a.decode_order_mask and not diffusion:
        ap.error("--decode-order-mask masks an MDLM's response as its decode reveals it: use it with --model mdlm "
                 "or dream")
    if a.stale_kv and (a.model != "mdlm" or not a.decode_order_mask):
        ap.error("--stale-kv serves decode-order-masked sequences earlier K/V, as SureLock's cache does: use it "
                 "with --model mdlm and --decode-order-mask > 0")
    if a.stale_kv_states < 1 or a.stale_kv_states > 8:
        ap.error(f"--stale-kv-states {a.stale_kv_states}: give 1 to 8 earlier states (each costs a forward)")
    if a.stale_kv_states > 1 and not a.stale_kv:
        ap.error("--stale-kv-states draws the earlier states of --stale-kv's sequences: give --stale-kv > 0")
    if a.init_from_ar and not (a.model == "dream" or (a.model == "mdlm" and a.size == "adapted")):
        ap.error("--init-from-ar starts an MDLM of the guider's shape: use it with --model dream or "
                 "--model mdlm --size adapted")
    if a.count_weight != 1.0 and (not diffusion or a.counting_form not in corpus.SPELLED_MARKS):
        ap.error("--count-weight weighs the word counts of a spelled letter count in an MDLM's loss: use it with "
                 "--model mdlm or dream and a spelled --counting-form")
    for masks_letter_counts in ("comparison_mask", "total_mask"):
        if getattr(a, masks_letter_counts) and (not diffusion or a.counting_form not in corpus.SPELLED_MARKS):
            ap.error(f"--{masks_letter_counts.replace('_', '-')} masks an MDLM's spelled letter counts: use it with "
                     "--model mdlm or dream and a spelled --counting-form")
    if a.verdicts_shown and (not a.comparison_mask or a.counting_form != "paired"):
        ap.error("--verdicts-shown shows the paired form's verdicts in comparison-masked letter counts: use it with "
                 "--counting-form paired and --comparison-mask > 0")
    if not 0 < a.count_weight <= 100:
        ap.error("--count-weight is a loss weight: use a value above 0 and at most 100")
    if a.tie_head and a.model != "mdlm":
        ap.error("--tie-head ties an MDLM's head: --model dream and ar always tie theirs")
    if a.attention_anneal and a.model != "dream":
        ap.error("--attention-anneal anneals a Dream model's attention: use it with --model dream")
    if a.steps < 1 or a.minutes < 0:
        ap.error(f"--steps {a.steps} --minutes {a.minutes}: a budget is a positive number of steps, and of "
                 "minutes (--minutes 0: none)")
    if a.accum < 1:
        ap.error("--accum counts the batches of one optimizer step: use 1 or more")
    if a.processes < 1 or (a.processes > 1 and (a.device != "cpu" or a.accum % a.processes)):
        ap.error("--processes splits each step's --accum batches between CPU processes: use it with --device cpu "
                 "and an --accum that is a multiple of it")
    if a.schedule == "wsd" and a.anneal_start is not None:
        a.steps = min(a.steps, a.anneal_start + a.anneal_steps)
    a.family_weight_map = None
    if a.family_weights:
        a.family_weight_map = {}
        for item in a.family_weights.split(","):
            fam, _, w = item.partition("=")
            if fam not in corpus.FAMILIES:
                ap.error(f"--family-weights: unknown family {fam!r} (known: {', '.join(corpus.FAMILIES)})")
            try:
                weight = float(w or 1)
            except ValueError:
                weight = -1.0
            if not 0 <= weight < float("inf"):
                ap.error(f"--family-weights: the weight of {fam} is {w!r}: use a number of 0 or more")
            a.family_weight_map[fam] = weight
        if not sum(a.family_weight_map.values()) > 0:
            ap.error("--family-weights: every weight is 0: give at least one family a weight above 0")
    return a


if __name__ == "__main__":
    parse(parser())
    print("train.py options accepted")
