#!/usr/bin/env python3
"""An eager PyTorch implementation of the LLaDA architecture, the yardstick of the CUDA benchmark.

It reads the same checkpoint folder as dlmscope (config.json in LLaDA's schema, model.safetensors
or the shards of model.safetensors.index.json) and implements what dlmscope's backends implement:
RMSNorm, rotary embeddings in the split-half convention with fp32 angles, bidirectional attention
through torch.nn.functional.scaled_dot_product_attention, a SwiGLU FFN and an untied LM head.

Two modes:

  bench (default): times the step that `dlmscope-cli bench --section forward-cuda` times, over the
      same grid: a forward over a batch of canvases (prompt + generation, N positions), the LM head
      on the generated rows, softmax and its max / argmax (confidence and token) copied to the
      host. Median of --reps steps after --warmup (and, before the first point, --warmup-seconds of
      steps), timed with CUDA events on a GPU (wall clock on
      the CPU). Writes a JSON report to --json, or prints it.

  --logits-out FILE: the logits of every position of one canvas (--tokens), for the correctness
      check against the engine's CPU backend (tests/tools/torch_reference_test.py). Run it with
      --device cpu --dtype fp32.

The Q/K/V and gate/up projections are fused into one matrix each (as dlmscope's CUDA backend
does), so the comparison is between equally fused eager PyTorch and dlmscope; --no-fuse runs
them as separate products, as the Hugging Face LLaDA code does.
"""

import argparse
import json
import math
import mmap
import os
import statistics
import struct
import sys
import time

import torch
import torch.nn.functional as F

SAFETENSORS_DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32}
COMPUTE_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


# --- checkpoint ---------------------------------------------------------------------------------

def read_config(folder):
    with open(os.path.join(folder, "config.json")) as f:
        c = json.load(f)
    if c.get("model_type") != "llada" and "LLaDAModelLM" not in c.get("architectures", []):
        sys.exit(f"torch_llada_reference: {folder} is not a LLaDA checkpoint "
                 f"(model_type {c.get('model_type')!r})")
    for key, want in (("block_type", "llama"), ("layer_norm_type", "rms"), ("activation_type", "silu"),
                      ("rope", True), ("alibi", False), ("include_bias", False), ("weight_tying", False)):
        if key in c and c[key] != want:
            sys.exit(f"torch_llada_reference: unsupported {key} = {c[key]!r} (implemented: {want!r})")
    d = c["d_model"]
    n_heads = c["n_heads"]
    return {
        "d_model": d,
        "n_layers": c["n_layers"],
        "n_heads": n_heads,
        "n_kv_heads": c.get("n_kv_heads") or n_heads,
        "head_dim": c.get("head_dim") or d // n_heads,
        "d_ff": c.get("mlp_hidden_size") or c["mlp_ratio"] * d,
        "vocab_size": c.get("embedding_size") or c["vocab_size"],
        "max_seq_len": c["max_sequence_length"],
        "rope_theta": float(c.get("rope_theta", 10000.0)),
        "rms_eps": float(c.get("rms_norm_eps", 1e-5)),
        "qkv_bias": bool(c.get("include_qkv_bias", False)),
        "mask_token_id": c.get("mask_token_id", 126336),
    }


def shard_files(folder):
    index = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index) as f:
            weight_map = json.load(f)["weight_map"]
        return sorted({os.path.join(folder, s) for s in weight_map.values()})
    single = os.path.join(folder, "model.safetensors")
    if os.path.exists(single):
        return [single]
    sys.exit(f"torch_llada_reference: no model.safetensors or index in {folder}")


def read_safetensors(path, device, dtype):
    """name -> tensor on `device` in `dtype`. Parses the file itself (8-byte little-endian header
    length, JSON header, raw little-endian data) rather than importing the safetensors package:
    one code path, the one the CPU test exercises, wherever it runs."""
    out = {}
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_len))
        # Copy-on-write mapping: writable for torch.frombuffer, nothing is written back.
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    base = 8 + header_len
    for name, info in header.items():
        if name == "__metadata__":
            continue
        src = SAFETENSORS_DTYPES[info["dtype"]]
        begin, end = info["data_offsets"]
        count = (end - begin) // torch.tensor([], dtype=src).element_size()
        t = torch.frombuffer(data, dtype=src, count=count, offset=base + begin).reshape(info["shape"])
        out[name] = t.to(device=device, dtype=dtype)
    return out


def load_weights(folder, device, dtype):
    tensors = {}
    for path in shard_files(folder):
        tensors.update(read_safetensors(path, device, dtype))
    return tensors


# --- model ---------------------------------------------------------------------------------------

def attention_math(q, k, v):
    """softmax(q kᵀ / sqrt(hd)) v: what SDPA computes, for PyTorch < 2.0 (Debian 12 ships 1.13,
    which the CPU correctness test runs on). Never used where SDPA exists."""
    scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


ATTENTION = getattr(F, "scaled_dot_product_attention", None) or attention_math
ATTENTION_NAME = ("torch.nn.functional.scaled_dot_product_attention (PyTorch picks the kernel)"
                  if ATTENTION is not attention_math else "explicit softmax(q k^T / sqrt(d)) v (PyTorch < 2.0)")


class Llada:
    def __init__(self, cfg, tensors, dtype, device, fuse=True):
        self.cfg = cfg
        self.dtype = dtype
        self.fuse = fuse
        root = "model.transformer."
        self.embed = tensors.pop(root + "wte.weight")
        self.head = tensors.pop(root + "ff_out.weight")
        self.final_norm = tensors.pop(root + "ln_f.weight").float()
        self.layers = []
        for i in range(cfg["n_layers"]):
            p = f"{root}blocks.{i}."
            take = lambda n: tensors.pop(p + n)  # noqa: E731
            layer = {"attn_norm": take("attn_norm.weight").float(), "ff_norm": take("ff_norm.weight").float(),
                     "wo": take("attn_out.weight"), "down": take("ff_out.weight")}
            q, k, v = take("q_proj.weight"), take("k_proj.weight"), take("v_proj.weight")
            gate, up = take("ff_proj.weight"), take("up_proj.weight")
            biases = [tensors.pop(p + n + "_proj.bias", None) for n in ("q", "k", "v")] if cfg["qkv_bias"] else None
            if fuse:
                layer["wqkv"] = torch.cat([q, k, v], 0)
                layer["bqkv"] = torch.cat(biases, 0) if biases else None
                layer["wgu"] = torch.cat([gate, up], 0)
            else:
                layer.update(wq=q, wk=k, wv=v, gate=gate, up=up)
                layer["bq"], layer["bk"], layer["bv"] = biases if biases else (None, None, None)
            self.layers.append(layer)
        unused = sorted(tensors)
        if unused:
            sys.exit(f"torch_llada_reference: unexpected tensors {unused[:3]}...")
        # RoPE tables as dlmscope builds them: inv_freq in double rounded to fp32, angle = fp32
        # position x fp32 inv_freq, cos/sin in double rounded to fp32.
        hd = cfg["head_dim"]
        inv = (1.0 / torch.pow(torch.tensor(cfg["rope_theta"], dtype=torch.float64),
                               torch.arange(0, hd // 2, dtype=torch.float64) * 2.0 / hd)).float()
        pos = torch.arange(cfg["max_seq_len"], dtype=torch.float32)
        angle = (pos[:, None] * inv[None, :]).double()
        self.cos = angle.cos().float().to(device)
        self.sin = angle.sin().float().to(device)

    def rms(self, x, weight):
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.cfg["rms_eps"])
        return (xf * weight).to(self.dtype)

    def rope(self, x):
        # x [B, heads, N, hd]; rotate_half pairs element i with i + hd/2. In fp32 (rope_full_precision).
        n, half = x.shape[2], x.shape[3] // 2
        cos, sin = self.cos[:n], self.sin[:n]
        xf = x.float()
        a, b = xf[..., :half], xf[..., half:]
        return torch.cat([a * cos - b * sin, b * cos + a * sin], -1).to(self.dtype)

    def forward(self, tokens, head_from):
        """Logits [B, N - head_from, V] of canvases `tokens` [B, N]: every position is computed,
        the LM head sees positions head_from.. only."""
        c = self.cfg
        B, N = tokens.shape
        H, Hkv, hd = c["n_heads"], c["n_kv_heads"], c["head_dim"]
        x = self.embed[tokens]
        for L in self.layers:
            h = self.rms(x, L["attn_norm"])
            if self.fuse:
                qkv = F.linear(h, L["wqkv"], L["bqkv"])
                q, k, v = qkv.split([H * hd, Hkv * hd, Hkv * hd], -1)
            else:
                q, k, v = F.linear(h, L["wq"], L["bq"]), F.linear(h, L["wk"], L["bk"]), F.linear(h, L["wv"], L["bv"])
            q = self.rope(q.view(B, N, H, hd).transpose(1, 2))
            k = self.rope(k.view(B, N, Hkv, hd).transpose(1, 2))
            v = v.view(B, N, Hkv, hd).transpose(1, 2)
            if Hkv != H:
                k = k.repeat_interleave(H // Hkv, dim=1)
                v = v.repeat_interleave(H // Hkv, dim=1)
            a = ATTENTION(q, k, v)  # bidirectional: no mask
            x = x + F.linear(a.transpose(1, 2).reshape(B, N, H * hd), L["wo"])
            h = self.rms(x, L["ff_norm"])
            if self.fuse:
                g, u = F.linear(h, L["wgu"]).chunk(2, -1)
            else:
                g, u = F.linear(h, L["gate"]), F.linear(h, L["up"])
            x = x + F.linear(F.silu(g) * u, L["down"])
        x = self.rms(x[:, head_from:], self.final_norm)
        return F.linear(x, self.head)


def step(model, tokens, prompt_len):
    """One denoising step as dlmscope's bench times it: forward, softmax over the vocabulary of
    the generated rows, their confidence (max) and token (argmax) copied to the host."""
    logits = model.forward(tokens, prompt_len)
    conf, token = torch.softmax(logits, dim=-1, dtype=torch.float32).max(-1)
    return conf.cpu(), token.cpu()


# --- modes --------------------------------------------------------------------------------------

def int_list(text):
    return [int(w) for w in text.split(",") if w]


def canvases(cfg, n, prompt_len, batch, seed, device):
    g = torch.Generator().manual_seed(seed * 1000003 + n * 131 + batch)
    mask = cfg["mask_token_id"]
    t = torch.full((batch, n), mask, dtype=torch.long)
    prompt = torch.randint(0, cfg["vocab_size"], (batch, prompt_len), generator=g)
    prompt[prompt == mask] = (mask + 1) % cfg["vocab_size"]
    t[:, :prompt_len] = prompt
    return t.to(device)


def bench(model, cfg, args, device):
    use_events = device.type == "cuda"
    points = []
    # Before the first measured point the device runs steps for a while: an idle GPU's clocks, its
    # lazily loaded kernels and the libraries' first-use choices otherwise land in that point (the
    # first H200 run measured N = 320, batch 1 slower than N = 576 after two warm-up steps).
    if args.warmup_seconds > 0:
        first = canvases(cfg, int_list(args.lengths)[0], args.prompt_len, int_list(args.batch)[0], args.seed, device)
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.warmup_seconds:
            step(model, first, args.prompt_len)
            if device.type == "cuda":
                torch.cuda.synchronize()
    for n in int_list(args.lengths):
        if n <= args.prompt_len or n > cfg["max_seq_len"]:
            sys.exit(f"torch_llada_reference: length {n} must exceed the prompt ({args.prompt_len}) "
                     f"and fit the context ({cfg['max_seq_len']})")
        for batch in int_list(args.batch):
            tokens = canvases(cfg, n, args.prompt_len, batch, args.seed, device)
            for _ in range(args.warmup):
                step(model, tokens, args.prompt_len)
            times = []
            for _ in range(args.reps):
                if use_events:
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    start.record()
                    step(model, tokens, args.prompt_len)
                    end.record()
                    end.synchronize()
                    times.append(start.elapsed_time(end))
                else:
                    t0 = time.perf_counter()
                    step(model, tokens, args.prompt_len)
                    times.append((time.perf_counter() - t0) * 1e3)
            ms = statistics.median(times)
            print(f"torch: N = {n}, batch {batch}: {ms:.2f} ms per step", file=sys.stderr, flush=True)
            points.append({"n": n, "prompt": args.prompt_len, "gen": n - args.prompt_len, "batch": batch,
                           "dense": {"ms": ms, "ms_min": min(times)}})
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
    else:
        name = "CPU (" + str(torch.get_num_threads()) + " threads)"
    return {
        "schema": "dlmscope-torch-bench/1",
        "device": name,
        "torch": torch.__version__,
        "dtype": args.dtype,
        "fused_projections": not args.no_fuse,
        "attention": ATTENTION_NAME,
        "timing": "CUDA events" if use_events else "wall clock",
        "model": {k: cfg[k] for k in ("d_model", "n_layers", "n_heads", "n_kv_heads", "d_ff", "vocab_size")},
        "prompt_len": args.prompt_len,
        "reps": args.reps,
        "warmup": args.warmup,
        "warmup_seconds": args.warmup_seconds,
        "points": points,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="checkpoint folder (config.json + safetensors)")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--dtype", default="bf16", choices=sorted(COMPUTE_DTYPES))
    ap.add_argument("--lengths", default="320,576,1088", help="canvas lengths N = prompt + generation")
    ap.add_argument("--prompt-len", type=int, default=64)
    ap.add_argument("--batch", default="1,4", help="batch sizes")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps before each point")
    ap.add_argument("--warmup-seconds", type=float, default=2.0,
                    help="seconds of untimed steps before the first point (0: none)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-fuse", action="store_true", help="separate Q/K/V and gate/up products")
    ap.add_argument("--json", help="also write the bench report here")
    ap.add_argument("--logits-out", help="write the logits of --tokens to this JSON file instead of timing")
    ap.add_argument("--tokens", help="comma-separated canvas for --logits-out")
    args = ap.parse_args()
    if args.reps < 1 or args.warmup < 0 or args.warmup_seconds < 0:
        sys.exit("torch_llada_reference: --reps must be >= 1, --warmup and --warmup-seconds >= 0")

    device = torch.device(args.device)
    dtype = COMPUTE_DTYPES[args.dtype]
    torch.manual_seed(args.seed)
    cfg = read_config(args.model)
    t0 = time.perf_counter()
    model = Llada(cfg, load_weights(args.model, device, dtype), dtype, device, fuse=not args.no_fuse)
    print(f"torch: loaded {args.model} to {device} as {args.dtype} in {time.perf_counter() - t0:.1f} s",
          file=sys.stderr, flush=True)

    with torch.inference_mode():
        if args.logits_out:
            if not args.tokens:
                sys.exit("torch_llada_reference: --logits-out needs --tokens")
            tokens = torch.tensor([int_list(args.tokens)], dtype=torch.long, device=device)
            logits = model.forward(tokens, 0)[0].float().cpu()
            with open(args.logits_out, "w") as f:
                json.dump({"tokens": int_list(args.tokens), "logits": logits.tolist()}, f)
            return
        report = bench(model, cfg, args, device)
    text = json.dumps(report, indent=2)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
        print(f"torch: wrote {args.json}", file=sys.stderr)
    else:
        print(text)


if __name__ == "__main__":
    main()
