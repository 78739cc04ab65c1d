"""PyTorch models for the dlmscope tiny models, written from the LLaDA and Qwen2
published descriptions (LLaDA and Qwen2).

* LLaDA  (family "llada"): bidirectional, SwiGLU (ff_out(silu(ff_proj(h)) * up_proj(h))),
  RMSNorm weight-only, RoPE split-half in fp32. Row i of the logits predicts token i.
  LLaDA-8B's own settings are MHA, no biases and an untied LM head; the config's n_kv_heads,
  include_qkv_bias and weight_tying (all in LLaDA's published config schema) select GQA, q/k/v
  biases and a tied head, the shape of an MDLM adapted from the Qwen2 guider.
* Qwen2 (family "qwen2"): causal, GQA, q/k/v bias, o_proj no bias, SwiGLU
  (down(silu(gate(h)) * up(h))), RMSNorm eps 1e-6, tied embeddings. Row i predicts i+1.
* Dream (family "Dream", "Dream 7B: Diffusion Large Language Models", arXiv 2508.15487): the
  Qwen2 network with bidirectional attention, an MDLM whose head keeps the AR shift (row i - 1
  predicts masked token i), so the guider's weights start it unchanged.

Parameter names of the nn.Modules are chosen so that state_dict() keys equal the
HF checkpoint tensor names (with the "model." prefix added by export).
"""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        dt = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x.to(dt) * self.weight


def rope_cache(n, head_dim, theta, device=None):
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32, device=device) / head_dim))
    t = torch.arange(n, dtype=torch.float32, device=device)
    f = torch.outer(t, inv)                      # [n, hd/2]
    emb = torch.cat([f, f], dim=-1)              # [n, hd]  (frequencies written twice)
    return emb.cos(), emb.sin()


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


def apply_rope(x, cos, sin):
    # x [B, H, N, hd]; computed in fp32
    dt = x.dtype
    x = x.float()
    return (x * cos + rotate_half(x) * sin).to(dt)


def attention(q, k, v, causal, key_mask=None, allow=None):
    # q [B,H,N,hd], k/v [B,H,N,hd] (kv already repeated for GQA); key_mask [B,N] bool, False for
    # columns no row may see (the padding after a shorter canvas in a batch), or None; allow
    # [N,N] bool, False where row i may not see column j (the causal-to-bidirectional anneal)
    if q.is_cuda:  # fused kernel on the GPU; the CPU keeps the explicit form the goldens were made with
        m = None if key_mask is None else key_mask[:, None, None, :]
        if allow is not None:
            m = allow[None, None] if m is None else (m & allow[None, None])
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal and m is None)
    hd = q.shape[-1]
    s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(hd)
    if key_mask is not None:
        s = s.masked_fill(~key_mask[:, None, None, :], float("-inf"))
    if allow is not None:
        s = s.masked_fill(~allow[None, None], float("-inf"))
    if causal:
        n = q.shape[-2]
        m = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
        s = s.masked_fill(m, float("-inf"))
    p = torch.softmax(s.float(), dim=-1).to(q.dtype)
    return torch.matmul(p, v)


# ------------------------------------------------------------------ LLaDA
class LLaDABlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, ff = c["d_model"], c["mlp_hidden_size"]
        self.nh = c["n_heads"]
        self.nkv = c.get("n_kv_heads") or self.nh
        hd = d // self.nh
        bias = bool(c.get("include_qkv_bias"))
        self.attn_norm = RMSNorm(d, c["rms_norm_eps"])
        self.q_proj = nn.Linear(d, d, bias=bias)
        self.k_proj = nn.Linear(d, self.nkv * hd, bias=bias)
        self.v_proj = nn.Linear(d, self.nkv * hd, bias=bias)
        self.attn_out = nn.Linear(d, d, bias=False)
        self.ff_norm = RMSNorm(d, c["rms_norm_eps"])
        self.ff_proj = nn.Linear(d, ff, bias=False)
        self.up_proj = nn.Linear(d, ff, bias=False)
        self.ff_out = nn.Linear(ff, d, bias=False)

    def forward(self, x, cos, sin, key_mask=None, capture=None, stale=None):
        """capture: a list this layer's K/V (after RoPE) are appended to; stale: (k, v, where) with
        where [B, N] bool: those columns' K/V are replaced by the given ones, as an engine's cache
        serves a SureLock-locked position its K/V from the step it locked."""
        B, N, D = x.shape
        hd = D // self.nh
        h = self.attn_norm(x)
        q = self.q_proj(h).view(B, N, self.nh, hd).transpose(1, 2)
        k = self.k_proj(h).view(B, N, self.nkv, hd).transpose(1, 2)
        v = self.v_proj(h).view(B, N, self.nkv, hd).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if capture is not None:
            capture.append((k.detach(), v.detach()))
        if stale is not None:
            k_old, v_old, where = stale
            w = where[:, None, :, None]
            k, v = torch.where(w, k_old, k), torch.where(w, v_old, v)
        if self.nkv != self.nh:  # grouped-query attention: head h reads key/value head h // (nh / nkv)
            k = k.repeat_interleave(self.nh // self.nkv, dim=1)
            v = v.repeat_interleave(self.nh // self.nkv, dim=1)
        a = attention(q, k, v, causal=False, key_mask=key_mask).transpose(1, 2).reshape(B, N, D)
        x = x + self.attn_out(a)
        h = self.ff_norm(x)
        return x + self.ff_out(F.silu(self.ff_proj(h)) * self.up_proj(h))


class LLaDATransformer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.wte = nn.Embedding(c["embedding_size"], c["d_model"])
        self.blocks = nn.ModuleList([LLaDABlock(c) for _ in range(c["n_layers"])])
        self.ln_f = RMSNorm(c["d_model"], c["rms_norm_eps"])
        if not c.get("weight_tying"):  # tied: the LM head is wte
            self.ff_out = nn.Linear(c["d_model"], c["embedding_size"], bias=False)


class LLaDA(nn.Module):
    """state_dict keys: transformer.wte.weight, transformer.blocks.N.q_proj.weight, ..."""
    causal = False
    shifted_logits = False

    def __init__(self, c):
        super().__init__()
        self.c = c
        self.transformer = LLaDATransformer(c)
        self.reset_parameters()

    def reset_parameters(self):
        std = 0.02
        L = self.c["n_layers"]
        for n, p in self.named_parameters():
            if n.endswith("bias"):
                nn.init.zeros_(p)
            elif p.dim() == 1:
                nn.init.ones_(p)
            elif n.endswith("attn_out.weight") or (".blocks." in n and n.endswith(".ff_out.weight")):
                nn.init.normal_(p, 0, std / math.sqrt(2 * L))
            else:
                nn.init.normal_(p, 0, std)

    def hidden(self, ids, key_mask=None, capture=None, stale=None):
        """key_mask [B, N] bool: False hides a column from every row (canvases of several lengths
        right-padded into one batch; the positions of the real tokens are unchanged).
        capture: a list that receives every layer's (K, V); stale: (that list, where [B, N] bool):
        the columns of `where` attend with those K/V instead of their own (LLaDABlock.forward)."""
        t = self.transformer
        x = t.wte(ids)
        hd = self.c["d_model"] // self.c["n_heads"]
        cos, sin = rope_cache(ids.shape[1], hd, self.c["rope_theta"], ids.device)
        for i, b in enumerate(t.blocks):
            layer_stale = None if stale is None else (*stale[0][i], stale[1])
            x = b(x, cos, sin, key_mask, capture, layer_stale)
        return t.ln_f(x)

    def head(self, h):
        if self.c.get("weight_tying"):
            return F.linear(h, self.transformer.wte.weight)
        return self.transformer.ff_out(h)

    def forward(self, ids, key_mask=None):
        return self.head(self.hidden(ids, key_mask))


# ------------------------------------------------------------------ Qwen2
class Qwen2Attn(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["hidden_size"]
        self.nh, self.nkv = c["num_attention_heads"], c["num_key_value_heads"]
        self.hd = d // self.nh
        self.q_proj = nn.Linear(d, self.nh * self.hd, bias=True)
        self.k_proj = nn.Linear(d, self.nkv * self.hd, bias=True)
        self.v_proj = nn.Linear(d, self.nkv * self.hd, bias=True)
        self.o_proj = nn.Linear(self.nh * self.hd, d, bias=False)

    def forward(self, h, cos, sin, causal=True, key_mask=None, allow=None):
        B, N, _ = h.shape
        q = self.q_proj(h).view(B, N, self.nh, self.hd).transpose(1, 2)
        k = self.k_proj(h).view(B, N, self.nkv, self.hd).transpose(1, 2)
        v = self.v_proj(h).view(B, N, self.nkv, self.hd).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        rep = self.nh // self.nkv
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        a = attention(q, k, v, causal, key_mask, allow).transpose(1, 2).reshape(B, N, self.nh * self.hd)
        return self.o_proj(a)


class Qwen2MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, ff = c["hidden_size"], c["intermediate_size"]
        self.gate_proj = nn.Linear(d, ff, bias=False)
        self.up_proj = nn.Linear(d, ff, bias=False)
        self.down_proj = nn.Linear(ff, d, bias=False)

    def forward(self, h):
        return self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


class Qwen2Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.self_attn = Qwen2Attn(c)
        self.post_attention_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.mlp = Qwen2MLP(c)

    def forward(self, x, cos, sin, causal=True, key_mask=None, allow=None):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, causal, key_mask, allow)
        return x + self.mlp(self.post_attention_layernorm(x))


class Qwen2Inner(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList([Qwen2Layer(c) for _ in range(c["num_hidden_layers"])])
        self.norm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])


class Qwen2(nn.Module):
    """state_dict keys: model.embed_tokens.weight, model.layers.N...., model.norm.weight (tied head)."""
    causal = True
    shifted_logits = True  # as an AR: row i predicts token i + 1

    def __init__(self, c):
        super().__init__()
        self.c = c
        self.model = Qwen2Inner(c)
        std = 0.02
        L = c["num_hidden_layers"]
        for n, p in self.named_parameters():
            if n.endswith("bias"):
                nn.init.zeros_(p)
            elif p.dim() == 1:
                nn.init.ones_(p)
            elif n.endswith("o_proj.weight") or n.endswith("down_proj.weight"):
                nn.init.normal_(p, 0, std / math.sqrt(2 * L))
            else:
                nn.init.normal_(p, 0, std)

    def hidden(self, ids, key_mask=None, allow=None):
        """key_mask [B, N] bool, as LLaDA.hidden's; allow [N, N] bool, the columns each row may
        see while a Dream adaptation anneals from causal to bidirectional (Dream only)."""
        m = self.model
        x = m.embed_tokens(ids)
        hd = self.c["hidden_size"] // self.c["num_attention_heads"]
        cos, sin = rope_cache(ids.shape[1], hd, self.c["rope_theta"], ids.device)
        for l in m.layers:
            x = l(x, cos, sin, self.causal, key_mask, allow)
        return m.norm(x)

    def head(self, h):
        return F.linear(h, self.model.embed_tokens.weight)

    def forward(self, ids, key_mask=None):
        return self.head(self.hidden(ids, key_mask))


class Dream(Qwen2):
    """The Qwen2 network read bidirectionally: Dream's MDLM. Same tensors and names, so the
    guider's exported weights load unchanged (AR-to-diffusion adaptation, as Dream 7B starts
    from Qwen2.5 7B). Row i - 1 predicts token i (shifted logits)."""
    causal = False


def count_params(m):
    return sum(p.numel() for p in m.parameters())
