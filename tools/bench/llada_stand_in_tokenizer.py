#!/usr/bin/env python3
"""Write a stand-in tokenizer.json for a random-weight LLaDA-8B folder (memory and speed benchmarks).

LLaDA-8B publishes only a tokenizer.json, which is not available offline. The benchmarks need a
tokenizer that fits LLaDA's 126,464 embedding rows and knows its special tokens, so this builds one
from the published Llama-3 tokenizer.json (fetched by tools/fetch_test_vocabularies.py): its byte-level
BPE vocabulary cut to the ids below LLaDA's first added token (126,080), the merges whose parts and
result survive the cut, and LLaDA's added tokens (ids 126,080..126,348, from its
tokenizer_config.json). English text tokenizes as Llama-3 tokenizes it; the ids are not LLaDA's.

  python3 tools/bench/llada_stand_in_tokenizer.py LLAMA3_TOKENIZER_JSON LLADA_TOKENIZER_CONFIG OUT_DIR
"""
import json
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, config_path, out_dir = sys.argv[1:]
    tok = json.load(open(src, encoding="utf-8"))
    config = json.load(open(config_path, encoding="utf-8"))
    added = {int(k): v for k, v in config["added_tokens_decoder"].items()}
    first_added = min(added)
    vocab = {piece: i for piece, i in tok["model"]["vocab"].items() if i < first_added}
    merges = []
    for m in tok["model"]["merges"]:
        a, b = m.split(" ", 1) if isinstance(m, str) else m
        if a in vocab and b in vocab and a + b in vocab:
            merges.append(m)
    tok["model"]["vocab"] = vocab
    tok["model"]["merges"] = merges
    tok["added_tokens"] = [dict(id=i, content=v["content"], single_word=v.get("single_word", False),
                                lstrip=v.get("lstrip", False), rstrip=v.get("rstrip", False),
                                normalized=v.get("normalized", False), special=v.get("special", True))
                           for i, v in sorted(added.items())]
    tok["post_processor"] = None  # LLaDA's template writes <|startoftext|> itself (add_bos_token false)
    with open(f"{out_dir}/tokenizer.json", "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)
    print(f"{out_dir}/tokenizer.json: {len(vocab)} pieces, {len(merges)} merges, {len(added)} added tokens")


if __name__ == "__main__":
    main()
