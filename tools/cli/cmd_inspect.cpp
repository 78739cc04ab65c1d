// dlmscope-cli inspect DIR: what a checkpoint folder holds, as the engine reads it — the first
// thing to run when a model does not load or behaves oddly.
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "decode/decode_session.h"
#include "decode/generation_defaults.h"
#include "args.h"
#include "commands.h"
#include "model/checkpoint.h"
#include "output.h"
#include "text/chat_template.h"

namespace dlm::cli {

namespace {

const CommandSpec& inspect_spec() {
    static const CommandSpec spec{
        "inspect",
        "DIR [--json] [--prompt TEXT [--no-chat]]",
        "Describe a checkpoint folder: architecture, dimensions, tensors, tokenizer, special tokens.",
        "With --prompt, also the token ids the prompt becomes, exactly as run and eval feed them (the chat\n"
        "template applied when the engine recognises it), each with its text.",
        {{"json", "", "print one JSON object"},
         {"prompt", "TEXT", "also show the ids this prompt becomes"},
         {"no-chat", "", "with --prompt: the prompt as plain text, no chat template"}},
        1,
        1,
        "a checkpoint folder DIR",
    };
    return spec;
}

std::string_view chat_template_name(ChatTemplateKind k) {
    switch (k) {
        case ChatTemplateKind::None: return "none";
        case ChatTemplateKind::Llama3: return "llama3";
        case ChatTemplateKind::ChatML: return "chatml";
        case ChatTemplateKind::DlmscopeTiny: return "dlmscope-tiny";
    }
    return "unknown";
}

struct SpecialToken {
    const char* name;
    int id;
};

struct Inspection {
    std::map<std::string, long long> tensors_by_dtype;  // dtype name -> tensor count
    long long tensor_count = 0;
    long long stored_parameters = 0;
    uint64_t total_bytes = 0;
    int shard_count = 0;
};

Inspection inspect_store(const WeightStore& store) {
    Inspection in;
    for (const auto& [name, view] : store.all()) {
        ++in.tensors_by_dtype[std::string(dtype_name(view->dtype))];
        ++in.tensor_count;
        in.stored_parameters += view->numel();
    }
    in.total_bytes = store.total_bytes();
    in.shard_count = static_cast<int>(store.files().size());
    return in;
}

// The piece of a special id, when the tokenizer has it (a config can name ids past the
// tokenizer's vocabulary; LLaDA's embedding has unused rows).
std::string token_piece(const Tokenizer& tok, int id) {
    if (id < 0 || id >= tok.vocab_size()) return "";
    return tok.token_text(id);
}

// A token's text in quotes, with newlines and other control characters escaped.
std::string quote_token(const std::string& text) {
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

int inspect_main(std::span<const std::string> args) {
    const CommandSpec& spec = inspect_spec();
    const ParsedArgs a = parse_args(spec, args);
    if (a.help_requested()) {
        std::cout << format_help(spec);
        return kExitOk;
    }
    const Checkpoint ckpt = load_checkpoint(a.positionals()[0]);
    const ModelConfig& c = ckpt.config();
    const Tokenizer& tok = *ckpt.tokenizer;
    const Inspection in = inspect_store(*ckpt.weights.store);
    const ChatTemplate& chat = ckpt.chat_template;
    const GenerationDefaults gen = read_generation_defaults(ckpt.dir);
    const long long config_parameters = parameter_count(c);
    const SpecialToken specials[] = {{"mask", c.mask_token_id}, {"bos", c.bos_token_id},
                                     {"eos", c.eos_token_id},   {"pad", c.pad_token_id},
                                     {"eot", c.eot_token_id}};
    if (a.has("no-chat") && !a.has("prompt")) throw UsageError("--no-chat goes with --prompt");
    const std::optional<std::string> prompt = a.get("prompt");
    const bool prompt_chat = prompt && chat.recognised() && !a.flag("no-chat");
    const std::vector<int32_t> prompt_ids = prompt ? build_prompt(ckpt, *prompt, prompt_chat) : std::vector<int32_t>{};

    if (a.flag("json")) {
        nlohmann::json special = nlohmann::json::object();
        for (const auto& s : specials) {
            if (s.id < 0) {
                special[s.name] = nullptr;
                continue;
            }
            special[s.name] = {{"id", s.id}, {"text", token_piece(tok, s.id)}};
        }
        nlohmann::json j = {
            {"dir", ckpt.dir.string()},
            {"family", std::string(family_name(c.family))},
            {"architecture", c.architecture},
            {"diffusion", c.is_diffusion()},
            {"d_model", c.d_model},
            {"n_layers", c.n_layers},
            {"n_heads", c.n_heads},
            {"n_kv_heads", c.n_kv_heads},
            {"head_dim", c.head_dim},
            {"d_ff", c.d_ff},
            {"vocab_size", c.vocab_size},
            {"context", c.max_seq_len},
            {"rope_theta", c.rope_theta},
            {"rms_eps", c.rms_eps},
            {"qkv_bias", c.qkv_bias},
            {"tied_embeddings", c.tied_embeddings},
            {"bidirectional", c.bidirectional},
            {"shifted_logits", c.shifted_logits},
            {"dtypes", in.tensors_by_dtype},
            {"tensor_count", in.tensor_count},
            {"shards", in.shard_count},
            {"total_bytes", in.total_bytes},
            {"parameter_count", in.stored_parameters},
            {"config_parameter_count", config_parameters},
            {"tokenizer",
             {{"kind", tok.kind()}, {"files", std::string(tokenizer_form_name(tokenizer_form(ckpt.dir)))},
              {"vocab_size", tok.vocab_size()}}},
            {"special_tokens", special},
            {"chat_template",
             {{"kind", std::string(chat_template_name(chat.kind))},
              {"name", chat.name},
              {"default_system", chat.default_system ? nlohmann::json(*chat.default_system) : nlohmann::json()},
              {"published", chat.published},
              {"note", chat.note}}},
            {"generation_defaults", gen.settings},
            {"generation_task_defaults", gen.task},
            {"generation_notes", gen.notes},
            {"warnings", ckpt.warnings},
            {"unexpected_tensors", ckpt.weights.unexpected},
        };
        if (prompt) {
            nlohmann::json pieces = nlohmann::json::array();
            for (int32_t id : prompt_ids) pieces.push_back(tok.token_text(id));
            j["prompt"] = {{"text", *prompt}, {"chat", prompt_chat}, {"ids", prompt_ids}, {"pieces", pieces}};
        }
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return kExitOk;
    }

    std::string dtypes;
    for (const auto& [name, count] : in.tensors_by_dtype)
        dtypes += (dtypes.empty() ? "" : ", ") + name + " (" + std::to_string(count) + " tensors)";

    std::cout << "checkpoint     " << ckpt.dir.string() << '\n'
              << "family         " << family_name(c.family) << (c.is_diffusion() ? " (masked diffusion)" : " (autoregressive)")
              << '\n'
              << "architecture   " << c.architecture << '\n'
              << "dimensions     d_model " << c.d_model << ", layers " << c.n_layers << ", heads " << c.n_heads
              << ", kv heads " << c.n_kv_heads << ", head dim " << c.head_dim << ", d_ff " << c.d_ff << '\n'
              << "vocabulary     " << c.vocab_size << " embedding rows\n"
              << "context        " << c.max_seq_len << " positions\n"
              << "attention      " << (c.bidirectional ? "bidirectional" : "causal")
              << (c.qkv_bias ? ", q/k/v bias" : "") << ", RoPE theta " << c.rope_theta << '\n'
              << "logits         " << (!c.is_diffusion()      ? "causal (row i predicts token i+1)"
                                  : c.shifted_logits ? "shifted (row i-1 predicts token i)"
                                                     : "in place (row i predicts token i)")
              << '\n'
              << "LM head        " << (c.tied_embeddings ? "tied to the embedding" : "separate tensor") << '\n'
              << "storage        " << dtypes << '\n'
              << "tensors        " << in.tensor_count << " in " << in.shard_count
              << (in.shard_count == 1 ? " file\n" : " files\n")
              << "total bytes    " << format_bytes(in.total_bytes) << '\n'
              << "parameters     " << format_grouped(in.stored_parameters);
    if (in.stored_parameters != config_parameters)
        std::cout << " (the config implies " << format_grouped(config_parameters) << ")";
    std::cout << '\n'
              << "tokenizer      " << tok.kind() << " from " << tokenizer_form_name(tokenizer_form(ckpt.dir)) << ", "
              << tok.vocab_size() << " tokens\n"
              << "special ids   ";
    for (const auto& s : specials) {
        std::cout << ' ' << s.name << '=';
        if (s.id < 0) {
            std::cout << "none";
            continue;
        }
        std::cout << s.id;
        if (const std::string piece = token_piece(tok, s.id); !piece.empty()) std::cout << " " << piece;
    }
    std::cout << '\n' << "chat template  " << chat.describe() << '\n';
    // generation_config.json: the decode defaults it gives (under what the user sets).
    std::cout << "gen. defaults ";
    if (gen.settings.empty() && gen.task.empty()) std::cout << " none";
    for (const auto& [k, v] : gen.settings) std::cout << ' ' << k << '=' << v;
    for (const auto& [k, v] : gen.task) std::cout << ' ' << k << '=' << v << " (when the gen length is not set)";
    std::cout << '\n';
    for (const auto& note : gen.notes) std::cout << "               (" << note << ")\n";
    for (const auto& w : ckpt.warnings) std::cout << "warning        " << w << '\n';
    if (prompt) {
        std::cout << "prompt         " << prompt_ids.size() << " tokens" << (prompt_chat ? " (chat template)" : " (plain)")
                  << ":";
        for (int32_t id : prompt_ids) std::cout << ' ' << id << '=' << quote_token(tok.token_text(id));
        std::cout << '\n';
    }
    if (ckpt.weights.unexpected.empty()) {
        std::cout << "unexpected     none\n";
    } else {
        std::cout << "unexpected     " << ckpt.weights.unexpected.size() << " tensors the "
                  << family_name(c.family) << " family does not use:\n";
        for (const auto& name : ckpt.weights.unexpected) std::cout << "  " << name << '\n';
    }
    return kExitOk;
}

}  // namespace dlm::cli
