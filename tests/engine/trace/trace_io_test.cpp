// NDJSON trace files: round trip and the errors a user sees for broken files.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <unistd.h>

#include "trace/step_record_reader.h"
#include "trace/trace_io.h"
#include "util/error.h"
#include "util/narrow_float.h"

namespace dlm {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TraceHeader sample_header() {
    TraceHeader h;
    h.engine_version = "0.1.0";
    h.model = "LLaDA-8B-Instruct";
    h.family = "llada";
    h.d_model = 4096;
    h.n_layers = 32;
    h.n_heads = 32;
    h.n_kv_heads = 32;
    h.d_ff = 12288;
    h.vocab_size = 126464;
    h.tokenizer = "hf-bpe";
    h.backend = "cpu";
    h.prompt = "Quote \"this\",\nthen a tab\t, a backslash \\ and ünïcødé 🙂";
    h.prompt_ids = {126080, 126346, 0, 7, 2147483647};
    h.prompt_pieces = {"<|startoftext|>", "<|start_header_id|>", "!", "", "x"};
    h.mask_id = 126336;
    h.end_ids = {126081, 126348};
    h.gen_length = 128;
    h.block_length = 32;
    h.steps = 128;
    h.seed = 18446744073709551615ull;
    h.strategy = "baseline";
    h.settings = {{"temperature", "0.1"}, {"surelock.epsilon", "5e-4"}, {"sampler", "llada"}};
    h.requested = {{"temperature", "0.1"}, {"surelock.epsilon", "5e-4"}, {"sampler", "auto"}};
    h.model_defaults = {{"temperature", "0.2"}, {"top_p", "0.95"}};
    return h;
}

StepTrace sample_step(int index) {
    StepTrace s;
    s.step = index;
    s.block = index / 2;
    s.strategy = "baseline";
    s.wall_ms = 12.345678901234;
    s.rows_computed = 320;
    s.rows_total = 320;
    s.paper_flops = 4.5205e12 + 0.125;
    s.paper_flops_dense = 4.520512345678e12;
    s.lm_head_flops = 3.315e11;
    s.guider_flops = 0;
    s.newly_unmasked = 3;
    s.counters = {{"remasks", 2}, {"locks", 0.5}};
    PositionTrace a;
    a.pos = 0;
    a.state = PosState::Active;
    a.event = PosEvent::Unmask;
    a.token = 1234;
    a.text = " Hello";
    a.confidence = 0.1f;
    a.entropy = 3.14159274f;
    a.kl = 1.17549435e-38f;
    a.top = {{1234, 0.1f, " Hello"}, {99, 0.05f, "\"q\""}};
    PositionTrace b;
    b.pos = 1;
    b.state = PosState::Masked;
    b.token = 126336;
    b.text = "<|mdm_mask|>";  // confidence etc. stay NaN: not computed
    PositionTrace c;
    c.pos = 2;
    c.state = PosState::Locked;
    c.event = PosEvent::FlipFlop;
    c.token = 5;
    c.confidence = 0.99999994f;
    c.entropy = 0.f;
    c.kl = 123456.789f;
    s.positions = {a, b, c};
    return s;
}

TraceSummary sample_summary() {
    TraceSummary s;
    s.text = "The answer is 42.\n";
    s.steps = 2;
    s.wall_s = 0.0246;
    s.paper_flops = 9.041e12;
    s.paper_flops_dense = 9.041e12;
    s.lm_head_flops = 6.63e11;
    s.rows_computed = 640;
    s.rows_total = 640;
    s.tokens_unmasked = 6;
    s.masks_left = 2;
    s.counters = {{"remasks", 4}};
    return s;
}

void expect_float_eq(float got, float want) {
    if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got));
    } else {
        EXPECT_EQ(got, want);  // floats are written with enough digits to read back exactly
    }
}

void expect_same(const StepTrace& a, const StepTrace& b) {
    EXPECT_EQ(a.step, b.step);
    EXPECT_EQ(a.block, b.block);
    EXPECT_EQ(a.strategy, b.strategy);
    EXPECT_DOUBLE_EQ(a.wall_ms, b.wall_ms);
    EXPECT_EQ(a.rows_computed, b.rows_computed);
    EXPECT_EQ(a.rows_total, b.rows_total);
    EXPECT_EQ(a.paper_flops, b.paper_flops);
    EXPECT_EQ(a.paper_flops_dense, b.paper_flops_dense);
    EXPECT_EQ(a.lm_head_flops, b.lm_head_flops);
    EXPECT_EQ(a.newly_unmasked, b.newly_unmasked);
    EXPECT_EQ(a.counters, b.counters);
    ASSERT_EQ(a.positions.size(), b.positions.size());
    for (std::size_t i = 0; i < a.positions.size(); ++i) {
        const auto &p = a.positions[i], &q = b.positions[i];
        EXPECT_EQ(p.pos, q.pos);
        EXPECT_EQ(p.state, q.state);
        EXPECT_EQ(p.event, q.event);
        EXPECT_EQ(p.token, q.token);
        EXPECT_EQ(p.text, q.text);
        expect_float_eq(p.confidence, q.confidence);
        expect_float_eq(p.entropy, q.entropy);
        expect_float_eq(p.kl, q.kl);
        ASSERT_EQ(p.top.size(), q.top.size());
        for (std::size_t k = 0; k < p.top.size(); ++k) {
            EXPECT_EQ(p.top[k].id, q.top[k].id);
            expect_float_eq(p.top[k].p, q.top[k].p);
            EXPECT_EQ(p.top[k].text, q.top[k].text);
        }
    }
}

TEST(Trace, StateAndEventNamesRoundTrip) {
    for (auto s : {PosState::Prompt, PosState::Masked, PosState::Active, PosState::Locked, PosState::Frozen,
                   PosState::Seed})
        EXPECT_EQ(parse_pos_state(pos_state_name(s)), s);
    for (auto e : {PosEvent::None, PosEvent::Unmask, PosEvent::Remask, PosEvent::Replace, PosEvent::FlipFlop,
                   PosEvent::Lock, PosEvent::Unlock, PosEvent::Keep})
        EXPECT_EQ(parse_pos_event(pos_event_name(e)), e);
    EXPECT_EQ(pos_event_name(PosEvent::FlipFlop), "flipflop");
    EXPECT_THROW(parse_pos_state("unmasked"), Error);
    EXPECT_THROW(parse_pos_event(""), Error);
}

TEST(Trace, WriteReadRoundTrip) {
    std::stringstream io;
    {
        TraceWriter w(io);
        w.write_header(sample_header());
        w.write_step(sample_step(0));
        w.write_step(sample_step(1));
        w.write_summary(sample_summary());
        w.flush();
    }
    // One JSON object per line, each with its type.
    std::string text = io.str();
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
    EXPECT_EQ(text.rfind("{\"type\":\"header\"", 0), 0u);
    EXPECT_NE(text.find("\"type\":\"header\""), std::string::npos);
    EXPECT_NE(text.find("\"confidence\":null"), std::string::npos);  // NaN -> null
    EXPECT_NE(text.find("\"confidence\":0.1,"), std::string::npos);  // shortest float text

    const TraceFile f = parse_trace(io, "mem");
    const TraceHeader h = sample_header();
    EXPECT_EQ(f.header.format, "dlmscope-trace");
    EXPECT_EQ(f.header.version, 1);
    EXPECT_EQ(f.header.model, h.model);
    EXPECT_EQ(f.header.prompt, h.prompt);
    EXPECT_EQ(f.header.prompt_ids, h.prompt_ids);
    EXPECT_EQ(f.header.prompt_pieces, h.prompt_pieces);
    EXPECT_EQ(f.header.seed, h.seed);
    EXPECT_EQ(f.header.settings, h.settings);
    EXPECT_EQ(f.header.requested, h.requested);
    EXPECT_EQ(f.header.model_defaults, h.model_defaults);
    EXPECT_EQ(f.header.vocab_size, h.vocab_size);
    EXPECT_EQ(f.header.mask_id, h.mask_id);
    EXPECT_EQ(f.header.end_ids, h.end_ids);
    EXPECT_EQ(f.header.block_length, h.block_length);
    ASSERT_EQ(f.steps.size(), 2u);
    expect_same(f.steps[0], sample_step(0));
    expect_same(f.steps[1], sample_step(1));
    ASSERT_TRUE(f.summary.has_value());
    EXPECT_EQ(f.summary->text, sample_summary().text);
    EXPECT_EQ(f.summary->rows_computed, 640);
    EXPECT_EQ(f.summary->tokens_unmasked, 6);
    EXPECT_EQ(f.summary->masks_left, 2);
    EXPECT_EQ(f.summary->counters, sample_summary().counters);
    EXPECT_DOUBLE_EQ(f.summary->wall_s, 0.0246);
}

// The reference for the direct writer: the same record built as a JSON tree and dumped by the
// library, as trace files were written before. Both must give the same bytes.
std::string step_via_json_tree(const StepTrace& s) {
    using json = nlohmann::ordered_json;
    auto num = [](double d) -> json { return std::isfinite(d) ? json(d) : json(nullptr); };
    auto flt = [](float f) -> json {
        if (!std::isfinite(f)) return nullptr;
        char buf[32];
        *std::to_chars(buf, buf + 31, f).ptr = '\0';
        return std::strtod(buf, nullptr);
    };
    json j;
    j["type"] = "step";
    j["step"] = s.step;
    j["block"] = s.block;
    j["strategy"] = s.strategy;
    j["wall_ms"] = num(s.wall_ms);
    j["rows_computed"] = s.rows_computed;
    j["rows_total"] = s.rows_total;
    j["paper_flops"] = num(s.paper_flops);
    j["paper_flops_dense"] = num(s.paper_flops_dense);
    j["lm_head_flops"] = num(s.lm_head_flops);
    j["guider_flops"] = num(s.guider_flops);
    j["newly_unmasked"] = s.newly_unmasked;
    json counters = json::object();
    for (const auto& [k, v] : s.counters) counters[k] = num(v);
    j["counters"] = counters;
    json positions = json::array();
    for (const PositionTrace& p : s.positions) {
        json jp;
        jp["pos"] = p.pos;
        jp["state"] = pos_state_name(p.state);
        jp["event"] = pos_event_name(p.event);
        jp["token"] = p.token;
        jp["text"] = p.text;
        jp["confidence"] = flt(p.confidence);
        jp["entropy"] = flt(p.entropy);
        jp["kl"] = flt(p.kl);
        json top = json::array();
        for (const Candidate& c : p.top) top.push_back({{"id", c.id}, {"p", flt(c.p)}, {"text", c.text}});
        jp["top"] = top;
        positions.push_back(jp);
    }
    j["positions"] = positions;
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Records with every awkward value: invalid UTF-8, control characters, NaN, infinities, extreme
// and random bit-pattern doubles and floats, empty and missing parts.
StepTrace awkward_step(std::mt19937& rng, int round) {
    static const std::vector<std::string> texts = {
        "", "plain", "quote \" back \\ slash", "\n\r\t\b\f", std::string("nul\0byte", 8), "\x01\x1f\x7f",
        "ünïcødé 🙂", "\x80", "abc\xe2\x82", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf0\x9f\x99",
        "\xe0\x80\xaf", "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf", "ok\xff", "\xc2\xa0"};
    static const std::vector<double> doubles = {0.0, -0.0, 1.0, 2.5, 1e-5, 1e-4, 0.0001234, 1e15, 1e16, 1e21,
                                                123456789012.0, 4.5205e12 + 0.125, 5e-324, 1.7976931348623157e308,
                                                -3.25, std::nan(""), INFINITY, -INFINITY};
    auto pick_float = [&]() -> float {
        switch (rng() % 6) {
            case 0: return kNaN;
            case 1: return narrow_to_float(doubles[rng() % doubles.size()]);  // 1.8e308 -> inf
            case 2: return std::ldexp(static_cast<float>(rng() % 100000) / 100000.f, -static_cast<int>(rng() % 40));
            case 3: return 1.0f;
            case 4: return static_cast<float>(rng() % 1000) * 0.001f;
            default: return std::bit_cast<float>(static_cast<uint32_t>(rng()));
        }
    };
    StepTrace s = sample_step(round);
    s.strategy = texts[rng() % texts.size()];
    s.wall_ms = doubles[rng() % doubles.size()];
    s.paper_flops = doubles[rng() % doubles.size()];
    s.guider_flops = std::bit_cast<double>(static_cast<uint64_t>(rng()) << 32 | rng());
    s.newly_unmasked = static_cast<int>(static_cast<int64_t>(rng()) - (int64_t(1) << 31));  // the whole int range
    s.counters[texts[rng() % texts.size()]] = doubles[rng() % doubles.size()];
    for (PositionTrace& p : s.positions) {
        p.text = texts[rng() % texts.size()];
        p.confidence = pick_float();
        p.entropy = pick_float();
        p.kl = pick_float();
        p.token = static_cast<int32_t>(rng());
        for (Candidate& c : p.top) {
            c.text = texts[rng() % texts.size()];
            c.p = pick_float();
        }
    }
    if (round % 10 == 0) s.positions.clear();
    if (round % 7 == 0) s.counters.clear();
    if (round % 5 == 0 && !s.positions.empty()) s.positions[0].top.clear();
    return s;
}

TEST(Trace, StepRecordsAreTheBytesAJsonTreeGives) {
    std::mt19937 rng(7);
    for (int round = 0; round < 200; ++round) {
        const StepTrace s = awkward_step(rng, round);
        ASSERT_EQ(step_trace_to_json(s), step_via_json_tree(s)) << "round " << round;
    }
}

// The fast reader reads every record the writer writes, and reads it as the tree reader does.
// The tree reader is reached by a line the fast one refuses: the same record with one more key.
TEST(Trace, FastStepReaderReadsWhatTheTreeReaderReads) {
    std::mt19937 rng(11);
    for (int round = 0; round < 200; ++round) {
        const std::string line = step_trace_to_json(awkward_step(rng, round));
        const auto fast = read_step_record_fast(line);
        ASSERT_TRUE(fast.has_value()) << "round " << round;
        const std::string other = line.substr(0, line.size() - 1) + ",\"from_a_newer_writer\":1}";
        ASSERT_FALSE(read_step_record_fast(other).has_value());
        const StepTrace tree = step_trace_from_json(other);
        ASSERT_EQ(step_trace_to_json(*fast), step_trace_to_json(tree)) << "round " << round;  // byte-exact writer
        ASSERT_EQ(step_trace_to_json(*fast), line);
    }
}

// Lines in another layout are the tree reader's: same values, or the same error as before.
TEST(Trace, FastStepReaderLeavesOtherLayoutsToTheTreeReader) {
    const StepTrace s = sample_step(3);
    const std::string line = step_trace_to_json(s);
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string t = line;
        const auto at = t.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return t.replace(at, from.size(), to);
    };
    const std::vector<std::string> same_record = {
        replaced("\"step\":3,\"block\":1,", "\"block\":1,\"step\":3,"),  // keys in another order
        replaced("\"event\":\"none\",", ""),                              // an optional key left out
        replaced(",\"guider_flops\":0.0", ",\"guider_flops\":null"),
        replaced("{\"type\":\"step\",", "{ \"type\" : \"step\" ,"),      // whitespace (the fast reader takes it)
    };
    for (const std::string& l : same_record) expect_same(step_trace_from_json(l), s);
    // A value past the float range (a hostile file) reads as infinity, by both readers.
    for (const char* v : {"1e300", "-1e300"}) {
        std::string l = line;
        const auto at = l.find("\"kl\":");
        l.replace(at, l.find(',', at) - at, std::string("\"kl\":") + v);
        const auto fast = read_step_record_fast(l);
        ASSERT_TRUE(fast.has_value());
        EXPECT_TRUE(std::isinf(fast->positions[0].kl));
        const std::string tree_only = l.substr(0, l.size() - 1) + ",\"z\":1}";  // a layout the fast reader refuses
        ASSERT_FALSE(read_step_record_fast(tree_only).has_value());
        EXPECT_TRUE(std::isinf(step_trace_from_json(tree_only).positions[0].kl));
    }
    EXPECT_TRUE(read_step_record_fast(same_record[3]).has_value());
    EXPECT_FALSE(read_step_record_fast(same_record[0]).has_value());
    EXPECT_FALSE(read_step_record_fast(same_record[1]).has_value());
    // Refused exactly as the tree reader refuses them.
    for (const auto& [l, message] : std::vector<std::pair<std::string, std::string>>{
             {replaced("\"step\":3,", "\"step\":3.5,"), "field 'step' must be an integer"},
             {replaced("\"step\":3,", ""), "missing field 'step'"},
             {replaced("{\"type\":\"step\"", "{\"type\":\"header\""), "header"},
             {line.substr(0, line.size() / 2), "malformed JSON"},
             {replaced("\"state\":\"", "\"state\":\"x"), "position 0"}}) {
        EXPECT_FALSE(read_step_record_fast(l).has_value());
        try {
            step_trace_from_json(l);
            ADD_FAILURE() << "accepted: " << l.substr(0, 80);
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    }
}

// A summary written before masks_left was recorded reads as a run that left no mask.
TEST(Trace, SummaryWithoutMasksLeftReadsAsZero) {
    nlohmann::json j = nlohmann::json::parse(trace_summary_to_json(sample_summary()));
    ASSERT_EQ(j.at("masks_left"), 2);
    j.erase("masks_left");
    EXPECT_EQ(trace_summary_from_json(j.dump()).masks_left, 0);
}

TEST(Trace, FileRoundTripWithoutSummary) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("dlm-trace-test-" + std::to_string(::getpid()) + ".ndjson");
    {
        TraceWriter w(path);
        w.write_header(sample_header());
        w.write_step(sample_step(0));
    }
    const TraceFile f = read_trace(path);
    EXPECT_EQ(f.steps.size(), 1u);
    EXPECT_FALSE(f.summary.has_value());
    std::filesystem::remove(path);
    EXPECT_THROW(read_trace(path), Error);
    EXPECT_THROW(TraceWriter(std::filesystem::path("/nonexistent-dir/x.ndjson")), Error);
}

std::string parse_error(const std::string& text) {
    std::istringstream in(text);
    try {
        parse_trace(in, "t.ndjson");
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Trace, MalformedLinesNameTheLine) {
    const std::string header = trace_header_to_json(sample_header()) + "\n";
    const std::string step0 = step_trace_to_json(sample_step(0)) + "\n";
    auto msg = parse_error(header + step0 + "{\"type\":\"step\",\"step\":1,\n");
    EXPECT_NE(msg.find("t.ndjson:3: malformed JSON"), std::string::npos) << msg;
    msg = parse_error(header + "\n" + step_trace_to_json(sample_step(1)) + "\n");
    EXPECT_NE(msg.find("t.ndjson:3: step 1 out of order (expected step 0)"), std::string::npos) << msg;
    msg = parse_error(step0);
    EXPECT_NE(msg.find("t.ndjson:1: the first record must be the header"), std::string::npos) << msg;
    msg = parse_error(header + header);
    EXPECT_NE(msg.find(":2: a second header"), std::string::npos) << msg;
    msg = parse_error(header + "{\"type\":\"frame\"}\n");
    EXPECT_NE(msg.find(":2: unknown record type \"frame\""), std::string::npos) << msg;
    msg = parse_error(header + "[1,2]\n");
    EXPECT_NE(msg.find(":2: expected a JSON object"), std::string::npos) << msg;
    msg = parse_error(header + "{\"step\":0}\n");
    EXPECT_NE(msg.find(":2: missing field 'type'"), std::string::npos) << msg;
    msg = parse_error(header + trace_summary_to_json(sample_summary()) + "\n" + step0);
    EXPECT_NE(msg.find(":3: a \"step\" record after the summary"), std::string::npos) << msg;
    msg = parse_error("");
    EXPECT_NE(msg.find("no header"), std::string::npos) << msg;
}

TEST(Trace, HostileHeadersAndLinesAreRefused) {
    const std::string header = trace_header_to_json(sample_header());
    auto with = [&](const std::string& from, const std::string& to) {
        std::string h = header;
        const auto at = h.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return h.replace(at, from.size(), to) + "\n";
    };
    // A canvas no viewer can lay out (the app once tried to allocate it).
    auto msg = parse_error(with("\"gen_length\":128", "\"gen_length\":2147483647"));
    EXPECT_NE(msg.find(":1: field 'gen_length' is 2147483647, outside 0..131072"), std::string::npos) << msg;
    msg = parse_error(with("\"gen_length\":128", "\"gen_length\":-1"));
    EXPECT_NE(msg.find("'gen_length'"), std::string::npos) << msg;
    // Token ids are integers: 1.5 and 1e20 are not truncated into ids.
    for (const char* bad : {"[1.5]", "[1e20]", "[-3]", "[\"7\"]"}) {
        msg = parse_error(with("\"prompt_ids\":[126080,126346,0,7,2147483647]", std::string("\"prompt_ids\":") + bad));
        EXPECT_NE(msg.find("'prompt_ids' must hold non-negative integer token ids"), std::string::npos) << bad << ": " << msg;
    }
    // Deep nesting anywhere in a line.
    msg = parse_error(header + "\n{\"type\":\"summary\",\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}\n");
    EXPECT_NE(msg.find(":2: JSON nested more than 64 levels"), std::string::npos) << msg;
    // A step whose positions lie off the header's canvas.
    StepTrace off = sample_step(0);
    off.positions.back().pos = 500;
    msg = parse_error(header + "\n" + step_trace_to_json(off) + "\n");
    EXPECT_NE(msg.find(":2: position index 500 is outside the canvas (gen_length 128)"), std::string::npos) << msg;
}

TEST(Trace, SpecialFilesAndEndlessLinesAreRefused) {
    // /dev/zero has no newline and no end: refused as not a regular file, never read whole.
    try {
        read_trace("/dev/zero");
        ADD_FAILURE() << "read /dev/zero as a trace";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
    // A stream with one line past the limit stops at the limit.
    struct Endless : std::streambuf {
        char block[4096];
        Endless() { std::fill(std::begin(block), std::end(block), 'x'); }
        int_type underflow() override {
            setg(block, block, block + sizeof block);
            return 'x';
        }
    } endless;
    std::istream in(&endless);
    try {
        parse_trace(in, "endless");
        ADD_FAILURE() << "read an endless line";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("endless:1: line longer than 64 MiB"), std::string::npos) << e.what();
    }
}

TEST(Trace, BadFieldsAreNamed) {
    const std::string header = trace_header_to_json(sample_header()) + "\n";
    std::string step = step_trace_to_json(sample_step(0));
    auto broken = step;
    broken.replace(broken.find("\"state\":\"active\""), 16, "\"state\":\"asleep\"");
    auto msg = parse_error(header + broken + "\n");
    EXPECT_NE(msg.find(":2: position 0: unknown position state 'asleep'"), std::string::npos) << msg;
    broken = step;
    broken.replace(broken.find("\"rows_computed\":320"), 19, "\"rows_computed\":\"x\"");
    msg = parse_error(header + broken + "\n");
    EXPECT_NE(msg.find("'rows_computed'"), std::string::npos) << msg;
    auto bad_header = trace_header_to_json(sample_header());
    bad_header.replace(bad_header.find("\"version\":1"), 11, "\"version\":9");
    msg = parse_error(bad_header + "\n");
    EXPECT_NE(msg.find("version 9 is not supported"), std::string::npos) << msg;
}

}  // namespace
}  // namespace dlm

namespace dlm {
namespace {

TEST(TraceSummary, AddStepAccumulatesCostAndCounters) {
    StepTrace a, b;
    a.wall_ms = 10.0;
    a.paper_flops = 3.0;
    a.paper_flops_dense = 6.0;
    a.rows_computed = 4;
    a.rows_total = 8;
    a.newly_unmasked = 2;
    a.counters["remasks"] = 1;
    b.wall_ms = 30.0;
    b.paper_flops = 1.0;
    b.paper_flops_dense = 6.0;
    b.guider_flops = 5.0;
    b.rows_computed = 2;
    b.rows_total = 8;
    b.newly_unmasked = 3;
    b.counters["remasks"] = 2;
    b.counters["locks"] = 4;
    TraceSummary s;
    s.add_step(a);
    s.add_step(b);
    EXPECT_EQ(s.steps, 2);
    EXPECT_DOUBLE_EQ(s.wall_s, 0.04);
    // A guider's forwards are the strategy's cost, as eval, bench and the app count them.
    EXPECT_DOUBLE_EQ(s.flops_ratio(), (4.0 + 5.0) / 12.0);
    // The baseline sampler: one dense forward (6 here) per generated position.
    EXPECT_DOUBLE_EQ(s.flops_ratio_to_baseline(10), (4.0 + 5.0) / 60.0);
    EXPECT_DOUBLE_EQ(TraceSummary{}.flops_ratio_to_baseline(10), 0.0);
    EXPECT_DOUBLE_EQ(s.guider_flops, 5.0);
    EXPECT_EQ(s.rows_computed, 6);
    EXPECT_EQ(s.rows_total, 16);
    EXPECT_EQ(s.tokens_unmasked, 5);
    EXPECT_DOUBLE_EQ(s.counters["remasks"], 3.0);
    EXPECT_DOUBLE_EQ(s.counters["locks"], 4.0);
    EXPECT_DOUBLE_EQ(s.e2e_tps(), 5 / 0.04);
}

}  // namespace
}  // namespace dlm
