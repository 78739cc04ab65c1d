#include "compute/attention_layout.h"

#include <algorithm>

#include "util/error.h"

namespace dlm {

namespace {

std::string columns(int first, int count) {
    std::string out = "columns [";
    out += std::to_string(first);
    out += ", ";
    out += std::to_string(first + count);
    out += ")";
    return out;
}

}  // namespace

bool has_custom_attention_layout(const ForwardItem& item) {
    return !item.position_ids.empty() || item.shadow.count != 0;
}

int check_attention_layout(const ForwardItem& item, const ModelConfig& config, const std::string& where) {
    const int n = static_cast<int>(item.tokens.size());
    int last_position = n - 1;
    if (!item.position_ids.empty()) {
        if (static_cast<int>(item.position_ids.size()) != n)
            throw Error(where + std::to_string(item.position_ids.size()) + " position ids for a canvas of " +
                        std::to_string(n) + " columns");
        last_position = -1;
        for (std::size_t i = 0; i < item.position_ids.size(); ++i) {
            const int32_t p = item.position_ids[i];
            if (p < 0 || (config.max_seq_len > 0 && p >= config.max_seq_len))
                throw Error(where + "position id " + std::to_string(p) + " of column " + std::to_string(i) +
                            " is outside the model's context (0.." + std::to_string(config.max_seq_len - 1) + ")");
            last_position = std::max<int>(last_position, p);
        }
    }
    const ShadowBlock& s = item.shadow;
    if (s.count < 0) throw Error(where + "shadow block with a negative count (" + std::to_string(s.count) + ")");
    if (s.count > 0) {
        const std::string range = columns(s.first, s.count), twins = columns(s.twin_first, s.count);
        if (s.first < 0 || s.first + s.count > n)
            throw Error(where + "shadow block at " + range + " is outside the canvas of " + std::to_string(n) + " columns");
        if (s.twin_first < 0 || s.twin_first + s.count > n)
            throw Error(where + "shadow twins at " + twins + " are outside the canvas of " + std::to_string(n) + " columns");
        if (s.twin_first < s.first + s.count && s.first < s.twin_first + s.count)
            throw Error(where + "shadow block at " + range + " overlaps its twins at " + twins);
        if (!config.bidirectional)
            throw Error(where + "a shadow block needs a bidirectional model; '" + std::string(family_name(config.family)) +
                        "' attends causally");
        if (item.kv_override)
            throw Error(where + "a shadow block cannot be combined with a K/V override in one forward");
    }
    return last_position;
}

void refuse_custom_attention_layout(const ForwardItem& item, const std::string& backend, const std::string& where) {
    if (item.shadow.count != 0)
        throw Error(where + "the " + backend +
                    " backend does not support shadow blocks (WINO's verification rows) yet; run WINO on the CPU backend");
    if (!item.position_ids.empty())
        throw Error(where + "the " + backend + " backend does not support explicit position ids yet");
}

}  // namespace dlm
