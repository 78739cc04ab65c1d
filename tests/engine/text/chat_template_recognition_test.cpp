// Recognising chat templates by their published text: every published form is recognised with
// its default system line, formatting that does not change what transformers renders does not
// matter, anything that changes the output is not recognised (never a guess), and a folder's
// template is read from every place transformers keeps it.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "text/chat_template_recognition.h"
#include "support/text_test_support.h"

namespace dlm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
namespace tt = text_test;

const fs::path kData = DLM_TEST_DATA_DIR;

std::string published(const fs::path& tokenizer_config) {
    return json::parse(tt::read_file(tokenizer_config)).at("chat_template");
}
std::string dream() { return published(kData / "dream-v0-instruct-7b" / "tokenizer_config.json"); }
std::string qwen25() { return published(kData / "qwen2.5-0.5b-instruct" / "tokenizer_config.json"); }
std::string llada() { return published(kData / "llada-8b-instruct" / "tokenizer_config.json"); }
std::string chatml_variant(const char* key) {
    return json::parse(tt::read_file(kData / "tokenizer-vectors" / "chatml-templates.json")).at(key);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
    return s;
}

TEST(TextChatTemplateRecognition, PublishedTemplatesAreRecognisedWithTheirSystemLine) {
    const ChatTemplate d = recognise_chat_template(dream());
    EXPECT_EQ(d.kind, ChatTemplateKind::ChatML);
    EXPECT_EQ(d.default_system, "You are a helpful assistant.");
    EXPECT_TRUE(d.published);
    EXPECT_TRUE(d.note.empty());

    const ChatTemplate q = recognise_chat_template(qwen25());
    EXPECT_EQ(q.kind, ChatTemplateKind::ChatML);
    EXPECT_EQ(q.default_system, "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.");
    EXPECT_EQ(q.name, d.name);  // one form, two system lines

    const ChatTemplate l = recognise_chat_template(llada());
    EXPECT_EQ(l.kind, ChatTemplateKind::Llama3);
    EXPECT_FALSE(l.default_system.has_value());

    const ChatTemplate plain = recognise_chat_template(chatml_variant("chatml"));
    EXPECT_EQ(plain.kind, ChatTemplateKind::ChatML);
    EXPECT_FALSE(plain.default_system.has_value());
    const ChatTemplate qwen2 = recognise_chat_template(chatml_variant("qwen2-instruct"));
    EXPECT_EQ(qwen2.kind, ChatTemplateKind::ChatML);
    EXPECT_EQ(qwen2.default_system, "You are a helpful assistant.");

    const fs::path tiny = fs::path(DLM_SOURCE_DIR) / "resources/models/tiny-mdlm/tokenizer_config.json";
    EXPECT_EQ(recognise_chat_template(published(tiny)).kind, ChatTemplateKind::DlmscopeTiny);
}

TEST(TextChatTemplateRecognition, ALineAFineTuneChangedIsReadOutOfTheText) {
    const std::string pirate = replace_all(qwen25(), "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
                                           "You are a pirate. Say \\'arr\\'.");
    const ChatTemplate t = recognise_chat_template(pirate);
    ASSERT_EQ(t.kind, ChatTemplateKind::ChatML) << t.note;
    EXPECT_EQ(t.default_system, "You are a pirate. Say 'arr'.");
    EXPECT_NE(t.describe().find("pirate"), std::string::npos);
    // Two different lines in the two branches are not one form.
    std::string split = qwen25();
    split.replace(split.find("You are Qwen"), 12, "You are Bob!");
    EXPECT_FALSE(recognise_chat_template(split).recognised());
}

TEST(TextChatTemplateRecognition, FormattingThatRendersTheSameDoesNotMatter) {
    // Other indentation, other quotes, spaces inside tags, a comment: the same output.
    std::string t = replace_all(dream(), "\n    ", "\n        ");
    t = replace_all(t, "{{- '<|im_start|>assistant\\n' }}", "{{-\"<|im_start|>assistant\\n\"}}");
    t = replace_all(t, "{%- for message in messages %}", "{#- each turn -#}{%-   for message in messages   %}");
    const ChatTemplate r = recognise_chat_template(t);
    EXPECT_EQ(r.kind, ChatTemplateKind::ChatML) << r.note;
    EXPECT_EQ(r.default_system, "You are a helpful assistant.");
    // trim_blocks: a newline after a block tag is not output, so adding one changes nothing.
    EXPECT_TRUE(recognise_chat_template(replace_all(llada(), "{% endfor %}", "{% endfor %}\n")).recognised());
}

TEST(TextChatTemplateRecognition, AnythingThatChangesTheOutputIsNotRecognised) {
    const std::vector<std::string> changed = {
        replace_all(dream(), "message.content + '<|im_end|>'", "message.content | trim + '<|im_end|>'"),
        replace_all(llada(), "| trim", ""),
        replace_all(llada(), "{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}", ""),
        replace_all(chatml_variant("chatml"), "'\\n'}}{% endfor %}", "'\\n\\n'}}{% endfor %}"),
        llada() + "\n",  // a newline after an expression is output
        "{{ messages[0]['content'] }}",
        "",
    };
    for (const std::string& text : changed) {
        const ChatTemplate t = recognise_chat_template(text);
        EXPECT_FALSE(t.recognised()) << text.substr(0, 200);
        EXPECT_TRUE(t.published);
        EXPECT_NE(t.note.find("raw"), std::string::npos) << t.note;
    }
}

TEST(TextChatTemplateRecognition, MalformedTextIsANoteNotACrash) {
    for (const std::string text : {"{% if x", "{{ 'unclosed }}", "{#", "{{ \"a\\", "}}{%}%{{}}"}) {
        const ChatTemplate t = recognise_chat_template(text);
        EXPECT_FALSE(t.recognised()) << text;
        EXPECT_FALSE(t.note.empty()) << text;
    }
    EXPECT_NE(recognise_chat_template("{% if x").note.find("not valid Jinja"), std::string::npos);
}

TEST(TextChatTemplateRecognition, ReadFromWhereverTheFolderKeepsIt) {
    tt::TempDir dir;
    EXPECT_FALSE(read_chat_template(dir.path()).published);
    EXPECT_NE(read_chat_template(dir.path()).note.find("no chat template"), std::string::npos);

    // A list of named templates (transformers' multi-template form): the "default" one.
    tt::write_file(dir.path() / "tokenizer_config.json",
                   json{{"chat_template", json::array({json{{"name", "tool_use"}, {"template", "{{ x }}"}},
                                                      json{{"name", "default"}, {"template", llada()}}})}}
                       .dump());
    EXPECT_EQ(read_chat_template(dir.path()).kind, ChatTemplateKind::Llama3);

    // chat_template.jinja beside a tokenizer_config.json without one (newer transformers).
    tt::write_file(dir.path() / "tokenizer_config.json", json{{"bos_token", "<s>"}}.dump());
    tt::write_file(dir.path() / "chat_template.jinja", dream());
    EXPECT_EQ(read_chat_template(dir.path()).default_system, "You are a helpful assistant.");
    fs::remove(dir.path() / "chat_template.jinja");
    tt::write_file(dir.path() / "chat_template.json", json{{"chat_template", qwen25()}}.dump());
    EXPECT_EQ(read_chat_template(dir.path()).kind, ChatTemplateKind::ChatML);

    // An unrecognised or unreadable template: the note names the file and says what happens.
    tt::write_file(dir.path() / "tokenizer_config.json", json{{"chat_template", "{{ bos_token }}{{ messages }}"}}.dump());
    ChatTemplate t = read_chat_template(dir.path());
    EXPECT_TRUE(t.published);
    EXPECT_FALSE(t.recognised());
    EXPECT_NE(t.note.find("tokenizer_config.json"), std::string::npos) << t.note;
    EXPECT_NE(t.note.find("raw"), std::string::npos) << t.note;
    tt::write_file(dir.path() / "tokenizer_config.json", "{ not json");
    t = read_chat_template(dir.path());
    EXPECT_FALSE(t.recognised());
    EXPECT_NE(t.note.find("could not be read"), std::string::npos) << t.note;
    tt::write_file(dir.path() / "tokenizer_config.json", json{{"chat_template", json::array({json{{"name", "x"}}})}}.dump());
    EXPECT_NE(read_chat_template(dir.path()).note.find("\"default\""), std::string::npos);
}

}  // namespace
}  // namespace dlm
