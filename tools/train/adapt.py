#!/usr/bin/python3
"""Start an MDLM from the causal guider's weights (AR-to-diffusion adaptation).

  /usr/bin/python3 tools/train/train.py --model mdlm --size adapted --init-from-ar resources/models/tiny-ar ...

Why: on the same corpus the causal guider learns to read a question and to add the numbers of
its own worked lines far faster per step than an MDLM trained from scratch (docs/models.md).
Dream 7B (arXiv 2508.15487) and DiffuLLaMA ("Scaling Diffusion Language Models via Adaptation
from Autoregressive Models", arXiv 2410.17891) start their MDLMs from AR weights for the same
reason. Both keep the AR's shifted head (row i - 1 predicts token i); this adaptation keeps the
LLaDA head (row i predicts token i), so that every strategy of the engine, WINO's shadow block
included, runs on the result. Training has to learn that one-position move; everything below the
head (embeddings, the attention that finds operands, the MLPs that add) starts where the guider is.

The mapping is one to one: mdlm_config("adapted") is the guider's shape written as a LLaDA config
(GQA, q/k/v biases, tied head, the guider's norm eps), and every tensor is copied unchanged.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

# Qwen2 tensor name (after "model.layers.N.") -> LLaDA block tensor name
LAYER_NAMES = {
    "input_layernorm.weight": "attn_norm.weight",
    "self_attn.q_proj.weight": "q_proj.weight", "self_attn.q_proj.bias": "q_proj.bias",
    "self_attn.k_proj.weight": "k_proj.weight", "self_attn.k_proj.bias": "k_proj.bias",
    "self_attn.v_proj.weight": "v_proj.weight", "self_attn.v_proj.bias": "v_proj.bias",
    "self_attn.o_proj.weight": "attn_out.weight",
    "post_attention_layernorm.weight": "ff_norm.weight",
    "mlp.gate_proj.weight": "ff_proj.weight",
    "mlp.up_proj.weight": "up_proj.weight",
    "mlp.down_proj.weight": "ff_out.weight",
}


def check_shapes(ar_cfg, mdlm_cfg):
    pairs = [("hidden_size", "d_model"), ("num_hidden_layers", "n_layers"), ("num_attention_heads", "n_heads"),
             ("num_key_value_heads", "n_kv_heads"), ("intermediate_size", "mlp_hidden_size"),
             ("vocab_size", "embedding_size")]
    bad = [f"{a}={ar_cfg.get(a)} vs {m}={mdlm_cfg.get(m)}" for a, m in pairs if ar_cfg.get(a) != mdlm_cfg.get(m)]
    if not ar_cfg.get("tie_word_embeddings") or not mdlm_cfg.get("weight_tying"):
        bad.append("both models must tie the LM head to the embeddings")
    if not mdlm_cfg.get("include_qkv_bias"):
        bad.append("the MDLM config must have include_qkv_bias (the guider has q/k/v biases)")
    if bad:
        raise ValueError("the guider's shape does not match the MDLM config: " + "; ".join(bad))


def adapt_ar_to_mdlm(ar_sd, ar_cfg, mdlm_cfg):
    """ar_sd: the guider's tensors by their checkpoint names; returns the LLaDA module's state dict."""
    check_shapes(ar_cfg, mdlm_cfg)
    out = {}
    for k, w in ar_sd.items():
        if k == "model.embed_tokens.weight":
            out["transformer.wte.weight"] = w.clone()
        elif k == "model.norm.weight":
            out["transformer.ln_f.weight"] = w.clone()
        elif k.startswith("model.layers."):
            n, rest = k[len("model.layers."):].split(".", 1)
            out[f"transformer.blocks.{n}.{LAYER_NAMES[rest]}"] = w.clone()
        else:
            raise ValueError(f"unexpected tensor in the guider: {k}")
    return out


def load_ar_as_mdlm(folder, mdlm_cfg):
    import json
    ar_cfg = json.load(open(os.path.join(folder, "config.json")))
    if ar_cfg.get("model_type") != "qwen2":
        raise ValueError(f"{folder} is not a qwen2 (causal guider) model folder")
    sd = {k: v.float() for k, v in C.load_safetensors(os.path.join(folder, "model.safetensors")).items()}
    return adapt_ar_to_mdlm(sd, ar_cfg, mdlm_cfg)
