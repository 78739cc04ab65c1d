#!/usr/bin/python3
"""Train the shared sentencepiece BPE tokenizer on the synthetic corpus (deterministic).

  /usr/bin/python3 tools/train/tokenizer.py        -> build-train/tok.model (+ tok.vocab)

Special ids (CONTROL pieces, inserted by id only): <unk>=0 <s>=1 <|endoftext|>=2 (eos/pad)
<|mask|>=3 <|eot|>=4 <|user|>=5 <|assistant|>=6, then the 256 byte pieces <0x00>..<0xFF> = 7..262,
then learned BPE pieces.  ~2.5k pieces: the templated corpus has no more merges to offer
(--hard_vocab_limit=false); the embedding has 2560 rows.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402


def main():
    os.makedirs(C.WORK, exist_ok=True)
    txt = os.path.join(C.WORK, "spm.txt")
    subprocess.check_call([sys.executable, os.path.join(C.HERE, "corpus.py"), "--write-spm", txt, "--n", "60000"])
    cmd = ["spm_train", f"--input={txt}", f"--model_prefix={os.path.join(C.WORK, 'tok')}",
           "--model_type=bpe", "--vocab_size=4096", "--hard_vocab_limit=false",
           "--character_coverage=1.0", "--split_digits=true", "--byte_fallback=true",
           "--remove_extra_whitespaces=false", "--normalization_rule_name=identity",
           "--add_dummy_prefix=false", "--unk_id=0", "--bos_id=1", "--eos_id=2", "--pad_id=-1",
           "--unk_piece=<unk>", "--bos_piece=<s>", "--eos_piece=<|endoftext|>",
           "--control_symbols=<|mask|>,<|eot|>,<|user|>,<|assistant|>",
           "--random_seed=1234", "--num_threads=1", "--input_sentence_size=0",
           "--shuffle_input_sentence=false", "--max_sentencepiece_length=16"]
    with open(os.path.join(C.WORK, "spm.log"), "w") as log:
        subprocess.check_call(cmd, stdout=log, stderr=subprocess.STDOUT)
    C._sp = None
    s = C.sp()
    print("tokenizer:", C.TOK_MODEL, "pieces:", s.get_piece_size())


if __name__ == "__main__":
    main()
