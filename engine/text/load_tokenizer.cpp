// load_tokenizer(): a checkpoint folder's tokenizer, whichever of the three forms it ships.
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
    switch (tokenizer_form(model_dir)) {
        case TokenizerForm::TokenizerJson: return HfBpeTokenizer::load(model_dir / "tokenizer.json");
        case TokenizerForm::VocabMerges: return HfBpeTokenizer::load_vocab_merges(model_dir);
        case TokenizerForm::SentencePiece: return SentencePieceTokenizer::load(model_dir / "tokenizer.model");
        case TokenizerForm::None: break;
    }
    throw Error(model_dir.string() + ": no tokenizer found (looked for tokenizer.json, vocab.json + merges.txt and "
                                     "tokenizer.model)");
}

TokenizerForm tokenizer_form(const std::filesystem::path& model_dir) {
    std::error_code ec;
    // tokenizer.json wins: HF checkpoints that ship several forms keep the authoritative added
    // tokens there; the slow files come next (Dream publishes only those), sentencepiece last.
    // Existence decides (not file type): a FIFO named tokenizer.json is refused by its reader.
    if (std::filesystem::exists(model_dir / "tokenizer.json", ec)) return TokenizerForm::TokenizerJson;
    if (std::filesystem::exists(model_dir / "vocab.json", ec) && std::filesystem::exists(model_dir / "merges.txt", ec))
        return TokenizerForm::VocabMerges;
    if (std::filesystem::exists(model_dir / "tokenizer.model", ec)) return TokenizerForm::SentencePiece;
    return TokenizerForm::None;
}

std::string_view tokenizer_form_name(TokenizerForm f) {
    switch (f) {
        case TokenizerForm::TokenizerJson: return "tokenizer.json";
        case TokenizerForm::VocabMerges: return "vocab.json + merges.txt";
        case TokenizerForm::SentencePiece: return "tokenizer.model";
        case TokenizerForm::None: break;
    }
    return "none";
}

}  // namespace dlm
