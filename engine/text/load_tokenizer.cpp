// load_tokenizer(): a checkpoint folder's tokenizer, whichever of the two formats it ships.
#include <system_error>

#include "text/hf_bpe_tokenizer.h"
#include "text/sentencepiece_tokenizer.h"
#include "text/tokenizer.h"
#include "util/error.h"

namespace dlm {

std::unique_ptr<Tokenizer> load_tokenizer(const std::filesystem::path& model_dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(model_dir, ec))
        throw Error(model_dir.string() + ": not a folder (expected a model folder holding tokenizer.json or "
                                         "tokenizer.model)");
    // tokenizer.json wins: HF checkpoints that ship both keep the authoritative added tokens there.
    const auto json = model_dir / "tokenizer.json";
    if (std::filesystem::is_regular_file(json, ec)) return HfBpeTokenizer::load(json);
    const auto model = model_dir / "tokenizer.model";
    if (std::filesystem::is_regular_file(model, ec)) return SentencePieceTokenizer::load(model);
    throw Error(model_dir.string() + ": no tokenizer found (looked for tokenizer.json and tokenizer.model)");
}

}  // namespace dlm
