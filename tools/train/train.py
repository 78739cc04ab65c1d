#!/usr/bin/python3
"""Train the dlmscope tiny models on the synthetic corpus (CPU or GPU, reproducible, resumable).

  /usr/bin/python3 tools/train/train.py --model mdlm --out resources/models/tiny-mdlm
  /usr/bin/python3 tools/train/train.py --model ar   --out resources/models/tiny-ar
  # continue the shipped weights with a fresh optimizer, on a GPU, for 6 minutes of wall time:
  python3 tools/train/train.py --model mdlm --size base --init-from-shipped resources/models/tiny-mdlm \
      --device cuda --batch 256 --data-workers 12 --minutes 6 --out resources/models/tiny-mdlm

Checkpoints (model + optimizer + step) go to build-train/<model>/ckpt.pt every --ckpt-min
minutes; a restarted run resumes from there.  The data stream is a pure function of
(seed, step) so resuming reproduces the same batches.  Each checkpoint is also exported
to --out (BF16 safetensors + config) and the loss curve is redrawn under docs/img/.
The options and the rules that refuse a bad combination live in train_options.py, which checks a
command without PyTorch:  python3 tools/train/train_options.py <train.py options>
"""
import contextlib
import csv
import json
import math
import os
import platform
import random
import signal
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
import corpus  # noqa: E402
import train_options  # noqa: E402
from model import Dream, LLaDA, Qwen2, count_params  # noqa: E402
from parent_death import end_with_parent  # noqa: E402

EPS = 1e-3  # LLaDA: p_mask = (1 - eps) t + eps


def build_model(kind, size, tie_head=False):
    if kind == "mdlm":
        cfg = C.mdlm_config(size)
        if tie_head:  # LLaDA's own schema field: the LM head is wte, no ff_out of its own
            cfg["weight_tying"] = True
        return LLaDA(cfg), cfg
    if kind == "dream":
        cfg = C.dream_config(size)
        return Dream(cfg), cfg
    cfg = C.ar_config(size)
    return Qwen2(cfg), cfg


# ------------------------------------------------------------------ data
def encode_ex(ex):
    return C.encode_prompt(ex["prompt"]), C.encode_response(ex["response"])


# The generation areas a stretched canvas draws from: every family's canvas at inference (the eval
# rows' and the app's examples') and a few between. A short answer on a long canvas must still end
# where it ends: with stretches of at most 160, a three-number sorting on the passes form's canvas of
# 400 wrote a fourth number (0 of 24 right, against 113 of 126 longer lists).
STRETCH_CANVASES = sorted(set(corpus.GEN_LENGTH.values()) | set(corpus.EVAL_GEN_LENGTH.values()) | {32, 128, 256})


def make_batch(exs, rng, long_prob, max_len):
    """exs: list of (prompt_ids, resp_ids). Pads every row with <|endoftext|> to a common
    length T (>= the longest row; with prob long_prob the canvas is stretched so that the
    longest prompt gets one of STRETCH_CANVASES as its generation area, as at inference)."""
    T = max(len(p) + len(r) for p, r in exs)
    if rng.random() < long_prob:
        T = max(T, max(len(p) for p, _ in exs) + rng.choice(STRETCH_CANVASES))
    T += rng.randint(0, 6)
    T = min(T, max_len)
    ids = torch.full((len(exs), T), C.PAD, dtype=torch.long)
    is_resp = torch.zeros((len(exs), T), dtype=torch.bool)
    for i, (p, r) in enumerate(exs):
        seq = (p + r)[:T]
        ids[i, :len(seq)] = torch.tensor(seq)
        is_resp[i, len(p):] = True
    return ids, is_resp


def chunk_batches(seed, B, long_prob, max_len, K, c, weights=None):
    """The K batches of chunk c: a pure function of its arguments (worker processes call it)."""
    rng = random.Random(f"{seed}-chunk-{c}")
    exs = []
    for _ in range(K * B):
        fam = corpus.sample_family(rng, weights)
        exs.append(encode_ex(corpus.make_example(fam, rng, "train")))
    exs.sort(key=lambda e: len(e[0]) + len(e[1]))
    batches = [exs[i * B:(i + 1) * B] for i in range(K)]
    order = list(range(K))
    rng.shuffle(order)
    return [make_batch(batches[j], rng, long_prob, max_len) for j in order]


def _chunk_job(args):
    return args[5], chunk_batches(*args)


class Data:
    """Deterministic batches: chunk c (= step // K) is generated from Random((seed, c)):
    K*B training examples sorted by length and cut into K batches (length bucketing),
    visited in a seeded shuffled order."""

    def __init__(self, seed, batch, long_prob, max_len, K=8, workers=0, weights=None):
        self.seed, self.B, self.long_prob, self.max_len, self.K = seed, batch, long_prob, max_len, K
        self.weights = weights
        self._cache = (None, None)
        # With workers, chunks are made ahead in other processes (a GPU consumes them faster than
        # one Python process writes them); the batches are the same as without.
        self.workers, self._pool, self._ahead = workers, None, {}
        if workers > 0:  # forked now, before the parent touches the GPU
            import multiprocessing as mp
            self._pool = mp.get_context("fork").Pool(workers)

    def _args(self, c):
        return (self.seed, self.B, self.long_prob, self.max_len, self.K, c, self.weights)

    def _chunk(self, c):
        if self._cache[0] == c:
            return self._cache[1]
        if self.workers > 0:
            for k in range(c, c + 2 * self.workers):
                if k not in self._ahead:
                    self._ahead[k] = self._pool.apply_async(_chunk_job, (self._args(k),))
            for k in [k for k in self._ahead if k < c]:
                del self._ahead[k]
            out = self._ahead.pop(c).get()[1]
        else:
            out = chunk_batches(*self._args(c))
        self._cache = (c, out)
        return out

    def batch(self, step):
        return self._chunk(step // self.K)[step % self.K]


def val_batches(n_batches, batch, max_len, seed=999):
    rng = random.Random(seed)
    out = []
    for _ in range(n_batches):
        exs = [encode_ex(corpus.make_example(corpus.sample_family(rng), rng, "val")) for _ in range(batch)]
        out.append(make_batch(exs, rng, 0.0, max_len))
    return out


# ------------------------------------------------------------------ losses
_DIGITS = None


def equals_id():
    """The token of ' =' (a worked line's equals sign)."""
    return C.sp().piece_to_id("\u2581=")


def count_ids(ids):
    """Where a spelled letter count writes a word's count: a digit right after ' (' ("dog: d o g (1)").
    Only letter counts write a digit there (sorting's passes and the worked lines have no brackets)."""
    opening = torch.zeros_like(ids, dtype=torch.bool)
    opening[:, 1:] = ids[:, :-1] == C.sp().piece_to_id("\u2581(")
    return opening & torch.isin(ids, digit_ids().to(ids.device))


def verdict_ids(ids):
    """Where the paired letter-count form writes a verdict ("one" or "no" after a letter and its copy)."""
    sp = C.sp()
    found = torch.zeros_like(ids, dtype=torch.bool)
    for word in corpus.PAIRED_VERDICTS.values():
        found |= ids == sp.piece_to_id("\u2581" + word)
    return found


def after_first_line(ids, is_resp):
    """The response positions after its first line: a letter count's total line and answer."""
    nl = (ids == C.nl_id()) & is_resp
    first_nl = torch.where(nl.any(1), nl.float().argmax(1), torch.full((ids.shape[0],), ids.shape[1]))
    return (torch.arange(ids.shape[1])[None, :] > first_nl[:, None]) & is_resp


def comparison_mask(ids, is_resp, verdicts_shown=None):
    """The masks of a letter count with only its comparisons asked: each word's count and, in the
    paired form, each verdict hidden, and everything after the response's first line (the total
    repeats the counts), the rest shown. In the rows where verdicts_shown (a bool per row) is True
    the verdicts are shown: each count is then read off the verdicts before it. All-False rows for
    sequences that are no letter count."""
    counts = count_ids(ids) & is_resp
    letter_count = counts.any(1)
    verdicts = verdict_ids(ids) & is_resp
    if verdicts_shown is not None:
        verdicts &= ~verdicts_shown[:, None]
    hidden = counts | verdicts | after_first_line(ids, is_resp)
    return hidden & letter_count[:, None]


def total_mask(ids, is_resp):
    """The masks of a letter count with only its total asked: the first line (words, letters, verdicts
    and each word's count) shown, the total line and the answer after it hidden. All-False rows for
    sequences that are no letter count."""
    letter_count = (count_ids(ids) & is_resp).any(1)
    return after_first_line(ids, is_resp) & letter_count[:, None]


def digit_ids():
    """Token ids of the ten digits (the tokenizer writes every digit as a token of its own)."""
    global _DIGITS
    if _DIGITS is None:
        sp = C.sp()
        _DIGITS = torch.tensor([i for i in range(sp.get_piece_size()) if sp.id_to_piece(i).isdigit()])
    return _DIGITS


def decode_order_mask(model, ids, is_resp, gen):
    """The masks a low-confidence decode meets on these sequences' responses: one forward of the model
    on each fully masked response ranks its positions by confidence (the top probability, the rule
    the LLaDA sampler reveals by), the k most confident show their true tokens (k uniform over
    0 .. length - 1), the rest stay masked. Uniform masks rarely show that state: a sorted list's
    leading digits written and their last digits to be looked up, a word problem's words and
    operands written and its sums to be computed.

    Returns the masks and the ranking they were cut from (0 = most confident), from which
    earlier_decode_mask reads an earlier state of the same decode."""
    n, T = ids.shape
    resp = is_resp.cpu()
    blank = torch.where(resp.to(ids.device), torch.full_like(ids, C.MASK), ids)
    was_training = model.training
    model.eval()  # the decode's model: full attention, no anneal
    with torch.no_grad():
        conf = model.head(model.hidden(blank)).float().softmax(-1).amax(-1).cpu()
    model.train(was_training)
    if getattr(model, "shifted_logits", False):  # token i is read from row i - 1
        conf = torch.cat([torch.zeros(n, 1), conf[:, :-1]], 1)
    # Ties (a response's padding tail) are broken at random; positions outside the response rank last.
    conf = torch.where(resp, conf + 1e-6 * torch.rand((n, T), generator=gen), torch.full((n, T), -1.0))
    rank = conf.argsort(1, descending=True).argsort(1)
    shown = (torch.rand(n, generator=gen) * resp.sum(1).float()).long()
    return resp & (rank >= shown[:, None]), rank


def earlier_decode_mask(masked, rank, is_resp, gen, states=1):
    """Earlier states of the decode decode_order_mask cut `masked` from, [states, B, T], earliest
    first: of the k positions shown there, state s keeps the j_s most confident shown (the j_s
    drawn uniform over 0 .. k - 1 and sorted, so each state shows what the one before showed),
    every other response position masked."""
    resp = is_resp.cpu()
    shown = (resp & ~masked).sum(1)
    cuts = (torch.rand(len(shown), states, generator=gen) * shown.float()[:, None]).long().sort(1).values
    return torch.stack([resp & (rank >= cuts[:, s, None]) for s in range(states)])


def stale_columns(model, ids, earlier_masked, rows, gen):
    """The K/V a SureLock decode serves for positions locked at earlier steps: `rows` of the batch
    run once per earlier state (no gradient; earlier_masked [S, R, T], earliest first, each hiding
    what it hid), and each position shown there (the prompt included) keeps the K/V of the first
    state that showed it, as a decode's cache keeps a position's K/V from about the step it
    revealed and locked it; each with probability f, f uniform over 0.5 .. 1 per sequence (a
    decode locks only the positions that have settled). Returns (every layer's (K, V) for the
    whole batch, where [B, T] bool) for model.hidden(stale=...)."""
    B, T = ids.shape
    on_device = rows.to(ids.device)
    sub = ids[on_device]
    hidden_in = earlier_masked.to(ids.device)                  # [S, R, T]
    shown_in = ~hidden_in
    first = shown_in.float().argmax(0)                          # the first state that shows each position
    per_state = []
    with torch.no_grad():
        for state in hidden_in:
            layers = []
            model.hidden(torch.where(state, torch.full_like(sub, C.MASK), sub), capture=layers)
            per_state.append(layers)
    full = []
    for layer in range(len(per_state[0])):
        k, v = per_state[0][layer]
        for s in range(1, len(per_state)):
            pick = (first == s)[:, None, :, None]
            k, v = torch.where(pick, per_state[s][layer][0], k), torch.where(pick, per_state[s][layer][1], v)
        # The other sequences' entries are never read (`where` is False there).
        k_all, v_all = k.new_zeros((B,) + k.shape[1:]), v.new_zeros((B,) + v.shape[1:])
        k_all[on_device], v_all[on_device] = k, v
        full.append((k_all, v_all))
    keep = 0.5 + 0.5 * torch.rand(int(rows.sum()), generator=gen)
    shown = shown_in[-1].cpu() & (torch.rand(earlier_masked.shape[1:], generator=gen) < keep[:, None])
    where = torch.zeros(B, T, dtype=torch.bool)
    where[rows] = shown
    return full, where.to(ids.device)


def mdlm_loss(model, ids, is_resp, gen, t_power=1.0, suffix_prob=0.0, prompt_digit_prob=0.0, prompt_noise_prob=0.0,
              digit_suffix_prob=0.0, order_prob=0.0, count_weight=1.0, comparison_prob=0.0,
              verdicts_shown_prob=0.0, total_prob=0.0, stale_kv_prob=0.0, stale_kv_states=1):
    """LLaDA SFT loss: prompt never masked; each response token (incl. <|endoftext|> tail)
    masked with prob p = (1-eps) t + eps, t ~ U(0,1) (stratified over the batch);
    CE on masked tokens weighted 1/p, normalised by the response length, mean over batch.

    With suffix_prob > 0, that share of the sequences is masked as a decode meets it instead:
    the response from a random cut on is masked, the part before it stays visible but for a few
    tokens (mask rate up to 0.15). Uniform masking almost never shows "the operands are written,
    every copy of the result is masked", the state in which a decode must compute a result; the
    suffix form shows it at every cut. Its masked tokens' CE is averaged per sequence.

    With prompt_digit_prob > 0, that share of the suffix-masked sequences also has the prompt's
    digits hidden (input only; the prompt is never a target). A model that may always read the
    question's numbers learns to add those and never the operands copied into its own worked
    line, yet a word problem's running total has its operands only in the response. With the
    question's digits hidden now and then, reading the line is the one rule that is always right.

    Hiding alone teaches a conditional rule (read the line only when the question's digits are
    gone). With prompt_noise_prob > 0, that share of the other suffix-masked sequences cut after
    the last '=' of their response gets the prompt's digits replaced by random digits: the last
    line's operands are written, the question now disagrees with them, and only the line gives
    the result. No copy of the question is a target in such a sequence (every copy of a question's
    number comes before the last line's '=': the operands of an arithmetic line, a word problem's
    items, a running sum's terms), so copying is never taught wrong.

    With digit_suffix_prob > 0, that share of the suffix-masked sequences keeps every token after
    its cut visible but the digits: the state at the end of a decode, where the lines' words and
    layout have settled and the results are still to be computed (a word problem's sums are its
    last positions to be revealed). Every digit after the cut is hidden, so no later copy of a
    result gives it away, and each such sequence's loss falls on computed and copied digits alone.

    With order_prob > 0, that share of the sequences (drawn before the suffix form, never both) is
    masked as the model's own decode would reveal it (decode_order_mask); its masked tokens' CE is
    averaged per sequence.

    With count_weight != 1, a letter count's per-word counts weigh that much in the loss: they are
    the only tokens that ask whether a spelled letter is the asked one, a few among a row's sixty.

    With comparison_prob > 0, that share of the letter counts (drawn after the decode-order and
    suffix forms, never with them) is masked as comparison_mask says: the words, letters and
    copies shown, the counts and verdicts hidden. Drawn at random, a mask seldom hides a count
    while it shows the letters it compares (a fraction of the counts at t = u^0.5), so the
    comparison gets little of the loss; here every hidden token asks it. Its masked tokens' CE is
    averaged per sequence.

    With verdicts_shown_prob > 0, that share of those letter counts shows the paired form's
    verdicts: a count is then asked with its verdicts written and the total hidden, the one state
    in which it can only be the number of "one"s before it. Random masks seldom make it (they
    mostly leave the total, which repeats the count), and a decode that writes every verdict right
    and then a count that follows the total instead is what the engine's letter counts showed.

    With total_prob > 0, that share of the other letter counts (never with the decode-order, suffix
    or comparison forms) is masked as total_mask says: every word's count shown, the total line and
    answer hidden. A decode that has written every count right can still misadd or miscopy them
    ("1 + 0 + 1 = 1"); random masks mostly hide some of the counts the total is made of. Its masked
    tokens' CE is averaged per sequence.

    With stale_kv_prob > 0, that share of the decode-order sequences attends to the positions its
    decode showed earlier with the K/V of that earlier state (stale_columns), as SureLock's cache
    serves a locked position: the results a decode computes last are learnt from operands whose
    deeper K/V were computed while the lines they copy were still masked, the state in which a
    SureLock decode of a word problem wrote "0007 + 0189 = 00186" where the plain decode wrote
    00196. stale_kv_states > 1 draws that many earlier states and serves each position the K/V of
    the first one that showed it: a decode locks positions one by one, each soon after it is
    revealed. LLaDA models only.

    A shifted-logit model (Dream) is scored as it decodes: masked token i from row i - 1 (the
    prompt is never masked, so row 0 is never a target)."""
    B, T = ids.shape
    # The masks are drawn on the CPU (the same on every device) and move to the batch's device
    # once, after they are made.
    is_resp = is_resp.cpu()
    u = torch.rand((), generator=gen)
    t = (u + torch.arange(B, dtype=torch.float32) / B) % 1.0
    # t ** power with power < 1 puts more sequences near a fully masked response, the state
    # inference starts from, where the answer can only come from the prompt.
    t = t ** t_power
    pm = ((1 - EPS) * t + EPS)
    r = torch.rand((B, T), generator=gen)  # drawn on the CPU: the same on every device
    pm_tok = pm[:, None].expand(B, T).clone()
    order = torch.zeros(B, dtype=torch.bool)
    if order_prob > 0:
        order = torch.rand(B, generator=gen) < order_prob
    if suffix_prob > 0:
        suffix = (torch.rand(B, generator=gen) < suffix_prob) & ~order
        start = is_resp.float().argmax(1)                       # first response position
        length = is_resp.sum(1)
        cut = start + (torch.rand(B, generator=gen) * (length + 1).float()).long().clamp(max=T)
        after = torch.arange(T)[None, :] >= cut[:, None]
        pre = 0.15 * torch.rand(B, generator=gen)
        sfx_p = torch.where(after, torch.ones(B, T), pre[:, None].expand(B, T))
        pm_tok = torch.where(suffix[:, None], sfx_p, pm_tok)
    masked = (r < pm_tok) & is_resp
    stale_rows, earlier_masked = torch.zeros(B, dtype=torch.bool), None
    if bool(order.any()):
        by_order, rank = decode_order_mask(model, ids[order.to(ids.device)], is_resp[order], gen)
        masked[order] = by_order
        if stale_kv_prob > 0:
            stale_of_order = torch.rand(len(by_order), generator=gen) < stale_kv_prob
            stale_rows[order] = stale_of_order
            earlier_masked = earlier_decode_mask(by_order, rank, is_resp[order], gen, stale_kv_states)[:, stale_of_order]
    compare = torch.zeros(B, dtype=torch.bool)
    if comparison_prob > 0:
        shown = None
        if verdicts_shown_prob > 0:
            shown = torch.rand(B, generator=gen) < verdicts_shown_prob
        by_comparison = comparison_mask(ids.cpu(), is_resp, shown)
        compare = by_comparison.any(1) & (torch.rand(B, generator=gen) < comparison_prob) & ~order
        if suffix_prob > 0:
            compare &= ~suffix
        masked = torch.where(compare[:, None], by_comparison, masked)
    total = torch.zeros(B, dtype=torch.bool)
    if total_prob > 0:
        by_total = total_mask(ids.cpu(), is_resp)
        total = by_total.any(1) & (torch.rand(B, generator=gen) < total_prob) & ~order & ~compare
        if suffix_prob > 0:
            total &= ~suffix
        masked = torch.where(total[:, None], by_total, masked)
    if suffix_prob > 0 and digit_suffix_prob > 0:
        digit_seq = suffix & (torch.rand(B, generator=gen) < digit_suffix_prob)
        words_after = after & ~torch.isin(ids.cpu(), digit_ids())
        masked = masked & ~(digit_seq[:, None] & words_after)
    hide = noise = torch.zeros_like(masked)
    if suffix_prob > 0 and (prompt_digit_prob > 0 or prompt_noise_prob > 0):
        prompt_digits = ~is_resp & torch.isin(ids.cpu(), digit_ids())
    if suffix_prob > 0 and prompt_digit_prob > 0:
        hide_seq = suffix & (torch.rand(B, generator=gen) < prompt_digit_prob)
        hide = hide_seq[:, None] & prompt_digits
    if suffix_prob > 0 and prompt_noise_prob > 0:
        eq = (ids.cpu() == equals_id()) & is_resp
        last_eq = torch.where(eq.any(1), T - 1 - eq.flip(1).float().argmax(1), torch.full((B,), T))
        eligible = suffix & ~hide.any(1) & (cut > last_eq)
        noise_seq = eligible & (torch.rand(B, generator=gen) < prompt_noise_prob)
        noise = noise_seq[:, None] & prompt_digits
    masked = masked.to(ids.device)
    noisy = torch.where(masked | hide.to(ids.device), torch.full_like(ids, C.MASK), ids)
    if bool(noise.any()):
        random_digits = digit_ids()[torch.randint(0, 10, (B, T), generator=gen)]
        noisy = torch.where(noise.to(ids.device), random_digits.to(ids.device), noisy)
    share = getattr(model, "future_share", None)
    if model.training and share is not None and share < 1:
        # The causal-to-bidirectional anneal: each row sees every column up to itself and each
        # later one with probability `share`, so a model adapted from an AR meets the masks to
        # its right a few at a time (validation always reads the full bidirectional model).
        allow = torch.ones(T, T, dtype=torch.bool).tril() | (torch.rand((T, T), generator=gen) < share)
        h = model.hidden(noisy, allow=allow.to(ids.device))
    elif bool(stale_rows.any()):
        h = model.hidden(noisy, stale=stale_columns(model, ids, earlier_masked, stale_rows, gen))
    else:
        h = model.hidden(noisy)
    if getattr(model, "shifted_logits", False):  # same order as ids[masked]: column 0 is never masked
        logits = model.head(h[:, :-1][masked[:, 1:]])
    else:
        logits = model.head(h[masked])
    ce = F.cross_entropy(logits.float(), ids[masked], reduction="none")
    resp_len = is_resp.sum(1).clamp(min=1).float()
    w = (1.0 / pm[:, None] / resp_len[:, None]).expand(B, T).clone()
    per_sequence = (order | suffix if suffix_prob > 0 else order) | compare | total
    if bool(per_sequence.any()):
        n_masked = masked.sum(1).clamp(min=1).float().cpu()
        w = torch.where(per_sequence[:, None], (1.0 / n_masked)[:, None].expand(B, T), w)
    if count_weight != 1.0:
        w = torch.where(count_ids(ids.cpu()) & is_resp, w * count_weight, w)
    w = w.to(ids.device)[masked]
    loss = (ce * w).sum() / B
    return loss, ce.mean().detach(), int(masked.sum())


def ar_loss(model, ids, is_resp, gen=None):
    h = model.hidden(ids[:, :-1])
    tgt_mask = is_resp[:, 1:]
    logits = model.head(h[tgt_mask])
    ce = F.cross_entropy(logits.float(), ids[:, 1:][tgt_mask])
    return ce, ce.detach(), int(tgt_mask.sum())


# ------------------------------------------------------------------ misc
def lr_at(step, a, elapsed=0.0):
    if step < a.warmup:
        return a.lr * (step + 1) / a.warmup
    if a.schedule == "wsd":
        # Warm-up, then constant until --anneal-start, then a cosine to the floor over
        # --anneal-steps: a run of open-ended length is annealed whenever it is to stop, by
        # resuming it with --anneal-start set to the step it has reached.
        if a.anneal_start is None or step < a.anneal_start:
            return a.lr
        prog = min(1.0, (step - a.anneal_start) / max(1, a.anneal_steps))
        return a.lr * (a.min_lr_frac + (1 - a.min_lr_frac) * 0.5 * (1 + math.cos(math.pi * prog)))
    prog = min(1.0, (step - a.warmup) / max(1, a.steps - a.warmup))
    if a.minutes:  # a wall-time budget: the cosine follows whichever runs out first
        prog = max(prog, min(1.0, elapsed / (60 * a.minutes)))
    return a.lr * (a.min_lr_frac + (1 - a.min_lr_frac) * 0.5 * (1 + math.cos(math.pi * prog)))


def hardware(processes=1):
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    return {"cpu": cpu, "threads_used": torch.get_num_threads() * processes, "processes": processes,
            "logical_cpus": os.cpu_count(),
            "gpu": gpu, "torch": torch.__version__, "python": platform.python_version()}


def plot(csv_path, png_path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    rows = {}
    for r in csv.DictReader(open(csv_path)):  # last row wins for a repeated step
        rows[int(r["step"])] = r
    rows = [rows[k] for k in sorted(rows)]
    if not rows:
        return
    st = [int(r["step"]) for r in rows]
    tr = [float(r["train_loss"]) for r in rows]
    vs = [(int(r["step"]), float(r["val_loss"])) for r in rows if r["val_loss"]]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.plot(st, tr, label="train (running mean)", lw=1)
    if vs:
        ax.plot([v[0] for v in vs], [v[1] for v in vs], "o-", label="validation", ms=3)
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.set_yscale("log")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    os.makedirs(os.path.dirname(png_path), exist_ok=True)
    fig.savefig(png_path)
    plt.close(fig)


def main():
    ap = train_options.parser()
    a = train_options.parse(ap)
    shape_error = shipped_shape_error(a)
    if shape_error:
        ap.error(shape_error)
    if a.processes == 1:
        run(0, a)
        return
    import socket
    import torch.multiprocessing as mp
    with socket.socket() as s:  # a free port for the processes' rendezvous
        s.bind(("127.0.0.1", 0))
        a.rendezvous = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    a.spawner = os.getpid()
    mp.spawn(run, args=(a,), nprocs=a.processes)


def shipped_shape_error(a):
    """Why --init-from-shipped's folder cannot start this --model/--size (None when it can, or when a
    checkpoint will be resumed instead): a clear line rather than PyTorch's list of tensor shapes."""
    work = a.work or os.path.join(C.WORK, f"{a.model}-{a.size}")
    if not a.init_from_shipped or os.path.exists(os.path.join(work, "ckpt.pt")):
        return None
    path = os.path.join(a.init_from_shipped, "config.json")
    try:
        shipped = json.load(open(path))
    except (OSError, ValueError) as e:
        return f"--init-from-shipped: cannot read {path}: {e}"
    try:
        _, cfg = build_model(a.model, a.size, a.tie_head)
    except KeyError:
        return f"--size {a.size!r} is not a size of --model {a.model}"
    keys = ("d_model", "n_layers", "n_heads", "n_kv_heads", "mlp_hidden_size") if a.model == "mdlm" else \
        ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "intermediate_size")
    if all(shipped.get(k) == cfg[k] for k in keys):
        if a.model == "mdlm" and bool(shipped.get("weight_tying")) != bool(cfg.get("weight_tying")):
            return (f"--init-from-shipped: {a.init_from_shipped} has " + ("a tied" if shipped.get("weight_tying") else
                    "an untied") + " LM head: " + ("pass --tie-head" if shipped.get("weight_tying") else
                    "leave out --tie-head (a tied head starts from scratch)"))
        return None
    found = ", ".join(f"{k} {shipped.get(k)}" for k in keys)
    sizes = C.MDLM_SIZES if a.model == "mdlm" else ("base", "small", "tiny")
    named = next((z for z in sizes if all(shipped.get(k) == build_model(a.model, z)[1][k] for k in keys)), None)
    return (f"--init-from-shipped: {a.init_from_shipped} holds a model of another shape than --size {a.size} "
            f"({found})" + (f": pass --size {named}" if named else ""))


def recorded_args(a):
    """The command's options as a run records them (not the processes' rendezvous address)."""
    return {k: v for k, v in vars(a).items() if k not in ("rendezvous", "spawner", "family_weight_map")}


def all_reduce_step(model, loss, ce, seen):
    """Sums the processes' gradients (one flat buffer: one message per step) and their losses and
    token counts; each process's loss is already its share's sum divided by the whole --accum."""
    import torch.distributed as dist
    params = [p for p in model.parameters() if p.requires_grad]
    flat = torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).reshape(-1) for p in params]
                     + [torch.tensor([float(loss), float(ce), float(seen)])])
    dist.all_reduce(flat)
    at = 0
    for p in params:
        n = p.numel()
        p.grad = flat[at:at + n].view_as(p).clone()
        at += n
    return flat[at], flat[at + 1], int(flat[at + 2])


def share_of_step(data, first, count, rank, procs):
    """The batch indices first .. first+count-1 that this process computes: the longest batch first to
    the least loaded process (batches differ up to 4x in length, and a step waits for the slowest)."""
    indices = list(range(first, first + count))
    if procs == 1:
        return indices
    size = {i: data.batch(i)[0].numel() for i in indices}  # in order: each chunk is made once
    load, mine = [0] * procs, []
    for index in sorted(indices, key=lambda i: (-size[i], i)):
        r = min(range(procs), key=lambda q: (load[q], q))
        load[r] += size[index]
        if r == rank:
            mine.append(index)
    return sorted(mine)


def share_clock(elapsed, out_of_time):
    """The lead's wall time and stop decision, given to every process: the learning rate follows
    wall time (--minutes), so processes with their own clocks would step differently."""
    import torch.distributed as dist
    t = torch.tensor([float(elapsed), 1.0 if out_of_time else 0.0], dtype=torch.float64)
    dist.broadcast(t, 0)
    return float(t[0]), bool(t[1])


def run(rank, a):
    """The training loop of one process (rank 0 alone logs, validates, draws curves and checkpoints)."""
    import torch.distributed as dist
    procs = a.processes
    if procs > 1:
        end_with_parent(signal.SIGKILL, a.spawner)  # kill -9 of the command must end its workers too
        dist.init_process_group("gloo", init_method=a.rendezvous, rank=rank, world_size=procs)
    lead = rank == 0
    diffusion = a.model in ("mdlm", "dream")

    def say(*args, **kw):
        if lead:
            print(*args, **kw)

    corpus.VARIED_WORDING = a.varied_wording
    corpus.WORD_PROBLEM_FORM = a.word_problem_form
    corpus.SORTING_FORM = a.sorting_form
    corpus.COUNTING_FORM = a.counting_form
    corpus.ASIDE_PROB = a.aside_prob
    corpus.ABSENT_LETTER_PROB = a.absent_letter_prob
    corpus.INVENTED_ITEM_PROB = a.invented_item_prob
    corpus.PLAIN_SENTENCE_PROB = a.plain_sentence_prob
    corpus.phrasing.FILLER_PROB = a.filler_prob
    corpus.phrasing.FREE_LETTER_PROB = a.free_letter_prob
    # A form whose responses outgrow the default row length (the passes form) is never cut short.
    a.max_len = max(a.max_len, max(corpus.gen_length(f) for f in corpus.FAMILIES) + 64)
    corpus.ALIGNED = "" if a.aligned_arithmetic == "plain" else a.aligned_arithmetic
    C.keep_freed_memory()

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    random.seed(a.seed)
    work = a.work or os.path.join(C.WORK, f"{a.model}-{a.size}")
    os.makedirs(work, exist_ok=True)
    name = {"mdlm": "tiny-mdlm", "dream": "tiny-dream", "ar": "tiny-ar"}[a.model]
    # Exploratory runs must not overwrite tracked plots in docs/img: the default stays in the work folder.
    png = a.plot or os.path.join(work, "loss.png")

    dev = torch.device(a.device)
    if dev.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
    model, cfg = build_model(a.model, a.size, a.tie_head)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    nodecay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": a.wd},
                             {"params": nodecay, "weight_decay": 0.0}],
                            lr=a.lr, betas=(0.9, 0.95), eps=1e-8)
    lossfn = (lambda m, i, r, g: mdlm_loss(m, i, r, g, a.t_power, a.suffix_mask, a.prompt_digit_mask,
                                           a.prompt_digit_noise, a.digit_suffix, a.decode_order_mask,
                                           a.count_weight, a.comparison_mask, a.verdicts_shown,
                                           a.total_mask, a.stale_kv, a.stale_kv_states)) if diffusion else ar_loss
    data = Data(a.seed, a.batch, a.long_prob, a.max_len, workers=a.data_workers, weights=a.family_weight_map)
    vb = val_batches(4, 64, a.max_len)

    ck = os.path.join(work, "ckpt.pt")
    step, elapsed, tokens = 0, 0.0, 0
    if os.path.exists(ck) and not a.bench:
        s = C.load_checkpoint(ck)
        model.load_state_dict(s["model"])
        opt.load_state_dict(s["opt"])
        step, elapsed, tokens = s["step"], s["elapsed"], s.get("tokens", 0)
        # A resumed command need not repeat --init-from-shipped: the history of the weights it
        # started from travels in the checkpoint, so the export keeps it.
        history = (s.get("args") or {}).get("shipped_history")
        if history is not None:
            a.shipped_history = history
        say(f"resumed from {ck} at step {step} ({elapsed / 60:.1f} min)", flush=True)
    elif a.init_from:
        model.load_state_dict(C.load_checkpoint(a.init_from)["model"])
        say(f"initialised from {a.init_from}", flush=True)
    elif a.init_from_shipped:
        from grow import load_shipped
        model.load_state_dict(load_shipped(a.init_from_shipped, a.model))
        prov = os.path.join(a.init_from_shipped, "training.json")
        if os.path.exists(prov):  # the shipped model's own history carries over
            a.shipped_history = json.load(open(prov))
        say(f"initialised from the shipped weights in {a.init_from_shipped}", flush=True)
    elif a.init_from_ar:
        if a.model == "dream":  # the guider's own network: every tensor as it is
            from grow import load_shipped
            model.load_state_dict(load_shipped(a.init_from_ar, "ar"))
        else:  # LLaDA's block names (tools/train/adapt.py)
            from adapt import load_ar_as_mdlm
            model.load_state_dict(load_ar_as_mdlm(a.init_from_ar, cfg))
        prov = os.path.join(a.init_from_ar, "training.json")
        if os.path.exists(prov):  # the guider's history is where these weights began
            a.shipped_history = {"adapted_from_ar": json.load(open(prov))}
        say(f"initialised from the guider's weights in {a.init_from_ar} ({a.model} adaptation)", flush=True)
    model.to(dev)
    # The optimizer's state follows the parameters to the device.
    for st in opt.state.values():
        for k, v in st.items():
            if torch.is_tensor(v) and k != "step":
                st[k] = v.to(dev)
    if procs > 1:  # every process starts from the lead's weights (they load the same files anyway)
        for p in model.parameters():
            dist.broadcast(p.data, 0)
    say(f"{a.model}/{a.size}: {count_params(model) / 1e6:.2f}M params; {json.dumps(recorded_args(a))}", flush=True)

    csv_path = os.path.join(work, "log.csv")
    if lead and (not os.path.exists(csv_path) or step == 0):
        with open(csv_path, "w") as f:
            f.write("step,elapsed_s,lr,train_loss,train_ce,val_loss,tokens\n")
    elif lead:  # resumed: drop rows logged after the checkpoint we resume from
        lines = open(csv_path).read().splitlines()
        keep = [lines[0]] + [l for l in lines[1:] if int(l.split(",")[0]) <= step]
        with open(csv_path, "w") as f:
            f.write("\n".join(keep) + "\n")

    autocast = (lambda: torch.autocast("cuda", dtype=torch.bfloat16)) if dev.type == "cuda" else contextlib.nullcontext

    def evaluate():
        model.eval()
        g = torch.Generator().manual_seed(4321)
        tot = 0.0
        with torch.no_grad(), autocast():
            for ids, isr in vb:
                # The plain objective (uniform t), so validation losses compare across --t-power.
                tot += float((mdlm_loss if diffusion else ar_loss)(model, ids.to(dev), isr.to(dev), g)[0])
        model.train()
        return tot / len(vb)

    curve_path = os.path.join(work, "curve.csv")

    def curve_point():
        import eval_py
        model.eval()
        # In fp32, as the engine's CPU backend decodes: under bf16 autocast the first H200 run's
        # curve put the shipped model at 82 % on addition where fp32 gives 98 % on the same rows.
        fams = [f for f in a.curve_families.split(",") if f] or None
        acc = eval_py.accuracy_by_family(model, a.model, per_family=a.curve_per_family, device=dev, families=fams)
        if a.varied_wording:  # then the curve also follows the wordings training never shows
            held = eval_py.accuracy_by_family(model, a.model, per_family=a.curve_per_family, device=dev,
                                              families=fams, split="heldout_val")
            acc.update({f"heldout_{f}": v for f, v in held.items()})
        model.train()
        new = not os.path.exists(curve_path) or step == 0
        with open(curve_path, "w" if new else "a") as f:
            if new:
                f.write("step,examples_seen,elapsed_s," + ",".join(sorted(acc)) + "\n")
            f.write(f"{step},{step * a.batch * a.accum},{elapsed:.1f}," + ",".join(f"{acc[k]:.3f}" for k in sorted(acc)) + "\n")
        say("curve step", step, " ".join(f"{k} {v:.2f}" for k, v in sorted(acc.items())), flush=True)

    def checkpoint():
        sd = {k: v.detach().cpu() for k, v in model.state_dict().items()}
        s = {"model": sd, "opt": opt.state_dict(), "step": step, "elapsed": elapsed,
             "tokens": tokens, "config": cfg, "kind": a.model, "args": recorded_args(a), "hardware": hardware(a.processes)}
        torch.save(s, ck + ".tmp")
        os.replace(ck + ".tmp", ck)
        plot(csv_path, png, f"{name} ({a.model}) loss")
        if a.out:
            import export
            export.export(ck, a.out)
        say(f"checkpoint step {step} -> {ck}" + (f" (exported to {a.out})" if a.out else ""), flush=True)

    # The budget is wall time: on a GPU one curve point costs as much as thousands of steps, so a
    # budget of step time alone overran its lease (elapsed resumes from the checkpoint).
    t0, elapsed0 = time.time(), elapsed

    def wall_elapsed():
        return elapsed0 + (time.time() - t0)

    if lead and a.curve_every and step == 0 and not a.bench:
        curve_point()  # where the curve starts: the initial weights' accuracy
    model.train()
    run_loss, run_ce, last_ck = None, None, time.time()
    bench_t = []
    while step < a.steps:
        ts = time.time()
        for grp in opt.param_groups:
            grp["lr"] = lr_at(step, a, elapsed)
        if a.attention_anneal:
            model.future_share = min(1.0, step / a.attention_anneal)
        opt.zero_grad(set_to_none=True)
        loss = ce = 0.0
        seen = 0
        # Batch and masks are functions of the batch's index alone, so --accum 1 is the run it was
        # before the option existed and a resumed run draws what the uninterrupted one would.
        for index in share_of_step(data, step * a.accum, a.accum, rank, procs):
            ids, isr = data.batch(index)
            ids, isr = ids.to(dev, non_blocking=True), isr.to(dev, non_blocking=True)
            g = torch.Generator().manual_seed(a.seed * 1_000_003 + index)
            with autocast():
                part, part_ce, nm = lossfn(model, ids, isr, g)
            (part / a.accum).backward()
            loss, ce = loss + part.detach() / a.accum, ce + part_ce.detach() / a.accum
            seen += ids.numel()
        if procs > 1:  # the step's gradient is the sum of every process's share
            loss, ce, seen = all_reduce_step(model, loss, ce, seen)
        tokens += seen
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        dt = time.time() - ts
        elapsed = wall_elapsed()
        lv = float(loss)
        run_loss = lv if run_loss is None else 0.95 * run_loss + 0.05 * lv
        run_ce = float(ce) if run_ce is None else 0.95 * run_ce + 0.05 * float(ce)
        if a.bench:
            bench_t.append(dt)
            say(f"step {step} T={ids.shape[1]} {dt:.3f}s loss {lv:.3f}", flush=True)
            if step >= a.bench:
                say(f"mean step {sum(bench_t[1:]) / max(1, len(bench_t) - 1):.3f}s")
                return
            continue
        val = ""
        if lead and (step % a.val_every == 0 or step == a.steps):
            val = f"{evaluate():.4f}"
        if lead and (step % a.log_every == 0 or val):
            with open(csv_path, "a") as f:
                f.write(f"{step},{elapsed:.1f},{lr_at(step - 1, a, elapsed):.3e},{run_loss:.4f},{run_ce:.4f},{val},{tokens}\n")
            say(f"step {step}/{a.steps} loss {run_loss:.4f} ce {run_ce:.4f} val {val or '-'} "
                  f"lr {lr_at(step - 1, a, elapsed):.2e} T={ids.shape[1]} {dt:.2f}s/step elapsed {elapsed / 60:.1f}m", flush=True)
        if lead and a.curve_every and step % a.curve_every == 0:
            curve_point()
        elapsed = wall_elapsed()  # the curve point counts too
        out_of_time = a.minutes and elapsed >= 60 * a.minutes
        if lead and (time.time() - last_ck > a.ckpt_min * 60 or step == a.steps or out_of_time):
            checkpoint()
            last_ck = time.time()
        if procs > 1:  # the lead's clock drives everyone's schedule and stop
            elapsed, out_of_time = share_clock(elapsed, out_of_time)
        if out_of_time:
            say(f"wall-time budget of {a.minutes} min reached at step {step}", flush=True)
            break
    say(f"done: {step} steps, {elapsed / 60:.1f} min of wall time in all ({(time.time() - t0) / 60:.1f} in this run)")
    if procs > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
