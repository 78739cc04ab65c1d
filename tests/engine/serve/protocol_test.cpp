// The server protocol's parser: every well-formed message, every way a client can get one wrong,
// and a mutation pass that throws random damage at it (a message must parse or be refused with
// dlm::Error; nothing else may escape, and nothing may crash or hang).
#include <gtest/gtest.h>

#include <random>

#include "serve/protocol.h"
#include "trace/trace_io.h"
#include "util/error.h"

namespace dlm::serve {
namespace {

const ServeLimits kLimits;

ClientMessage parse(const std::string& text) { return parse_client_message(text, kLimits); }

std::string refusal(const std::string& text) {
    try {
        parse(text);
    } catch (const Error& e) {
        return e.what();
    }
    return "(accepted)";
}

TEST(ServeProtocol, ParsesEveryClientMessage) {
    EXPECT_EQ(std::get<Hello>(parse(R"({"v":1,"type":"hello","token":"s3cret-s3cret-s3cret"})")).token, "s3cret-s3cret-s3cret");
    EXPECT_TRUE(std::get<Hello>(parse(R"({"v":1,"type":"hello"})")).token.empty());
    EXPECT_TRUE(std::holds_alternative<ListModels>(parse(R"({"v":1,"type":"models"})")));
    const auto run = std::get<RunRequest>(parse(
        R"({"v":1,"type":"run","run":7,"model":"tiny-mdlm","prompt":"2+2?","chat":false,)"
        R"("settings":{"gen_length":"32","steps":32,"surelock.epsilon":0.005,"track_kl":true}})"));
    EXPECT_EQ(run.run, 7);
    EXPECT_EQ(run.model, "tiny-mdlm");
    EXPECT_EQ(run.prompt, "2+2?");
    EXPECT_EQ(run.chat, 0);
    EXPECT_EQ(run.settings.at("gen_length"), "32");
    EXPECT_EQ(run.settings.at("steps"), "32");
    EXPECT_EQ(run.settings.at("surelock.epsilon"), "0.005");
    EXPECT_EQ(run.settings.at("track_kl"), "true");
    EXPECT_EQ(std::get<RunRequest>(parse(R"({"v":1,"type":"run","run":1,"prompt":""})")).chat, -1);
    for (auto [name, kind] : {std::pair{"pause", ControlKind::Pause}, {"resume", ControlKind::Resume},
                              {"step", ControlKind::Step}, {"cancel", ControlKind::Cancel}}) {
        const auto c = std::get<Control>(parse(std::string(R"({"v":1,"type":")") + name + R"(","run":3})"));
        EXPECT_EQ(c.kind, kind);
        EXPECT_EQ(c.run, 3);
    }
    const auto v = std::get<ValidateRequest>(parse(R"({"v":1,"type":"validate","request":9,"prompt":"x","settings":{}})"));
    EXPECT_EQ(v.request, 9);
}

TEST(ServeProtocol, RefusesWhatIsWrongWithAReason) {
    EXPECT_NE(refusal("not json").find("the message"), std::string::npos);
    EXPECT_NE(refusal("[1,2]").find("JSON object"), std::string::npos);
    EXPECT_NE(refusal(R"({"type":"models"})").find("\"v\""), std::string::npos);
    EXPECT_NE(refusal(R"({"v":2,"type":"models"})").find("version 1"), std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"shutdown"})").find("unknown message type"), std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"run","prompt":"x"})").find("\"run\""), std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"run","run":0,"prompt":"x"})").find("between 1"), std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"run","run":-4,"prompt":"x"})").find("between 1"), std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"run","run":1e300,"prompt":"x"})").find("integer"), std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"run","run":18446744073709551615,"prompt":"x"})").find("between 1"), std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"run","run":1,"prompt":5})").find("string"), std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"run","run":1,"prompt":"x","chat":"yes"})").find("true or false"), std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"run","run":1,"prompt":"x","settings":[1]})").find("object"), std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"run","run":1,"prompt":"x","settings":{"a":{"b":1}}})").find("setting \"a\""), std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"run","run":1,"prompt":"x","settings":{"gen_length":"999999"}})").find("limit of 4096"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"run","run":1,"prompt":"x","settings":{"gen_length":"12abc"}})").find("positive integer"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"v":1,"type":"pause"})").find("\"run\""), std::string::npos);
}

TEST(ServeProtocol, EnforcesItsLimits) {
    ServeLimits small;
    small.max_message_bytes = 100;
    small.max_prompt_bytes = 10;
    EXPECT_THROW(parse_client_message(std::string(101, ' '), small), Error);
    EXPECT_THROW(parse_client_message(R"({"v":1,"type":"run","run":1,"prompt":"eleven byte"})", small), Error);
    EXPECT_NO_THROW(parse_client_message(R"({"v":1,"type":"run","run":1,"prompt":"ten bytes!"})", small));
    // Deep nesting is refused before the JSON library recurses into it.
    EXPECT_THROW(parse(R"({"v":1,"type":"run","run":1,"prompt":"x","settings":{"a":[[[[1]]]]}})"), Error);
    EXPECT_THROW(parse(std::string(100000, '[') + std::string(100000, ']')), Error);
    std::string many = R"({"v":1,"type":"run","run":1,"prompt":"x","settings":{)";
    for (int i = 0; i < 300; ++i) many += (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\":1";
    EXPECT_NE(refusal(many + "}}").find("more than 256"), std::string::npos);
}

TEST(ServeProtocol, ServerMessagesRoundTrip) {
    ModelListing m;
    m.name = "tiny-mdlm";
    m.family = "llada";
    m.chat_template = true;
    m.default_settings = {{"temperature", "0.2"}};
    ServeLimits l;
    l.max_gen_length = 512;
    const auto w = std::get<Welcome>(parse_server_message(welcome_message("dlmscope-server 1", {m}, l)));
    ASSERT_EQ(w.models.size(), 1u);
    EXPECT_EQ(w.models[0].name, "tiny-mdlm");
    EXPECT_TRUE(w.models[0].chat_template);
    EXPECT_EQ(w.models[0].default_settings.at("temperature"), "0.2");
    EXPECT_EQ(w.limits.max_gen_length, 512);
    EXPECT_EQ(std::get<Queued>(parse_server_message(queued_message(4, 2))).position, 2);
    const auto e = std::get<RunEnded>(parse_server_message(end_message(4, RunEnd::Failed, "prompt too long")));
    EXPECT_EQ(e.end, RunEnd::Failed);
    EXPECT_EQ(e.error, "prompt too long");
    EXPECT_EQ(std::get<RunEnded>(parse_server_message(end_message(4, RunEnd::Cancelled))).end, RunEnd::Cancelled);
    const auto is = std::get<Issues>(parse_server_message(
        issues_message(8, {{SettingsIssue::Severity::Warning, "steps", "more steps than positions"}})));
    ASSERT_EQ(is.issues.size(), 1u);
    EXPECT_FALSE(is.issues[0].is_error());
    EXPECT_EQ(std::get<ServerError>(parse_server_message(error_message("bad", 3))).run, 3);
    EXPECT_THROW(parse_server_message(R"({"v":7,"type":"queued"})"), Error);
    // Found by fuzz_server_protocol: a version of the wrong type escaped as a library exception.
    EXPECT_THROW(parse_server_message(R"({"v":"_ long"})"), Error);
    EXPECT_THROW(parse_server_message(R"({"v":1,"type":"queued","run":"x","position":1})"), Error);
    EXPECT_THROW(parse_server_message(R"({"v":1,"type":"welcome","models":[{"name":5}],"limits":{}})"), Error);
    EXPECT_THROW(parse_server_message(R"({"v":1,"type":"queued"})"), Error);
    // Found by fuzz_server_protocol: a float where an integer belongs was cast to one (undefined
    // behaviour, 4.4e83 into an int64_t); every integer field refuses it, or one out of range.
    for (const char* text :
         {R"({"v":1,"type":"end","run":4.4e83,"status":"done"})", R"({"v":1,"type":"queued","run":2,"position":1e10})",
          R"({"v":1,"type":"queued","run":2,"position":-3e9})", R"({"v":1,"type":"record","run":1.5,"record":{}})",
          R"({"v":1,"type":"issues","request":1e300,"issues":[]})", R"({"v":1,"type":"error","run":9e99})",
          R"({"v":1,"type":"welcome","models":[],"limits":{"max_gen_length":1e40}})",
          R"({"v":1,"type":"welcome","models":[],"limits":{"max_message_bytes":-1}})",
          R"({"v":1,"type":"models","models":[{"name":"m","vocab":3e12}]})"})
        EXPECT_THROW(parse_server_message(text), Error) << text;
}

// A step record travels verbatim: the client's reader gives back the very record.
TEST(ServeProtocol, ARecordIsTheTraceRecord) {
    StepTrace s;
    s.step = 3;
    s.wall_ms = 1.0 / 3.0;
    s.paper_flops = 123456789.125;
    s.counters["remasks"] = 2;
    const std::string line = step_trace_to_json(s);
    const auto r = std::get<Record>(parse_server_message(record_message(11, line)));
    EXPECT_EQ(r.run, 11);
    EXPECT_EQ(r.kind, "step");
    EXPECT_EQ(step_trace_to_json(step_trace_from_json(r.json)), line);
    // The same record framed in another key order takes the general path to the same result.
    const auto g = std::get<Record>(parse_server_message(R"({"type":"record","run":11,"v":1,"record":)" + line + "}"));
    EXPECT_EQ(g.run, 11);
    EXPECT_EQ(g.kind, "step");
    EXPECT_EQ(step_trace_to_json(step_trace_from_json(g.json)), line);
    // A damaged record in the server's own frame is still refused by the trace reader.
    const auto bad = std::get<Record>(parse_server_message(R"({"v":1,"type":"record","run":2,"record":{"type":"step"} x})"));
    EXPECT_THROW(step_trace_from_json(bad.json), Error);
}

// Random damage to valid messages: each must parse or be refused with dlm::Error.
TEST(ServeProtocol, SurvivesAMutationPass) {
    const std::vector<std::string> seeds = {
        R"({"v":1,"type":"hello","token":"abcdefghijklmnopq"})",
        R"({"v":1,"type":"run","run":7,"model":"m","prompt":"Sam buys 3 notebooks","chat":true,"settings":{"gen_length":"64","strategy":"surelock"}})",
        R"({"v":1,"type":"cancel","run":7})",
        R"({"v":1,"type":"validate","request":2,"prompt":"x","settings":{"steps":"8"}})",
    };
    std::mt19937 rng(1234);
    const std::string alphabet = "{}[]\":,0123456789-.eE+ \\u00ffatrunlsvx\x80\xc3\xff";
    int accepted = 0, refused = 0;
    for (int i = 0; i < 20000; ++i) {
        std::string m = seeds[rng() % seeds.size()];
        const int edits = 1 + int(rng() % 6);
        for (int e = 0; e < edits && !m.empty(); ++e) {
            const size_t at = rng() % m.size();
            switch (rng() % 4) {
                case 0: m[at] = alphabet[rng() % alphabet.size()]; break;
                case 1: m.erase(at, 1 + rng() % 8); break;
                case 2: m.insert(at, 1 + rng() % 4, alphabet[rng() % alphabet.size()]); break;
                case 3: m.insert(at, m.substr(rng() % m.size(), rng() % 16)); break;
            }
        }
        try {
            parse(m);
            ++accepted;
        } catch (const Error&) {
            ++refused;
        }
    }
    EXPECT_GT(accepted, 0);
    EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace dlm::serve
