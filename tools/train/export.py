#!/usr/bin/python3
"""Export a training checkpoint to a shipped model folder (HF layout, BF16 safetensors).

  /usr/bin/python3 tools/train/export.py --ckpt build-train/mdlm-base/ckpt.pt --out resources/models/tiny-mdlm
  /usr/bin/python3 tools/train/export.py --ckpt build-train/ar-base/ckpt.pt   --out resources/models/tiny-ar

Writes model.safetensors (LLaDA / Qwen2 tensor names; a Dream MDLM has the Qwen2 ones), config.json,
tokenizer.model, tokenizer_config.json, special_tokens_map.json, training.json (provenance) and, for
a Dream MDLM, generation_config.json (its sampler's defaults).
Then regenerates golden.json (tools/train/golden.py) from the exported weights.
"""
import argparse
import json
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

DTYPE = torch.bfloat16


def tensors_for(kind, sd, cfg):
    out = {}
    if kind == "mdlm":
        # module keys are transformer.* ; HF LLaDAModelLM adds the "model." prefix
        order = ["transformer.wte.weight"]
        for n in range(cfg["n_layers"]):
            for k in ["attn_norm", "q_proj", "k_proj", "v_proj", "attn_out", "ff_norm", "ff_proj", "up_proj", "ff_out"]:
                order.append(f"transformer.blocks.{n}.{k}.weight")
                if cfg.get("include_qkv_bias") and k in ("q_proj", "k_proj", "v_proj"):
                    order.append(f"transformer.blocks.{n}.{k}.bias")
        order += ["transformer.ln_f.weight"]
        if not cfg.get("weight_tying"):  # tied: the head is wte, no tensor of its own
            order += ["transformer.ff_out.weight"]
        assert set(order) == set(sd.keys()), set(order) ^ set(sd.keys())
        for k in order:
            out["model." + k] = sd[k].to(DTYPE)
    else:  # the guider, or a Dream MDLM of its shape: the same tensors
        order = ["model.embed_tokens.weight"]
        for n in range(cfg["num_hidden_layers"]):
            p = f"model.layers.{n}."
            order += [p + "input_layernorm.weight"]
            for k in "qkv":
                order += [p + f"self_attn.{k}_proj.weight", p + f"self_attn.{k}_proj.bias"]
            order += [p + "self_attn.o_proj.weight", p + "post_attention_layernorm.weight",
                      p + "mlp.gate_proj.weight", p + "mlp.up_proj.weight", p + "mlp.down_proj.weight"]
        order += ["model.norm.weight"]
        assert set(order) == set(sd.keys()), set(order) ^ set(sd.keys())
        for k in order:  # tied embeddings: no lm_head.weight
            out[k] = sd[k].to(DTYPE)
    return out


def tokenizer_files(out, kind):
    dst = os.path.join(out, "tokenizer.model")
    if not (os.path.exists(dst) and os.path.samefile(C.TOK_MODEL, dst)):
        shutil.copyfile(C.TOK_MODEL, dst)
    tc = {
        "tokenizer_class": "LlamaTokenizer", "model_file": "tokenizer.model",
        "add_bos_token": False, "add_eos_token": False, "add_dummy_prefix": False,
        "bos_token": "<s>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
        "unk_token": "<unk>", "mask_token": "<|mask|>", "eot_token": "<|eot|>",
        "additional_special_tokens": ["<|mask|>", "<|eot|>", "<|user|>", "<|assistant|>"],
        "special_token_ids": dict(C.SPECIAL),
        # The training layout as a Jinja chat template (transformers renders it; the engine
        # recognises this text and renders the same layout with special tokens by id).
        "chat_template": (
            "{{ bos_token }}{% set ns = namespace(system='') %}{% for message in messages %}"
            "{% if message['role'] == 'system' %}{% set ns.system = ns.system + message['content'] + '\\n' %}"
            "{% elif message['role'] == 'user' %}{{ '<|user|>\\n' + ns.system + message['content'] + '<|eot|>' }}{% set ns.system = '' %}"
            "{% elif message['role'] == 'assistant' %}{{ '<|assistant|>\\n' + message['content'] + '<|eot|>' }}{% endif %}{% endfor %}"
            "{% if ns.system %}{{ '<|user|>\\n' + ns.system[:-1] + '<|eot|>' }}{% endif %}"
            "{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}"),
        "chat_template_note": ("special tokens are inserted by id (they are CONTROL pieces); the text between "
                               "them is encoded with sentencepiece as one string per segment. The response is "
                               "followed by <|eot|> and then <|endoftext|> repeated to the end of the canvas."),
        "model_max_length": 1024,
    }
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump(tc, f, indent=2)
    with open(os.path.join(out, "special_tokens_map.json"), "w") as f:
        json.dump({"bos_token": "<s>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
                   "unk_token": "<unk>", "mask_token": "<|mask|>",
                   "additional_special_tokens": ["<|mask|>", "<|eot|>", "<|user|>", "<|assistant|>"]}, f, indent=2)


def export(ckpt, out, golden=True):
    s = C.load_checkpoint(ckpt)
    kind, cfg = s["kind"], s["config"]
    os.makedirs(out, exist_ok=True)
    ts = tensors_for(kind, s["model"], cfg)
    meta = {"format": "pt", "dlmscope_step": s["step"], "dlmscope_kind": kind}
    C.save_safetensors(os.path.join(out, "model.safetensors"), ts, meta)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    tokenizer_files(out, kind)
    if kind == "dream":
        # Dream's published generation config fields. Its default alg ("origin") unmasks positions in
        # random order; this model was trained for confidence order, Dream's "maskgit_plus" (the
        # top probability, as LLaDA's low-confidence remasking). No "steps": one per position.
        with open(os.path.join(out, "generation_config.json"), "w") as f:
            json.dump({"alg": "maskgit_plus", "alg_temp": 0.0, "temperature": 0.0, "eps": 0.001,
                       "bos_token_id": C.BOS, "eos_token_id": C.EOS, "pad_token_id": C.PAD,
                       "mask_token_id": C.MASK}, f, indent=2)
    prov = {"step": s["step"], "train_minutes": round(s["elapsed"] / 60, 1), "tokens_seen": s.get("tokens", 0),
            "args": s["args"], "hardware": s["hardware"], "params": sum(v.numel() for v in s["model"].values()),
            "storage_dtype": "BF16",
            # The longest sequence (prompt + canvas) training used: the engine warns past it.
            "trained_sequence_length": s["args"]["max_len"]}
    init = (s.get("args") or {}).get("init_from")
    if init and os.path.exists(init):  # grown model (tools/train/grow.py): keep stage 1's provenance
        prov["grown_from"] = C.load_checkpoint(init).get("grown_from")
        if isinstance(prov["grown_from"], dict) and "train_minutes" in prov["grown_from"]:
            prov["total_train_minutes"] = round(prov["train_minutes"] + prov["grown_from"]["train_minutes"], 1)
    with open(os.path.join(out, "training.json"), "w") as f:
        json.dump(prov, f, indent=2)
    if golden:
        import golden as G
        G.write_golden(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--no-golden", action="store_true")
    a = ap.parse_args()
    export(a.ckpt, a.out, golden=not a.no_golden)
    print("exported", a.ckpt, "->", a.out)


if __name__ == "__main__":
    main()
