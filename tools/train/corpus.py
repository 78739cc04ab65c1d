#!/usr/bin/env python3
"""Deterministic, seeded generator of chat-formatted training examples for the
dlmscope tiny models.

Every example is a dict {"family", "prompt", "response", "answer", "tpl"}.
Every response ends with a final line "#### <answer>" (GSM8K style).

Splits
------
* train / val / test are separated by a hash of the example's *content key*
  (the numbers / word list that define the problem, independent of the wording),
  so a test problem never appears in training under any template.
* "heldout" uses prompt templates that are never used for train/val/test
  (the last template(s) of every family's list), over test-bucket content keys.

Families: addition (2-3 digit, the goal family), addition4, subtraction,
word_problem, sorting, counting (scored); story (free text), multiplication,
running_sum and repeat (the question's words written back), trained, not scored.

Usage:
  corpus.py --write-eval resources/eval      # test.jsonl + heldout.jsonl
  corpus.py --write-spm out.txt --n 40000      # text for spm_train
"""
import argparse
import hashlib
import json
import os
import random

import phrasing

# ---------------------------------------------------------------- vocab lists
NAMES = ["Tom", "Mia", "Sam", "Lily", "Ben", "Anna", "Leo", "Emma", "Noah", "Zoe",
         "Jack", "Lucy", "Omar", "Nina", "Ravi", "Sara", "Ivan", "Maya", "Eli", "Rosa",
         "Kai", "Ella", "Finn", "Ada", "Hugo", "Iris", "Max", "Vera", "Theo", "Luna",
         "Jon", "Kim", "Paul", "Tara", "Dan", "Amy", "Raj", "Lea", "Ali", "Eva"]
PRONOUN = {}
for i, n in enumerate(NAMES):
    PRONOUN[n] = "He" if n in ("Tom", "Sam", "Ben", "Leo", "Noah", "Jack", "Omar", "Ravi",
                                "Ivan", "Eli", "Kai", "Finn", "Hugo", "Max", "Theo", "Jon",
                                "Paul", "Dan", "Raj", "Ali") else "She"
STORES = ["bookstore", "market", "bakery", "toy shop", "farm stand", "school shop",
          "hardware store", "flower shop", "grocery store", "corner shop", "fair", "mall"]
ITEMS = [  # (singular, plural, price range)
    ("book", "books", (5, 30)), ("pen", "pens", (1, 5)), ("notebook", "notebooks", (2, 9)),
    ("apple", "apples", (1, 3)), ("cake", "cakes", (8, 25)), ("toy car", "toy cars", (3, 15)),
    ("ball", "balls", (2, 12)), ("shirt", "shirts", (10, 40)), ("hat", "hats", (6, 20)),
    ("lamp", "lamps", (15, 45)), ("plant", "plants", (4, 18)), ("mug", "mugs", (3, 11)),
    ("candle", "candles", (2, 9)), ("puzzle", "puzzles", (7, 24)), ("kite", "kites", (5, 16)),
    ("pie", "pies", (6, 14)), ("bag of rice", "bags of rice", (3, 12)), ("map", "maps", (2, 8)),
    ("ticket", "tickets", (5, 50)), ("comic", "comics", (2, 7)), ("basket", "baskets", (6, 22)),
    ("sandwich", "sandwiches", (4, 9)), ("rose", "roses", (1, 6)), ("battery", "batteries", (1, 4)),
    ("hammer", "hammers", (9, 30)), ("bottle of juice", "bottles of juice", (2, 5)),
    ("game", "games", (12, 60)), ("scarf", "scarves", (8, 26)), ("cookie", "cookies", (1, 3)),
    ("brush", "brushes", (2, 10)),
]
PLACES = ["park", "forest", "village", "beach", "castle", "garden", "library", "river",
          "mountain", "city", "school", "farm", "harbor", "desert", "island", "museum"]
ANIMALS = ["dog", "cat", "fox", "owl", "rabbit", "horse", "bird", "turtle", "bear", "duck",
           "goat", "frog", "mouse", "lion", "whale", "bee"]
OBJECTS = ["kite", "map", "key", "lantern", "book", "ball", "shell", "coin", "box", "ring",
           "letter", "hat", "drum", "boat", "clock", "flower"]
ADJS = ["small", "old", "shiny", "red", "quiet", "happy", "brave", "tiny", "lost", "golden",
        "green", "strange", "bright", "sleepy", "clever", "kind"]
WEATHER = ["sunny", "rainy", "windy", "cold", "warm", "cloudy", "snowy", "foggy"]
TIMES = ["One morning", "One day", "Last summer", "On a " + "sunny afternoon", "Early one evening",
         "Once upon a time", "On Saturday", "Long ago", "One night", "Yesterday"]
WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "big", "red", "ball", "we", "ran",
         "to", "park", "and", "played", "sun", "is", "hot", "today", "my", "friend", "likes",
         "green", "apples", "she", "reads", "books", "every", "night", "birds", "sing", "in",
         "trees", "he", "drew", "picture", "of", "blue", "sea", "they", "walked", "home",
         "slowly", "rain", "fell", "all", "day", "fish", "swim", "fast", "river", "cold",
         "milk", "tastes", "good", "kids", "jump", "high", "old", "man", "sold", "bread",
         "small", "boat", "sails", "far", "away", "stars", "shine", "bright", "at", "moon",
         "rises", "late", "our", "garden", "has", "roses", "lamp", "was", "broken", "bell",
         "rang", "twice", "cook", "made", "soup", "window", "open", "wind", "blew", "hard"]

# ---------------------------------------------------------------- helpers
def h32(s):
    return int(hashlib.sha256(s.encode()).hexdigest()[:8], 16)


def bucket_of(family, key):
    """Content-key bucket: 0-4 test, 5-7 val, 8-99 train."""
    b = h32(family + "|" + key) % 100
    if b < 5:
        return "test"
    if b < 8:
        return "val"
    return "train"


def fmt_list(xs):
    return ", ".join(str(x) for x in xs)


def and_list(xs):
    xs = [str(x) for x in xs]
    if len(xs) == 1:
        return xs[0]
    return ", ".join(xs[:-1]) + " and " + xs[-1]


# ---------------------------------------------------------------- families
# Each family: (keygen(rng) -> (key, params), templates (list of fn params->prompt),
#               n_heldout templates at the end, render(params, rng) -> (response, answer))

def column_add(a, b):
    da, db = str(a)[::-1], str(b)[::-1]
    n = max(len(da), len(db))
    names = ["Ones", "Tens", "Hundreds", "Thousands"]
    carry, parts = 0, []
    for i in range(n):
        x = int(da[i]) if i < len(da) else 0
        y = int(db[i]) if i < len(db) else 0
        s = x + y + carry
        terms = f"{x} + {y}" + (f" + {carry}" if carry else "")
        nc = s // 10
        if nc:
            parts.append(f"{names[i]}: {terms} = {s}, write {s % 10} carry 1.")
        else:
            parts.append(f"{names[i]}: {terms} = {s}, write {s}.")
        carry = nc
    if carry:
        parts.append("Then write the final carry 1.")
    return " ".join(parts)


def column_sub(a, b):
    da, db = str(a)[::-1], str(b)[::-1]
    names = ["Ones", "Tens", "Hundreds", "Thousands"]
    borrow, parts = 0, []
    for i in range(len(da)):
        x = int(da[i]) - borrow
        y = int(db[i]) if i < len(db) else 0
        if x < y:
            parts.append(f"{names[i]}: {x + 10} - {y} = {x + 10 - y}, borrow 1.")
            borrow = 1
        else:
            parts.append(f"{names[i]}: {x} - {y} = {x - y}.")
            borrow = 0
    return " ".join(parts)


ADD_TPL = [
    lambda p: f"What is {p['a']} + {p['b']}?",
    lambda p: f"Compute {p['a']} + {p['b']}.",
    lambda p: f"Add {p['a']} and {p['b']}.",
    lambda p: f"What is the sum of {p['a']} and {p['b']}?",
    lambda p: f"Calculate {p['a']} plus {p['b']}.",
    lambda p: f"{p['a']} + {p['b']} = ?",
    lambda p: f"Please find {p['a']} + {p['b']}.",
    lambda p: f"How much is {p['a']} plus {p['b']}?",
    # held-out
    lambda p: f"If you add {p['b']} to {p['a']}, what number do you get?",
    lambda p: f"Work out the total of {p['a']} and {p['b']}.",
]
SUB_TPL = [
    lambda p: f"What is {p['a']} - {p['b']}?",
    lambda p: f"Compute {p['a']} - {p['b']}.",
    lambda p: f"Subtract {p['b']} from {p['a']}.",
    lambda p: f"What is {p['a']} minus {p['b']}?",
    lambda p: f"Calculate the difference {p['a']} - {p['b']}.",
    lambda p: f"{p['a']} - {p['b']} = ?",
    # held-out
    lambda p: f"Take {p['b']} away from {p['a']}. What is left?",
    lambda p: f"How much bigger is {p['a']} than {p['b']}?",
]


# The column-by-column style (with carries) is four times longer than "a + b = c"; off by default
# because on a CPU budget the short form reaches exact sums in fewer examples.
COLUMN_STYLE = False
# Column-aligned worked lines: operands zero-padded to the same width and the result to the width
# it can reach ("023 + 516 = 0539"), so every digit's place is fixed by the prompt alone. A masked
# diffusion model fills all positions at once and cannot shift later tokens when a carry adds a
# digit; with the plain form it must guess the result's length before it knows the carry.
# "" = plain; "max" = the wider operand's width; "fixed" = the family's widest operand (3 for
# addition, 4 for addition4 and subtraction, 2 for multiplication), so every digit's place is
# the same in every example of a family.
ALIGNED = ""
# Share of training questions worded by phrasing.py instead of a fixed template (0 = the templates
# only, the stream the first stages were trained on).
VARIED_WORDING = 0.0
# How a word problem's arithmetic is written. "sentences": inside the item sentences
# ("..., so she spent 7 * $27 = $189.") and one running-total line. "lines": every product and
# every two-term sum on a line of its own, in exactly the form of the multiplication and addition4
# families ("7 * 27 = 189", "0048 + 0189 = 00237"), so the skills those families teach apply
# unchanged, at the same relative offsets, inside a word problem.
WORD_PROBLEM_FORM = "sentences"
# How a sorted list is written. "plain": as the numbers are ("3, 17, 25"). "columns": the prompt's
# numbers copied first, then sorted, every number zero-padded to three digits ("003, 017, 025"), so
# the k-th number of a list always sits at the same place (see ALIGNED); the final line is plain.
# "ranked": the columns form with each copied number's place in the sorted order after it
# ("037 (2), 048 (3), 023 (1)"): the sorted line's k-th number is then the copy labelled k, a lookup
# by content, and the comparison of every pair moves into the labels, one token each. Ties take
# their place in the list.
# "passes": the copy line, then odd-even transposition sort written out, one line per pass
# ("Pass 1: 048 037 076 023"): pass k compares the neighbours (0,1), (2,3), … when k is odd and
# (1,2), (3,4), … when even, and n passes sort n numbers. Every digit then follows from two
# numbers at fixed places in the line above (a comparison in columns, as the column arithmetic),
# and no step looks a number up by its content. The answer line is the last pass, unpadded.
SORTING_FORM = "plain"
# How a letter count is written. "words": each word with its count of the letter ("bell (1)"); a
# word is one token, so every (word, letter) count has to be memorised from the rows that ask it.
# "spelled": each word followed by its letters, one token each ("bell: b e l l (1)"), so the count
# compares the asked letter with the tokens right before it and only one spelling per word is
# memorised, which every letter question about that word trains.
# "echoed": the spelled form whose first line writes the asked letter as a spelled letter ("for the
# letter g:"): the question's "g" and a spelled " g" are different tokens, so in the spelled form the
# comparison also has to learn which of them go together; here it is one copy at the head of the
# response, and every comparison after it is between equal tokens.
# "marked": the echoed form with each spelled letter that is the asked one in capitals
# ("dog: d o G (1)"): the comparison becomes a token of its own at every letter, trained directly,
# and the word's count counts the capitals before it. (U and Q are two tokens in capitals, one in
# lower case, so a marked u or q lengthens the line by one.)
# "starred": the echoed form with a star after each spelled letter that is the asked one
# ("dog: d o g* (1)"): the comparison gets a token of its own as in the marked form, but the letter
# it compares is the one already written before it, so the star needs no spelling recalled at its
# own position, only two tokens compared (the letter before it and the one echoed at the head).
# "paired": the echoed form with each spelled letter followed by a copy of the asked letter and a
# verdict, "one" where they are the same letter and "no" where not ("dog: d g no o g no g g one (1)"):
# the verdict compares the two tokens right before it, equal tokens at fixed places (as the passes
# sorting form compares numbers in columns), rather than a letter with one echoed far away, and a
# word's count counts its "one"s. Three tokens a letter: the counting canvas grows to 160.
COUNTING_FORM = "words"
# train.py --absent-letter-prob: the share of letter counts that ask a letter their words do not
# have, drawn before the usual choice. The usual draws answer "1" two times in three and "0" one in
# ten, a prior a count can follow instead of its letters; 0 (no draw at all) keeps the committed
# eval files and every recipe trained before it.
ABSENT_LETTER_PROB = 0.0
# train.py --plain-sentence-prob: the share of word counts whose sentence is written as a letter
# count's text is, in lower case without the final period. Otherwise the case and the period alone
# tell the two apart, and a model reads them instead of the question: asked for the number of
# words in "the cat sat on a warm mat", tiny-mdlm counted a letter (in "The cat sat on a warm mat."
# it counted the words). 0 (no draw at all) keeps the committed eval files and every recipe
# trained before it.
PLAIN_SENTENCE_PROB = 0.0
# The spelled forms, each with how it writes a spelled letter c of a word when ch is asked.
SPELLED_MARKS = {"spelled": lambda c, ch: c, "echoed": lambda c, ch: c,
                 "marked": lambda c, ch: c.upper() if c == ch else c,
                 "starred": lambda c, ch: c + "*" if c == ch else c,
                 "paired": lambda c, ch: f"{c} {ch} {PAIRED_VERDICTS[c == ch]}"}
# The paired form's verdicts, one token each after a space ("yes" would be three).
PAIRED_VERDICTS = {True: "one", False: "no"}
# The forms that write the asked letter back as a spelled one at the head of the response.
ECHOED_FORMS = ("echoed", "marked", "starred", "paired")


def aligned(x, width):
    return str(x).zfill(width) if ALIGNED else str(x)


def add_render(p, rng, op="+", family_width=4):
    a, b = p["a"], p["b"]
    c = a + b if op == "+" else a - b
    if p["style"] == 1 and COLUMN_STYLE:
        col = column_add(a, b) if op == "+" else column_sub(a, b)
        resp = f"Work column by column. {col}\nSo {a} {op} {b} = {c}."
    else:
        # One short form: a model that must first choose among wordings learns the sum later,
        # and the copied operands sit right before the digits they produce.
        w = family_width if ALIGNED == "fixed" else max(len(str(a)), len(str(b)))
        resp = f"{aligned(a, w)} {op} {aligned(b, w)} = {aligned(c, w + 1 if op == '+' else w)}"
    return resp + f"\n#### {c}", str(c)


def rand_ndigit(rng, lo_d, hi_d):
    d = rng.randint(lo_d, hi_d)
    return rng.randint(10 ** (d - 1), 10 ** d - 1)


def add_key(rng):
    a, b = rand_ndigit(rng, 2, 3), rand_ndigit(rng, 2, 3)
    return f"{a}+{b}", {"a": a, "b": b, "style": rng.choice([0, 0, 0, 1, 2])}


def add4_key(rng):
    a = rand_ndigit(rng, 4, 4)
    b = rand_ndigit(rng, 2, 4)
    if rng.random() < 0.5:
        a, b = b, a
    return f"{a}+{b}", {"a": a, "b": b, "style": rng.choice([0, 0, 0, 1, 2])}


def sub_key(rng):
    a, b = rand_ndigit(rng, 2, 4), rand_ndigit(rng, 2, 4)
    if a < b:
        a, b = b, a
    return f"{a}-{b}", {"a": a, "b": b, "style": rng.choice([0, 0, 0, 1, 2])}


# multiplication: a one-digit quantity times a price-sized number, the product every word-problem
# line computes ("7 * $27 = $189"). Trained as a skill of its own; not one of the scored families.
MUL_TPL = [
    lambda p: f"What is {p['a']} * {p['b']}?",
    lambda p: f"Compute {p['a']} times {p['b']}.",
    lambda p: f"{p['a']} * {p['b']} = ?",
    lambda p: f"How much is {p['a']} times {p['b']}?",
    lambda p: f"Multiply {p['a']} by {p['b']}.",
    # held-out
    lambda p: f"What is the product of {p['a']} and {p['b']}?",
    lambda p: f"If one costs ${p['b']}, what do {p['a']} cost in dollars?",
]


def mul_key(rng):
    a, b = rng.randint(1, 9), rng.randint(1, 99)
    return f"{a}*{b}", {"a": a, "b": b}


def mul_render(p, rng):
    c = p["a"] * p["b"]
    w = 2 if ALIGNED == "fixed" else len(str(p["b"]))
    return f"{p['a']} * {aligned(p['b'], w)} = {aligned(c, w + 1)}\n#### {c}", str(c)


# running sums: three or four numbers of a word problem's sizes, added two at a time. The first
# operand of every line after the first exists only in the response (the previous line's result),
# so the sum must be read off the line. The addition families alone let a model compute from the
# prompt's copy of the operands instead, and that skill does not carry to a word problem's total.
RSUM_TPL = [
    lambda p: f"What is {' + '.join(str(x) for x in p['xs'])}?",
    lambda p: f"Compute {' + '.join(str(x) for x in p['xs'])}.",
    lambda p: f"Add {and_list(p['xs'])}.",
    lambda p: f"What is the sum of {and_list(p['xs'])}?",
    lambda p: f"Find the sum of {fmt_list(p['xs'])}.",
    # held-out
    lambda p: f"Total these numbers: {fmt_list(p['xs'])}.",
]


def rsum_key(rng):
    xs = [rng.randint(1, rng.choice([9, 99, 540])) for _ in range(rng.choice([3, 3, 4]))]
    return "+".join(str(x) for x in xs), {"xs": xs}


def rsum_render(p, rng):
    run, lines = p["xs"][0], []
    for x in p["xs"][1:]:
        lines.append(add_render({"a": run, "b": x, "style": 0}, None, "+", 4)[0].split("\n")[0])
        run += x
    return "\n".join(lines) + f"\n#### {run}", str(run)


# word problems
WP_TPL = [
    lambda p: f"{p['name']} went to the {p['store']}. {p['pr']} bought {p['items_q']}. How much did {p['pl']} spend in total?",
    lambda p: f"At the {p['store']}, {p['name']} bought {p['items_q']}. How much money did {p['pl']} spend?",
    lambda p: f"{p['name']} buys {p['items_q']} at the {p['store']}. What is the total cost?",
    lambda p: f"{p['name']} is shopping at the {p['store']} and gets {p['items_q']}. How many dollars does {p['pl']} pay altogether?",
    lambda p: f"How much does {p['name']} pay for {p['items_q']}?",
    # held-out
    lambda p: f"{p['name']} spent a day at the {p['store']} and came home with {p['items_q']}. What was the total bill in dollars?",
    lambda p: f"Find the total price: {p['name']} purchased {p['items_q']}.",
]


# train.py --invented-item-prob: the share of word problems in which each item is, with probability
# one half (at least one of them), a word made up on the spot at a price drawn from 1 to 30 ("3
# dobelas at $7 each"). With thirty fixed items a small model ties an item's word to its price
# range and writes a known item for one it does not know ("3 juices at $2 each" worked as "3
# scarves at $22 each"): an invented word can only be copied, its price only read from the
# question. 0 (no draw at all) keeps the committed eval files and every recipe trained before it.
INVENTED_ITEM_PROB = 0.0
INVENTED_ONSETS = list("bcdfghklmnprstvz") + ["br", "dr", "gl", "pl", "st", "tr"]
INVENTED_VOWELS = list("aeiou")


def invented_item(rng):
    """A made-up item word and its plural, two or three syllables, never a held-out or paraphrase
    word (phrasing.HELD_OUT_PHRASES lists those) nor a word the corpus already uses."""
    while True:
        word = "".join(rng.choice(INVENTED_ONSETS) + rng.choice(INVENTED_VOWELS) for _ in range(rng.randint(2, 3)))
        if rng.random() < 0.5:
            word += rng.choice("lmnrt")
        plural = word + ("es" if word.endswith("s") else "s")
        if word not in KNOWN_WORDS and plural not in KNOWN_WORDS and phrasing.held_out_free(f"{word} {plural}"):
            return word, plural


def wp_key(rng):
    k = rng.choice([1, 2, 2, 3, 3, 4])
    its = rng.sample(range(len(ITEMS)), k)
    invented = INVENTED_ITEM_PROB and rng.random() < INVENTED_ITEM_PROB
    if invented:
        made_up = [rng.random() < 0.5 for _ in its]
        made_up[rng.randrange(k)] = True
    rows = []
    for n, i in enumerate(its):
        sing, plur, (lo, hi) = ITEMS[i]
        if invented and made_up[n]:
            (sing, plur), (lo, hi) = invented_item(rng), (1, 30)
        q = rng.randint(1, 9)
        pr = rng.randint(lo, hi)
        rows.append((sing, plur, q, pr))
    name = rng.choice(NAMES)
    store = rng.choice(STORES)
    key = ";".join(f"{r[0]}:{r[2]}x{r[3]}" for r in rows)
    return key, {"rows": rows, "name": name, "store": store}


def wp_prep(p):
    phr = []
    for sing, plur, q, pr in p["rows"]:
        w = sing if q == 1 else plur
        phr.append(f"{q} {w} at ${pr} each")
    p = dict(p)
    p["items_q"] = and_list(phr)
    p["pr"] = PRONOUN[p["name"]]
    p["pl"] = p["pr"].lower()
    return p


def wp_items(p):
    """(quantity, item word, price, product) of each row of a word problem."""
    return [(q, sing if q == 1 else plur, price, q * price) for sing, plur, q, price in p["rows"]]


def wp_render(p, rng):
    if WORD_PROBLEM_FORM == "lines":
        return wp_render_lines(p)
    pr = PRONOUN[p["name"]]
    lines, totals = [], []
    for q, w, price, t in wp_items(p):
        totals.append(t)
        # With fixed columns: the price in 2 digits, the product in 3 (9 * $60 = $540).
        lines.append(f"{pr} bought {q} {w} at ${price} each, so {pr.lower()} spent "
                     f"{q} * ${aligned(price, 2 if ALIGNED == 'fixed' else 0)} = ${aligned(t, 3 if ALIGNED == 'fixed' else 0)}.")
    tot = sum(totals)
    if len(totals) == 1:
        lines.append(f"The total cost is ${tot}.")
    else:
        # A running total, one two-term sum at a time: the same skill as the addition family,
        # where a sum of four terms at once would be a skill of its own.
        run, sums = totals[0], []
        w = 4 if ALIGNED == "fixed" else 0  # the running total reaches 4 * $540
        for t in totals[1:]:
            sums.append(f"${aligned(run, w)} + ${aligned(t, w)} = ${aligned(run + t, w)}")
            run += t
        lines.append("The total cost is " + ", ".join(sums) + ".")
    return "\n".join(lines) + f"\n#### {tot}", str(tot)


def wp_render_lines(p):
    """Every product and every running-total step on a line of its own, in the multiplication and
    addition4 families' fixed columns: a word problem is then those families' lines in a story."""
    pr = PRONOUN[p["name"]]
    lines, totals = [], []
    for q, w, price, t in wp_items(p):
        totals.append(t)
        lines.append(f"{pr} bought {q} {w} at ${price} each.")
        lines.append(mul_render({"a": q, "b": price}, None)[0].split("\n")[0])
    tot = sum(totals)
    if len(totals) > 1:
        lines.append("The total cost is:")
        run = totals[0]
        for t in totals[1:]:
            lines.append(add_render({"a": run, "b": t, "style": 0}, None, "+", 4)[0].split("\n")[0])
            run += t
    return "\n".join(lines) + f"\n#### {tot}", str(tot)


# sorting
SORT_TPL = [
    lambda p: f"Sort these numbers in {p['ord']} order: {fmt_list(p['xs'])}.",
    lambda p: f"Put the numbers {fmt_list(p['xs'])} in {p['ord']} order.",
    lambda p: f"Arrange in {p['ord']} order: {fmt_list(p['xs'])}",
    lambda p: f"Order the list {fmt_list(p['xs'])} from {'smallest to largest' if p['ord'] == 'ascending' else 'largest to smallest'}.",
    lambda p: f"Please sort {fmt_list(p['xs'])} in {p['ord']} order.",
    # held-out
    lambda p: f"Here is a list: {fmt_list(p['xs'])}. Rewrite it sorted in {p['ord']} order.",
    lambda p: f"Can you list {fmt_list(p['xs'])} in {p['ord']} order?",
]


def sort_key(rng):
    n = rng.randint(3, 8)
    hi = rng.choice([9, 99, 99, 999])
    xs = [rng.randint(0, hi) for _ in range(n)]
    order = rng.choice(["ascending", "descending"])
    return f"{order}:{fmt_list(xs)}", {"xs": xs, "ord": order}


def sort_ranks(xs, descending):
    """Each number's 1-based place in the sorted order; equal numbers in their order in the list."""
    order = sorted(range(len(xs)), key=lambda i: (-xs[i] if descending else xs[i], i))
    ranks = [0] * len(xs)
    for k, i in enumerate(order):
        ranks[i] = k + 1
    return ranks


def transposition_pass(xs, k, descending):
    """xs after pass k (1-based) of odd-even transposition sort: an odd pass compares the
    neighbours (0,1), (2,3), ..., an even one (1,2), (3,4), ..."""
    cur = list(xs)
    for i in range((k - 1) % 2, len(cur) - 1, 2):
        if (cur[i] < cur[i + 1]) if descending else (cur[i] > cur[i + 1]):
            cur[i], cur[i + 1] = cur[i + 1], cur[i]
    return cur


def transposition_passes(xs, descending):
    """The list after each pass of odd-even transposition sort (len(xs) passes; the last is sorted)."""
    cur, out = list(xs), []
    for k in range(1, len(xs) + 1):
        cur = transposition_pass(cur, k, descending)
        out.append(cur)
    return out


def sort_render(p, rng):
    descending = p["ord"] == "descending"
    ys = sorted(p["xs"], reverse=descending)
    ans = fmt_list(ys)
    if SORTING_FORM == "passes":
        padded = lambda row: " ".join(f"{x:03d}" for x in row)  # noqa: E731
        lines = [f"The numbers are {padded(p['xs'])}."]
        lines += [f"Pass {k + 1}: {padded(row)}" for k, row in enumerate(transposition_passes(p["xs"], descending))]
        return "\n".join(lines) + f"\n#### {ans}", ans
    if SORTING_FORM in ("columns", "ranked"):
        labels = ([f" ({k})" for k in sort_ranks(p["xs"], descending)] if SORTING_FORM == "ranked"
                  else [""] * len(p["xs"]))
        copy = ", ".join(f"{x:03d}{label}" for x, label in zip(p["xs"], labels))
        return (f"The numbers are {copy}.\nIn {p['ord']} order: {', '.join(f'{y:03d}' for y in ys)}.\n#### {ans}"), ans
    return f"In {p['ord']} order the numbers are {ans}.\n#### {ans}", ans


# counting
CNT_TPL_W = [
    lambda p: f"How many words are in the sentence \"{p['sent']}\"?",
    lambda p: f"Count the words in: \"{p['sent']}\"",
    lambda p: f"Count the number of words in \"{p['sent']}\".",
    # held-out
    lambda p: f"Tell me the word count of \"{p['sent']}\".",
]
CNT_TPL_L = [
    lambda p: f"How many times does the letter \"{p['ch']}\" appear in \"{p['sent']}\"?",
    lambda p: f"Count the letter \"{p['ch']}\" in: \"{p['sent']}\"",
    lambda p: f"In the text \"{p['sent']}\", how many \"{p['ch']}\" letters are there?",
    # held-out
    lambda p: f"Find how often \"{p['ch']}\" occurs in \"{p['sent']}\".",
]
CNT_TPL = [  # dispatch on mode; template index selects within mode (same count both)
    lambda p: (CNT_TPL_W if p["mode"] == "w" else CNT_TPL_L)[0](p),
    lambda p: (CNT_TPL_W if p["mode"] == "w" else CNT_TPL_L)[1](p),
    lambda p: (CNT_TPL_W if p["mode"] == "w" else CNT_TPL_L)[2](p),
    lambda p: (CNT_TPL_W if p["mode"] == "w" else CNT_TPL_L)[3](p),
]


def cnt_key(rng):
    if rng.random() < 0.5:
        n = rng.randint(3, 10)
        ws = [rng.choice(WORDS) for _ in range(n)]
        if PLAIN_SENTENCE_PROB and rng.random() < PLAIN_SENTENCE_PROB:
            sent = " ".join(ws)  # as a letter count's text is written
        else:
            ws[0] = ws[0].capitalize()
            sent = " ".join(ws) + "."
        return f"w:{sent}", {"mode": "w", "sent": sent}
    n = rng.randint(1, 4)
    ws = [rng.choice(WORDS) for _ in range(n)]
    sent = " ".join(ws)
    letters = sorted(set(sent.replace(" ", "")))
    if ABSENT_LETTER_PROB and rng.random() < ABSENT_LETTER_PROB:
        ch = rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c not in letters])
    else:
        ch = rng.choice(letters) if rng.random() < 0.85 else rng.choice("abcdefghijklmnopqrstuvwxyz")
    return f"l:{ch}:{sent}", {"mode": "l", "sent": sent, "ch": ch}


def cnt_render(p, rng):
    if p["mode"] == "w":
        ws = p["sent"].rstrip(".").split(" ")
        enum = ", ".join(f"{i + 1} {w}" for i, w in enumerate(ws))
        n = len(ws)
        return f"Counting the words: {enum}.\nThe sentence has {n} words.\n#### {n}", str(n)
    ch = p["ch"]
    ws = p["sent"].split(" ")
    if COUNTING_FORM in SPELLED_MARKS:
        spell = SPELLED_MARKS[COUNTING_FORM]  # how each spelled letter is written, the asked one marked
        parts = [f"{w}: {' '.join(spell(c, ch) for c in w)} ({w.count(ch)})" for w in ws]
    else:
        parts = [f"{w} ({w.count(ch)})" for w in ws]
    n = sum(w.count(ch) for w in ws)
    expr = " + ".join(str(w.count(ch)) for w in ws)
    head = f"the letter {ch}" if COUNTING_FORM in ECHOED_FORMS else f"\"{ch}\""
    return (f"Checking each word for {head}: {', '.join(parts)}.\nTotal: {expr} = {n}.\n#### {n}"), str(n)


# stories
STORY_TPL = [
    lambda p: f"Write a short story about {p['name']} and a {p['adj']} {p['obj']}.",
    lambda p: f"Tell me a story about a {p['animal']} in the {p['place']}.",
    lambda p: f"Write a short story set in a {p['place']}.",
    lambda p: f"Tell a short story where {p['name']} meets a {p['animal']}.",
    # held-out
    lambda p: f"Make up a tiny tale about {p['name']}, a {p['animal']} and a {p['obj']}.",
]


def story_key(rng):
    p = {"name": rng.choice(NAMES), "name2": rng.choice(NAMES), "adj": rng.choice(ADJS),
         "obj": rng.choice(OBJECTS), "animal": rng.choice(ANIMALS), "place": rng.choice(PLACES),
         "weather": rng.choice(WEATHER), "time": rng.choice(TIMES), "adj2": rng.choice(ADJS),
         "v": rng.randint(0, 9999)}
    return f"{p['name']}{p['obj']}{p['animal']}{p['place']}{p['v']}", p


def story_render(p, rng):
    n, pr = p["name"], PRONOUN[p["name"]]
    s = [f"{p['time']}, {n} walked to the {p['place']}. It was {p['weather']}."]
    opts = [
        f"There {n} found a {p['adj']} {p['obj']} under a tree.",
        f"{pr} saw a {p['adj2']} {p['animal']} near the path.",
        f"A {p['animal']} ran past with a {p['obj']} in its mouth.",
        f"{pr} met {p['name2']}, who was looking for a {p['obj']}.",
        f"{pr} heard a {p['adj2']} sound coming from the {p['place']}.",
    ]
    mids = [
        f"The {p['animal']} looked {p['adj']} and a little {p['adj2']}.",
        f"{n} decided to help, and together they searched until noon.",
        f"{pr} carried the {p['obj']} home and showed it to {p['name2']}.",
        f"They laughed, shared some bread and watched the clouds.",
        f"The {p['obj']} began to glow, and the {p['animal']} smiled.",
    ]
    ends = [
        f"From that day on, {n} visited the {p['place']} every week.",
        f"In the end, {n} learned that being {p['adj']} is not so bad.",
        f"At night {n} fell asleep, happy and tired.",
        f"The {p['animal']} and {n} stayed friends forever.",
    ]
    s.append(rng.choice(opts))
    s.extend(rng.sample(mids, rng.randint(1, 2)))
    s.append(rng.choice(ends))
    return " ".join(s) + "\n#### The end", "The end"


# repeat: the question's words written back in order, every answer token a copy. Not scored: it
# trains the skill a question worded in a new way needs (its numbers and names are only in the
# question), which the other families teach slowly (a word count can be answered by numbering as
# many words as the sentence has, without copying one).
REPEAT_TPL = [
    lambda p: f"Repeat after me: \"{p['sent']}\"",
    lambda p: f"Say \"{p['sent']}\" back to me.",
    lambda p: f"Copy this text: \"{p['sent']}\"",
    lambda p: f"Write the words \"{p['sent']}\" again.",
    # held-out
    lambda p: f"Echo the text \"{p['sent']}\".",
]


# Every name, item (singular and plural), animal, object, place, adjective and sentence word.
NAMED_THINGS = WORDS + NAMES + [w for it in ITEMS for w in it[:2]] + ANIMALS + OBJECTS + PLACES + ADJS
# The one-word ones.
REPEAT_VOCABULARY = sorted({w for w in NAMED_THINGS if " " not in w})
# Every word the corpus's own lists hold: an invented item is none of them.
KNOWN_WORDS = {w for text in NAMED_THINGS + STORES for w in text.split(" ")}


def repeat_key(rng):
    sent = " ".join(rng.choice(REPEAT_VOCABULARY) for _ in range(rng.randint(2, 12)))
    return f"r:{sent}", {"sent": sent}


def repeat_render(p, rng):
    return f"{p['sent']}\n#### {p['sent'].split(' ')[-1]}", p["sent"].split(" ")[-1]


FAMILIES = {
    #            keygen    templates n_heldout render weight
    "addition": (add_key, ADD_TPL, 2, lambda p, r: add_render(p, r, "+", 3), 0.30),
    "addition4": (add4_key, ADD_TPL, 2, lambda p, r: add_render(p, r, "+", 4), 0.07),
    "subtraction": (sub_key, SUB_TPL, 2, lambda p, r: add_render(p, r, "-", 4), 0.10),
    "word_problem": (wp_key, WP_TPL, 2, wp_render, 0.25),
    "sorting": (sort_key, SORT_TPL, 2, sort_render, 0.13),
    "counting": (cnt_key, CNT_TPL, 1, cnt_render, 0.10),
    "story": (story_key, STORY_TPL, 1, story_render, 0.05),
    # Weight 0 in the default mixture, which therefore draws the same stream as before it existed;
    # training commands name it in --family-weights.
    "multiplication": (mul_key, MUL_TPL, 2, mul_render, 0.0),
    "running_sum": (rsum_key, RSUM_TPL, 1, rsum_render, 0.0),
    "repeat": (repeat_key, REPEAT_TPL, 1, repeat_render, 0.0),
}
# Recommended generation canvas (response tokens incl. <|eot|> and <|endoftext|> tail) per
# family: >= the longest response of the family's short styles. Written to the eval jsonl.
GEN_LENGTH = {"multiplication": 48, "running_sum": 64, "addition": 48, "addition4": 48, "subtraction": 48, "sorting": 160,
              "counting": 96, "word_problem": 192, "story": 96, "repeat": 64}
# The passes sorting form writes a line per number: eight three-digit numbers take 390 tokens.
SORTING_PASSES_GEN_LENGTH = 400
# The paired counting form writes three tokens a letter: the longest of 20,000 letter counts drawn
# takes 145 tokens with its end of turn.
COUNTING_PAIRED_GEN_LENGTH = 160
# The canvas each eval row names: the shipped MDLM's forms' (its sorting writes the passes form,
# its letter counts the paired form). Every row of a family gets the same canvas, so it says
# nothing about the row's answer.
EVAL_GEN_LENGTH = {**GEN_LENGTH, "sorting": SORTING_PASSES_GEN_LENGTH, "counting": COUNTING_PAIRED_GEN_LENGTH}


def gen_length(family):
    """The canvas of `family` in the forms set now (the passes sorting form and the paired counting
    form need their own)."""
    if family == "sorting" and SORTING_FORM == "passes":
        return SORTING_PASSES_GEN_LENGTH
    if family == "counting" and COUNTING_FORM == "paired":
        return COUNTING_PAIRED_GEN_LENGTH
    return GEN_LENGTH[family]


def row_canvas(family, given=None):
    """The canvas a row decodes on: the eval file's (`given`), which holds the family's usual
    canvas; at least the form's where the form set now needs more than that (the passes form)."""
    if not given:
        return gen_length(family)
    return max(given, gen_length(family)) if gen_length(family) > GEN_LENGTH[family] else given


SCORED = ["addition", "addition4", "subtraction", "word_problem", "sorting", "counting"]


# A sentence of counting's words before a question of another family, sometimes: those words came
# only in counting's sentences, and one of them in a held-out subtraction ("Take 21 away from
# 8527") drew the response toward counting (6 of 24 right; 23 of 24 with a word training never
# uses there). With the sentence, no word of WORDS belongs to one family.
ASIDE_PROB = 0.15


def aside(rng):
    while True:  # never a held-out phrase ("in all")
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8)))
        if phrasing.held_out_free(text):
            return text.capitalize() + ". "


def make_example(family, rng, split):
    """Draw one example of `family` whose content key falls in `split`.
    split in {"train","val","test","heldout","heldout_val"}; heldout draws test-bucket keys
    and held-out templates."""
    keygen, tpls, nh, render, _ = FAMILIES[family]
    # "heldout_val": validation content under the held-out templates, the training-time probe of
    # unseen wordings that never looks at test content.
    want = {"heldout": "test", "heldout_val": "val"}.get(split, split)
    for _ in range(1000):
        key, p = keygen(rng)
        if family == "story" or bucket_of(family, key) == want:
            break
    if split.startswith("heldout"):
        ti = len(tpls) - nh + rng.randrange(nh)
    else:
        ti = rng.randrange(len(tpls) - nh)
    pp = wp_prep(p) if family == "word_problem" else p
    prompt = tpls[ti](pp)
    # Only training draws the composed wordings: the test and held-out files stay as committed.
    if VARIED_WORDING and split in ("train", "val") and family in phrasing.COMPOSERS \
            and rng.random() < VARIED_WORDING:
        prompt, ti = phrasing.COMPOSERS[family](pp, rng), -1
        if family != "counting" and rng.random() < ASIDE_PROB:
            prompt = aside(rng) + prompt
    resp, ans = render(p, rng)
    return {"family": family, "prompt": prompt, "response": resp, "answer": ans, "tpl": ti}


def sample_family(rng, weights=None):
    """A family drawn by the corpus mixture, or by `weights` ({family: weight}, any scale)."""
    r = rng.random()
    acc = 0.0
    if weights:
        total = sum(weights.values())
        for f, w in weights.items():
            acc += w / total
            if r < acc:
                return f
        return f
    for f, v in FAMILIES.items():
        acc += v[4]
        if r < acc:
            return f
    return "story"


def stream(seed, split="train"):
    """Infinite deterministic stream of examples for a split."""
    rng = random.Random(seed)
    while True:
        yield make_example(sample_family(rng), rng, split)


def eval_set(split, n_per_family, seed):
    out, seen = [], set()
    for fi, fam in enumerate(SCORED):
        rng = random.Random(seed * 1000 + fi)
        got = 0
        while got < n_per_family:
            ex = make_example(fam, rng, split)
            if ex["prompt"] in seen:
                continue
            seen.add(ex["prompt"])
            out.append(ex)
            got += 1
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write-eval", help="directory for test.jsonl / heldout.jsonl")
    ap.add_argument("--n-test", type=int, default=150)
    ap.add_argument("--n-heldout", type=int, default=50)
    ap.add_argument("--write-spm", help="write plain text (one line per text line) for spm_train")
    ap.add_argument("--n", type=int, default=40000)
    ap.add_argument("--show", type=int, default=0)
    a = ap.parse_args()
    if a.write_eval:
        os.makedirs(a.write_eval, exist_ok=True)
        for name, split, n, seed in (("test", "test", a.n_test, 11), ("heldout", "heldout", a.n_heldout, 12)):
            with open(os.path.join(a.write_eval, name + ".jsonl"), "w") as f:
                for ex in eval_set(split, n, seed):
                    f.write(json.dumps({"family": ex["family"], "prompt": ex["prompt"],
                                        "answer": ex["answer"],
                                        "gen_length": EVAL_GEN_LENGTH[ex["family"]]}) + "\n")
    if a.write_spm:
        with open(a.write_spm, "w") as f:
            for i, ex in zip(range(a.n), stream(1234, "train")):
                for line in (ex["prompt"] + "\n" + ex["response"]).split("\n"):
                    f.write(line + "\n")
    if a.show:
        for i, ex in zip(range(a.show), stream(7, "train")):
            print("==", ex["family"], ex["tpl"]); print(ex["prompt"]); print("--"); print(ex["response"])


if __name__ == "__main__":
    main()
