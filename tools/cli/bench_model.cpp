#include "bench_model.h"

#include <algorithm>
#include <string>

#include "model/weight_store.h"
#include "util/counter_rng.h"
#include "util/error.h"

namespace dlm::cli {

namespace {

// The ids of a checkpoint folder that ships no tokenizer (make-checkpoint's random weights): the
// benchmark feeds and reads ids only, so text is never needed; ids print as "<id>".
class IdTokenizer final : public Tokenizer {
public:
    IdTokenizer(int vocab, std::vector<int32_t> specials) : vocab_(vocab), specials_(std::move(specials)) {}
    std::string kind() const override { return "ids"; }
    std::vector<int32_t> encode(std::string_view, bool) const override {
        throw Error("this checkpoint has no tokenizer: it takes token ids only");
    }
    std::string decode(const std::vector<int32_t>& ids, bool skip_special) const override {
        std::string out;
        for (int32_t id : ids)
            if (!(skip_special && is_special(id))) out += token_text(id);
        return out;
    }
    std::string token_text(int32_t id) const override {
        std::string text = std::to_string(id);  // appended, not "<" + …: GCC 12 warns falsely (-Wrestrict) on that
        text.insert(text.begin(), '<');
        text.push_back('>');
        return text;
    }
    bool is_special(int32_t id) const override {
        return std::find(specials_.begin(), specials_.end(), id) != specials_.end();
    }
    int vocab_size() const override { return vocab_; }
    std::optional<int32_t> token_id(std::string_view) const override { return std::nullopt; }

private:
    int vocab_;
    std::vector<int32_t> specials_;
};

}  // namespace

BenchModel load_bench_model(const std::filesystem::path& requested) {
    const std::filesystem::path dir = checked_model_folder(requested);
    BenchModel m;
    m.has_tokenizer = std::filesystem::exists(dir / "tokenizer.json") || std::filesystem::exists(dir / "tokenizer.model") ||
                      std::filesystem::exists(dir / "vocab.json");
    if (m.has_tokenizer) {
        m.checkpoint = std::make_unique<Checkpoint>(load_checkpoint(dir));
        m.config = m.checkpoint->config();
        m.tokenizer = m.checkpoint->tokenizer;
    } else {
        m.config = load_model_config(dir / "config.json");
        m.bare.emplace(bind_weights(m.config, WeightStore::open(dir)));
        m.tokenizer = std::make_shared<IdTokenizer>(m.config.vocab_size,
                                                    std::vector<int32_t>{m.config.eos_token_id, m.config.mask_token_id});
    }
    return m;
}

std::vector<int32_t> synthetic_prompt(const ModelConfig& c, const Tokenizer& tok, int length) {
    const CounterRng rng(11, rng_stream::kStrategy);
    std::vector<int32_t> ids;
    for (uint64_t i = 0; static_cast<int>(ids.size()) < length; ++i) {
        const auto id = static_cast<int32_t>(rng.bits(0, i) % static_cast<uint64_t>(c.vocab_size));
        // Ordinary tokens only: a mask, EOS or other special id in the prompt would change the run.
        if (id == c.mask_token_id || id == c.eos_token_id || tok.is_special(id)) continue;
        ids.push_back(id);
    }
    return ids;
}

}  // namespace dlm::cli
