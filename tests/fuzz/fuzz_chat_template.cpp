// Chat templates: recognising arbitrary template text (the canonicaliser reads hostile Jinja), and
// rendering arbitrary conversations (roles and contents) with the embedded model's tokenizer, for
// every template form.
#include <filesystem>
#include <memory>

#include "fuzz_support.h"
#include "model/model_config.h"
#include "text/chat_template.h"
#include "text/chat_template_recognition.h"
#include "text/sentencepiece_tokenizer.h"

namespace {

struct Model {
    dlm::ModelConfig config;
    std::unique_ptr<dlm::SentencePieceTokenizer> tok;
};

const Model& model() {
    static const Model m = [] {
        const std::filesystem::path dir = DLM_SOURCE_DIR "/resources/models/tiny-mdlm";
        Model out;
        out.config = dlm::load_model_config(dir / "config.json");
        out.tok = dlm::SentencePieceTokenizer::load(dir / "tokenizer.model");
        return out;
    }();
    return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const Model& m = model();
    // Messages: "role\x1fcontent" records separated by '\x1e'.
    std::vector<dlm::ChatMessage> messages;
    const std::string_view text = dlm::fuzz::as_text(data, size);
    std::size_t start = 0;
    while (start <= text.size() && messages.size() < 16) {
        std::size_t end = text.find('\x1e', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view rec = text.substr(start, end - start);
        const std::size_t sep = rec.find('\x1f');
        messages.push_back({std::string(sep == std::string_view::npos ? "user" : rec.substr(0, sep)),
                            std::string(sep == std::string_view::npos ? rec : rec.substr(sep + 1))});
        start = end + 1;
    }
    // recognise_chat_template never throws: any text is a template or "not recognised".
    const dlm::ChatTemplate recognised = dlm::recognise_chat_template(text);
    if (!recognised.recognised() && recognised.note.empty()) __builtin_trap();
    std::vector<dlm::ChatTemplate> forms = {recognised};
    for (auto kind : {dlm::ChatTemplateKind::None, dlm::ChatTemplateKind::Llama3, dlm::ChatTemplateKind::ChatML,
                      dlm::ChatTemplateKind::DlmscopeTiny})
        forms.push_back(dlm::chat_template_of(kind));
    forms[3].default_system = std::string(text.substr(0, 64));  // ChatML with an arbitrary system line
    for (const dlm::ChatTemplate& form : forms)
        dlm::fuzz::expect_refusal_or_success([&] { (void)dlm::apply_chat_template(form, m.config, *m.tok, messages); });
    return 0;
}
