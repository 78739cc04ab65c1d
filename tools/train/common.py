"""Shared bits: token ids, chat template encoding, model configs, safetensors I/O."""
import json
import os
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(ROOT, "build-train")
# The tokenizer trained by tools/train/tokenizer.py; where it was not trained here (a fresh clone,
# a GPU machine), the identical copy shipped with the embedded model.
TOK_MODEL = os.path.join(WORK, "tok.model")
if not os.path.exists(TOK_MODEL):
    TOK_MODEL = os.path.join(ROOT, "resources", "models", "tiny-mdlm", "tokenizer.model")

# Special ids (fixed by the spm_train flags in tokenizer.py; checked at load time)
UNK, BOS, EOS, MASK, EOT, USER, ASSISTANT = 0, 1, 2, 3, 4, 5, 6
PAD = EOS
SPECIAL = {"<unk>": UNK, "<s>": BOS, "<|endoftext|>": EOS, "<|mask|>": MASK, "<|eot|>": EOT,
           "<|user|>": USER, "<|assistant|>": ASSISTANT}
EMBED_ROWS = 2560  # tokenizer has fewer pieces; rows beyond it are never produced

_sp = None


def keep_freed_memory():
    """Let glibc keep freed blocks instead of returning them to the kernel. PyTorch frees and
    re-allocates the same activation-sized buffers every step; by default each one above the
    mmap threshold is a fresh mmap that the kernel zero-fills page by page, which cost a third of
    a training step's time on the CPU (as system time)."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
        libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)  # glibc's largest
        libc.mallopt(M_TRIM_THRESHOLD, 1 << 30)
        libc.mallopt(M_TOP_PAD, 256 << 20)
    except (OSError, AttributeError):
        pass  # not glibc: nothing to tune


def sp(path=None):
    global _sp
    if _sp is None:
        import sentencepiece as spm
        _sp = spm.SentencePieceProcessor(model_file=path or TOK_MODEL)
        for s, i in SPECIAL.items():
            assert _sp.piece_to_id(s) == i, (s, i, _sp.piece_to_id(s))
        nl = _sp.encode("\n")
        assert len(nl) == 1, nl
    return _sp


def nl_id():
    return sp().encode("\n")[0]


def encode_prompt(prompt):
    """<s><|user|>\\n{prompt}<|eot|><|assistant|>\\n   (text pieces via spm, specials by id).
    The text segments are "\\n"+prompt and "\\n" (after <|assistant|>); spm is run on each
    segment as one string (add_dummy_prefix is off, so Encode("\\n"+x) == [<0x0A>] + Encode(x))."""
    return [BOS, USER] + sp().encode("\n" + prompt) + [EOT, ASSISTANT] + sp().encode("\n")


def encode_response(resp):
    """response tokens followed by <|eot|>; the caller pads with <|endoftext|>."""
    return sp().encode(resp) + [EOT]


def decode(ids):
    # An untrained model samples ids past the SentencePiece vocabulary (the embedding table is
    # rounded up): they stand for no text, and sentencepiece refuses them.
    n = sp().get_piece_size()
    return sp().decode([i for i in ids if ASSISTANT < i < n])


def load_checkpoint(path):
    """One of train.py's own checkpoints. They hold the run's arguments and provenance (plain
    Python objects, torch's version among them), which PyTorch >= 2.6 refuses to unpickle by
    default; these files are written by this project, so a full load is safe."""
    import torch
    return torch.load(path, map_location="cpu", weights_only=False)


# ------------------------------------------------------------ configs
def mdlm_config(size="base"):
    # compact: 2.2 M, the size a 2-core CPU trains to its goals in hours; base: the 12.6 M model; medium: 6.4 M with half the FLOPs per token (a one-thread
    # decode about twice as fast), a size to train from scratch where compute is plentiful.
    # adapted: the guider's (tiny-ar "base") shape, so its weights carry over one to one
    # (tools/train/adapt.py): GQA, q/k/v biases, tied head, its norm eps.
    if size == "adapted":
        a = ar_config("base")
        c = mdlm_config("compact")
        c.update({"d_model": a["hidden_size"], "n_layers": a["num_hidden_layers"],
                  "n_heads": a["num_attention_heads"], "n_kv_heads": a["num_key_value_heads"],
                  "mlp_hidden_size": a["intermediate_size"], "include_qkv_bias": True,
                  "weight_tying": True, "rms_norm_eps": a["rms_norm_eps"]})
        return c
    d, L, H, ff = {"base": (384, 6, 6, 1024), "medium": (256, 6, 4, 768), "small": (192, 6, 3, 512),
                   "compact": (128, 6, 2, 512),
                   "tiny": (128, 2, 2, 256)}[size]
    return {
        "architectures": ["LLaDAModelLM"], "model_type": "llada",
        "d_model": d, "n_layers": L, "n_heads": H, "n_kv_heads": H,
        "mlp_hidden_size": ff, "mlp_ratio": 4,
        "vocab_size": EMBED_ROWS, "embedding_size": EMBED_ROWS,
        "max_sequence_length": 1024,
        "rope": True, "rope_theta": 10000.0, "rope_full_precision": True,
        "layer_norm_type": "rms", "rms_norm_eps": 1e-5, "layer_norm_with_affine": True,
        "bias_for_layer_norm": False, "attention_layer_norm": False,
        "include_bias": False, "include_qkv_bias": False, "weight_tying": False,
        "block_type": "llama", "activation_type": "silu", "alibi": False,
        "input_emb_norm": False, "scale_logits": False, "flash_attention": False,
        "multi_query_attention": None,
        "attention_dropout": 0.0, "residual_dropout": 0.0, "embedding_dropout": 0.0,
        "init_device": "cpu", "precision": "amp_bf16", "torch_dtype": "bfloat16",
        "mask_token_id": MASK, "eos_token_id": EOS, "pad_token_id": PAD, "bos_token_id": BOS,
        "eot_token_id": EOT, "user_token_id": USER, "assistant_token_id": ASSISTANT,
        "unk_token_id": UNK,
        "chat_template_kind": "dlmscope-tiny",
    }


MDLM_SIZES = ("compact", "small", "medium", "base", "tiny", "adapted")


def mdlm_size_of(config):
    """The preset name of an MDLM config (e.g. a shipped model's), or None."""
    for size in MDLM_SIZES:
        c = mdlm_config(size)
        if all(c[k] == config.get(k) for k in ("d_model", "n_layers", "n_heads", "n_kv_heads", "mlp_hidden_size")):
            return size
    return None


def ar_config(size="base"):
    d, L, H, KV, ff = {"base": (192, 6, 4, 2, 640), "small": (192, 6, 4, 2, 512), "tiny": (128, 2, 2, 1, 256)}[size]
    return {
        "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
        "hidden_size": d, "intermediate_size": ff, "num_hidden_layers": L,
        "num_attention_heads": H, "num_key_value_heads": KV, "vocab_size": EMBED_ROWS,
        "max_position_embeddings": 1024, "max_window_layers": L, "rms_norm_eps": 1e-6,
        "rope_theta": 10000.0, "rope_scaling": None, "tie_word_embeddings": True,
        "use_sliding_window": False, "sliding_window": None, "attention_dropout": 0.0,
        "hidden_act": "silu", "initializer_range": 0.02, "use_cache": True,
        "torch_dtype": "bfloat16",
        "bos_token_id": BOS, "eos_token_id": EOS, "pad_token_id": PAD, "eot_token_id": EOT,
        "user_token_id": USER, "assistant_token_id": ASSISTANT, "mask_token_id": MASK,
        "unk_token_id": UNK, "chat_template_kind": "dlmscope-tiny",
    }


def dream_config(size="base"):
    """A Dream-family MDLM of the guider's shape (ar_config(size)): the same network and tensor
    names, read bidirectionally with shifted logits; Dream's published config names the family."""
    c = ar_config(size)
    c.update({"architectures": ["DreamModel"], "model_type": "Dream", "use_cache": False})
    return c


# ------------------------------------------------------------ safetensors
_DT = {torch.bfloat16: "BF16", torch.float16: "F16", torch.float32: "F32"}
_DT_INV = {v: k for k, v in _DT.items()}


def save_safetensors(path, tensors, metadata=None):
    """tensors: ordered dict name -> tensor. Written by hand (no safetensors module)."""
    header, blobs, off = {}, [], 0
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        t = t.detach().contiguous().cpu()
        # raw little-endian bytes via a uint8 view (works for bf16, which numpy lacks)
        b = t.view(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": _DT[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    hj = json.dumps(header, separators=(",", ":")).encode()
    hj += b" " * ((8 - len(hj) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hj)))
        f.write(hj)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def safetensors_metadata(path):
    """The header's __metadata__ (format, step, kind), which load_safetensors leaves out."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return dict(json.loads(f.read(n)).get("__metadata__") or {})


def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        a, b = h["data_offsets"]
        dt = _DT_INV[h["dtype"]]
        buf = bytearray(data[a:b])
        t = torch.frombuffer(buf, dtype=torch.uint8) if len(buf) else torch.empty(0, dtype=torch.uint8)
        out[name] = t.view(dt).reshape(h["shape"]).clone()
    return out
