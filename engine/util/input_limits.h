#pragma once
// Limits by design on what the engine reads from files (docs/limits.md lists them). A file past
// its limit is refused with a message naming the file and the limit, before it can cost memory or
// time out of proportion: JSON documents grow ~40x in memory once parsed, and the JSON library
// recurses once per nesting level (a deeply nested file would overflow the stack).
#include <cstdint>

namespace dlm::limits {

inline constexpr uint64_t kMiB = 1024ull * 1024ull;

// Nesting of arrays and objects in any JSON the engine parses. Real files nest at most ~6 deep.
inline constexpr int kMaxJsonDepth = 64;

// Vocabulary rows, of a config or a tokenizer (real ones: 32k-262k).
inline constexpr long long kMaxVocabRows = 1 << 22;

// Whole files, by kind.
inline constexpr uint64_t kConfigJsonBytes = 16 * kMiB;   // config.json and its side files
inline constexpr uint64_t kShardIndexBytes = 64 * kMiB;   // model.safetensors.index.json
inline constexpr uint64_t kTokenizerJsonBytes = 64 * kMiB;  // tokenizer.json (real ones: 2-35 MB)
inline constexpr uint64_t kSentencepieceBytes = 64 * kMiB;  // tokenizer.model (real ones: 0.5-5 MB)
inline constexpr uint64_t kSafetensorsHeaderBytes = 100 * kMiB;  // the format's own cap
inline constexpr uint64_t kEvalFileBytes = 64 * kMiB;     // an evaluation .jsonl
inline constexpr uint64_t kPromptFileBytes = 4 * kMiB;    // --prompt-file (far past any context)
inline constexpr uint64_t kTraceLineBytes = 64 * kMiB;    // one NDJSON trace line

}  // namespace dlm::limits
