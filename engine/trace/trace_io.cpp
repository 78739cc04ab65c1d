#include "trace/trace_io.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>

#include "trace/step_record_reader.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/json_depth.h"
#include "util/json_text.h"
#include "util/narrow_float.h"
#include "util/text_file.h"

namespace dlm {

// ordered: "type" stays the first key of every line, fields in schema order.
using json = nlohmann::ordered_json;

namespace {

// ---- writing ---------------------------------------------------------------------------------

// Doubles are written as is (nlohmann prints the shortest round-trip text); NaN/inf -> null.
json double_json(double d) {
    if (!std::isfinite(d)) return nullptr;
    return d;
}

std::string dump(const json& j) {
    // Token texts can hold partial UTF-8 sequences; replace them rather than fail the whole line.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// ---- reading ---------------------------------------------------------------------------------

const json& field(const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end()) throw Error(std::string("missing field '") + key + "'");
    return *it;
}

template <class T>
T get_as(const json& v, const char* key) {
    try {
        return v.get<T>();
    } catch (const json::exception&) {
        throw Error(std::string("field '") + key + "' has the wrong type (" + v.type_name() + ")");
    }
}

template <class T>
T req(const json& j, const char* key) {
    return get_as<T>(field(j, key), key);
}

template <class T>
T opt(const json& j, const char* key, T fallback) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    return get_as<T>(*it, key);
}

int req_int(const json& j, const char* key) {
    const json& v = field(j, key);
    if (!v.is_number_integer()) throw Error(std::string("field '") + key + "' must be an integer");
    const auto x = v.get<long long>();
    if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max())
        throw Error(std::string("field '") + key + "' is out of range");
    return static_cast<int>(x);
}

// null -> NaN (the writer's encoding of "not computed").
double num_or_nan(const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!it->is_number()) throw Error(std::string("field '") + key + "' must be a number or null");
    return it->get<double>();
}

json parse_object(const std::string& line) {
    if (json_nesting_depth(line) > limits::kMaxJsonDepth) {
        throw Error("JSON nested more than " + std::to_string(limits::kMaxJsonDepth) + " levels deep; refused");
    }
    json j;
    try {
        j = json::parse(line);
    } catch (const json::exception& e) {
        throw Error(std::string("malformed JSON (") + e.what() + ")");
    }
    if (!j.is_object()) throw Error("expected a JSON object");
    return j;
}

// Token ids: integers (1.5 or 1e20 are not ids, and must not be silently truncated) >= 0.
std::vector<int32_t> id_list(const json& j, const char* key) {
    const json& v = field(j, key);
    if (!v.is_array()) throw Error(std::string("field '") + key + "' must be an array of token ids");
    std::vector<int32_t> out;
    out.reserve(v.size());
    for (const json& x : v) {
        if (!x.is_number_integer() || x.get<long long>() < 0 || x.get<long long>() > std::numeric_limits<int32_t>::max()) {
            throw Error(std::string("field '") + key + "' must hold non-negative integer token ids, found " +
                        x.dump().substr(0, 40));
        }
        out.push_back(static_cast<int32_t>(x.get<long long>()));
    }
    return out;
}

// std::getline with a cap: a file without newlines (/dev/zero, a binary file) would otherwise
// be read whole into one line.
bool getline_limited(std::istream& in, std::string& line, uint64_t max_bytes, const std::string& source,
                     long long lineno) {
    line.clear();
    std::streambuf* sb = in.rdbuf();
    for (;;) {
        const int c = sb->sbumpc();
        if (c == std::char_traits<char>::eof()) {
            in.setstate(std::ios::eofbit);
            return !line.empty();
        }
        if (c == '\n') return true;
        line.push_back(static_cast<char>(c));
        if (line.size() > max_bytes) {
            throw Error(source + ":" + std::to_string(lineno) + ": line longer than " +
                        std::to_string(max_bytes / limits::kMiB) + " MiB; not a trace");
        }
    }
}

void expect_type(const json& j, const char* type) {
    const auto t = req<std::string>(j, "type");
    if (t != type) throw Error("expected a \"" + std::string(type) + "\" record, found \"" + t + "\"");
}

std::map<std::string, double> counters_from(const json& j) {
    std::map<std::string, double> out;
    auto it = j.find("counters");
    if (it == j.end() || it->is_null()) return out;
    if (!it->is_object()) throw Error("field 'counters' must be an object");
    for (const auto& [k, v] : it->items()) {
        if (v.is_null()) out[k] = std::numeric_limits<double>::quiet_NaN();
        else if (v.is_number()) out[k] = v.get<double>();
        else throw Error("counter '" + k + "' must be a number");
    }
    return out;
}

json counters_json(const std::map<std::string, double>& c) {
    json j = json::object();
    for (const auto& [k, v] : c) j[k] = double_json(v);
    return j;
}

}  // namespace

// ---- records <-> JSON --------------------------------------------------------------------------

std::string trace_header_to_json(const TraceHeader& h) {
    json j;
    j["type"] = "header";
    j["format"] = h.format;
    j["version"] = h.version;
    j["engine_version"] = h.engine_version;
    j["model"] = h.model;
    j["family"] = h.family;
    j["d_model"] = h.d_model;
    j["n_layers"] = h.n_layers;
    j["n_heads"] = h.n_heads;
    j["n_kv_heads"] = h.n_kv_heads;
    j["d_ff"] = h.d_ff;
    j["vocab_size"] = h.vocab_size;
    j["tokenizer"] = h.tokenizer;
    j["backend"] = h.backend;
    j["prompt"] = h.prompt;
    j["prompt_ids"] = h.prompt_ids;
    j["prompt_pieces"] = h.prompt_pieces;
    j["mask_id"] = h.mask_id;
    j["end_ids"] = h.end_ids;
    j["gen_length"] = h.gen_length;
    j["block_length"] = h.block_length;
    j["steps"] = h.steps;
    j["seed"] = h.seed;
    j["strategy"] = h.strategy;
    j["settings"] = h.settings;
    if (!h.requested.empty()) j["requested"] = h.requested;
    if (!h.model_defaults.empty()) j["model_defaults"] = h.model_defaults;
    return dump(j);
}

// Written as text directly, not through a JSON tree: the server writes one of these per step and a
// 1024-position record holds ~10,000 values. The bytes are what the tree's dump() gave
// (trace_io_test compares the two).
std::string step_trace_to_json(const StepTrace& s) {
    namespace jt = json_text;
    std::string o;
    o.reserve(256 + s.positions.size() * 360);
    o += "{\"type\":\"step\",";
    jt::append_key(o, "step"), jt::append_int(o, s.step), o += ',';
    jt::append_key(o, "block"), jt::append_int(o, s.block), o += ',';
    jt::append_key(o, "strategy"), jt::append_string(o, s.strategy), o += ',';
    jt::append_key(o, "wall_ms"), jt::append_double(o, s.wall_ms), o += ',';
    jt::append_key(o, "rows_computed"), jt::append_int(o, s.rows_computed), o += ',';
    jt::append_key(o, "rows_total"), jt::append_int(o, s.rows_total), o += ',';
    jt::append_key(o, "paper_flops"), jt::append_double(o, s.paper_flops), o += ',';
    jt::append_key(o, "paper_flops_dense"), jt::append_double(o, s.paper_flops_dense), o += ',';
    jt::append_key(o, "lm_head_flops"), jt::append_double(o, s.lm_head_flops), o += ',';
    jt::append_key(o, "guider_flops"), jt::append_double(o, s.guider_flops), o += ',';
    jt::append_key(o, "newly_unmasked"), jt::append_int(o, s.newly_unmasked), o += ',';
    jt::append_key(o, "counters"), o += '{';
    for (auto it = s.counters.begin(); it != s.counters.end(); ++it) {
        if (it != s.counters.begin()) o += ',';
        jt::append_string(o, it->first), o += ':', jt::append_double(o, it->second);
    }
    o += "},";
    jt::append_key(o, "positions"), o += '[';
    for (size_t i = 0; i < s.positions.size(); ++i) {
        const PositionTrace& p = s.positions[i];
        if (i) o += ',';
        o += '{';
        jt::append_key(o, "pos"), jt::append_int(o, p.pos), o += ',';
        jt::append_key(o, "state"), jt::append_string(o, pos_state_name(p.state)), o += ',';
        jt::append_key(o, "event"), jt::append_string(o, pos_event_name(p.event)), o += ',';
        jt::append_key(o, "token"), jt::append_int(o, p.token), o += ',';
        jt::append_key(o, "text"), jt::append_string(o, p.text), o += ',';
        jt::append_key(o, "confidence"), jt::append_float(o, p.confidence), o += ',';
        jt::append_key(o, "entropy"), jt::append_float(o, p.entropy), o += ',';
        jt::append_key(o, "kl"), jt::append_float(o, p.kl), o += ',';
        jt::append_key(o, "top"), o += '[';
        for (size_t k = 0; k < p.top.size(); ++k) {
            const Candidate& c = p.top[k];
            if (k) o += ',';
            o += '{';
            jt::append_key(o, "id"), jt::append_int(o, c.id), o += ',';
            jt::append_key(o, "p"), jt::append_float(o, c.p), o += ',';
            jt::append_key(o, "text"), jt::append_string(o, c.text);
            o += '}';
        }
        o += "]}";
    }
    o += "]}";
    return o;
}

std::string trace_summary_to_json(const TraceSummary& s) {
    json j;
    j["type"] = "summary";
    j["text"] = s.text;
    j["steps"] = s.steps;
    j["wall_s"] = double_json(s.wall_s);
    j["paper_flops"] = double_json(s.paper_flops);
    j["paper_flops_dense"] = double_json(s.paper_flops_dense);
    j["lm_head_flops"] = double_json(s.lm_head_flops);
    j["guider_flops"] = double_json(s.guider_flops);
    j["rows_computed"] = s.rows_computed;
    j["rows_total"] = s.rows_total;
    j["tokens_unmasked"] = s.tokens_unmasked;
    j["masks_left"] = s.masks_left;
    j["counters"] = counters_json(s.counters);
    // Derived, for readers that do not recompute them (jq, spreadsheets).
    j["flops_ratio"] = double_json(s.flops_ratio());
    j["e2e_tps"] = double_json(s.e2e_tps());
    return dump(j);
}

TraceHeader trace_header_from_json(const std::string& line) {
    const json j = parse_object(line);
    expect_type(j, "header");
    TraceHeader h;
    h.format = req<std::string>(j, "format");
    if (h.format != "dlmscope-trace") throw Error("not a dlmscope trace (format \"" + h.format + "\")");
    h.version = req_int(j, "version");
    if (h.version != 1) throw Error("trace format version " + std::to_string(h.version) + " is not supported (this build reads version 1)");
    h.engine_version = opt<std::string>(j, "engine_version", "");
    h.model = opt<std::string>(j, "model", "");
    h.family = req<std::string>(j, "family");
    h.d_model = req_int(j, "d_model");
    h.n_layers = req_int(j, "n_layers");
    h.n_heads = req_int(j, "n_heads");
    h.n_kv_heads = req_int(j, "n_kv_heads");
    h.d_ff = req_int(j, "d_ff");
    h.vocab_size = req_int(j, "vocab_size");
    h.tokenizer = opt<std::string>(j, "tokenizer", "");
    h.backend = opt<std::string>(j, "backend", "");
    h.prompt = opt<std::string>(j, "prompt", "");
    h.prompt_ids = id_list(j, "prompt_ids");
    h.prompt_pieces = opt<std::vector<std::string>>(j, "prompt_pieces", {});
    h.mask_id = req_int(j, "mask_id");
    if (j.contains("end_ids")) h.end_ids = id_list(j, "end_ids");
    h.gen_length = req_int(j, "gen_length");
    if (h.gen_length < 0 || h.gen_length > kMaxTraceGenLength) {
        throw Error("field 'gen_length' is " + std::to_string(h.gen_length) + ", outside 0.." +
                    std::to_string(kMaxTraceGenLength));
    }
    h.block_length = req_int(j, "block_length");
    if (h.block_length < 0) throw Error("field 'block_length' must not be negative");
    h.steps = req_int(j, "steps");
    if (h.steps < 0) throw Error("field 'steps' must not be negative");
    const json& seed = field(j, "seed");
    if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<long long>() >= 0))
        throw Error("field 'seed' must be a non-negative integer");
    h.seed = seed.get<uint64_t>();
    h.strategy = req<std::string>(j, "strategy");
    h.settings = opt<std::map<std::string, std::string>>(j, "settings", {});
    h.requested = opt<std::map<std::string, std::string>>(j, "requested", {});
    h.model_defaults = opt<std::map<std::string, std::string>>(j, "model_defaults", {});
    return h;
}

StepTrace step_trace_from_json(const std::string& line) {
    if (auto fast = read_step_record_fast(line)) return std::move(*fast);  // the writer's own layout
    const json j = parse_object(line);
    expect_type(j, "step");
    StepTrace s;
    s.step = req_int(j, "step");
    s.block = req_int(j, "block");
    s.strategy = opt<std::string>(j, "strategy", "");
    s.wall_ms = num_or_nan(j, "wall_ms");
    s.rows_computed = req_int(j, "rows_computed");
    s.rows_total = req_int(j, "rows_total");
    s.paper_flops = num_or_nan(j, "paper_flops");
    s.paper_flops_dense = num_or_nan(j, "paper_flops_dense");
    s.lm_head_flops = num_or_nan(j, "lm_head_flops");
    s.guider_flops = opt<double>(j, "guider_flops", 0.0);
    s.newly_unmasked = req_int(j, "newly_unmasked");
    s.counters = counters_from(j);
    const json& positions = field(j, "positions");
    if (!positions.is_array()) throw Error("field 'positions' must be an array");
    s.positions.reserve(positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i) {
        const json& jp = positions[i];
        try {
            if (!jp.is_object()) throw Error("expected an object");
            PositionTrace p;
            p.pos = req_int(jp, "pos");
            p.state = parse_pos_state(req<std::string>(jp, "state"));
            p.event = parse_pos_event(opt<std::string>(jp, "event", "none"));
            p.token = req_int(jp, "token");
            p.text = opt<std::string>(jp, "text", "");
            p.confidence = narrow_to_float(num_or_nan(jp, "confidence"));
            p.entropy = narrow_to_float(num_or_nan(jp, "entropy"));
            p.kl = narrow_to_float(num_or_nan(jp, "kl"));
            auto top = jp.find("top");
            if (top != jp.end() && !top->is_null()) {
                if (!top->is_array()) throw Error("field 'top' must be an array");
                for (const json& c : *top) {
                    if (!c.is_object()) throw Error("'top' entries must be objects");
                    p.top.push_back({req_int(c, "id"), narrow_to_float(num_or_nan(c, "p")),
                                     opt<std::string>(c, "text", "")});
                }
            }
            s.positions.push_back(std::move(p));
        } catch (const Error& e) {
            throw Error("position " + std::to_string(i) + ": " + e.what());
        }
    }
    return s;
}

TraceSummary trace_summary_from_json(const std::string& line) {
    const json j = parse_object(line);
    expect_type(j, "summary");
    TraceSummary s;
    s.text = opt<std::string>(j, "text", "");
    s.steps = req_int(j, "steps");
    s.wall_s = num_or_nan(j, "wall_s");
    s.paper_flops = num_or_nan(j, "paper_flops");
    s.paper_flops_dense = num_or_nan(j, "paper_flops_dense");
    s.lm_head_flops = num_or_nan(j, "lm_head_flops");
    s.guider_flops = opt<double>(j, "guider_flops", 0.0);
    s.rows_computed = req<long long>(j, "rows_computed");
    s.rows_total = req<long long>(j, "rows_total");
    s.tokens_unmasked = req_int(j, "tokens_unmasked");
    s.masks_left = opt<int>(j, "masks_left", 0);  // traces written before it was recorded
    s.counters = counters_from(j);
    return s;
}

// ---- writer ------------------------------------------------------------------------------------

TraceWriter::TraceWriter(const std::filesystem::path& path)
    : file_(std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc)), path_(path.string()) {
    if (!*file_) throw Error("cannot create trace file " + path_);
    out_ = file_.get();
}

TraceWriter::TraceWriter(std::ostream& out) : out_(&out), path_("<stream>") {}

TraceWriter::~TraceWriter() {
    if (out_) out_->flush();
}

void TraceWriter::write_line(const std::string& line) {
    *out_ << line << '\n';
    if (!*out_) throw Error("writing trace " + path_ + " failed (disk full or file removed?)");
}

void TraceWriter::write_header(const TraceHeader& h) { write_line(trace_header_to_json(h)); }
void TraceWriter::write_step(const StepTrace& s) { write_line(step_trace_to_json(s)); }
void TraceWriter::write_summary(const TraceSummary& s) { write_line(trace_summary_to_json(s)); }

void TraceWriter::flush() {
    out_->flush();
    if (!*out_) throw Error("writing trace " + path_ + " failed (disk full or file removed?)");
}

// ---- reader ------------------------------------------------------------------------------------

TraceFile parse_trace(std::istream& in, const std::string& source) {
    TraceFile f;
    bool have_header = false, have_summary = false;
    std::string line;
    long long lineno = 0;
    while (getline_limited(in, line, limits::kTraceLineBytes, source, lineno + 1)) {
        ++lineno;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        const auto where = source + ":" + std::to_string(lineno) + ": ";
        try {
            const json j = parse_object(line);
            const auto type = req<std::string>(j, "type");
            if (have_summary) throw Error("a \"" + type + "\" record after the summary (the summary must be last)");
            if (type == "header") {
                if (have_header) throw Error("a second header");
                f.header = trace_header_from_json(line);
                have_header = true;
            } else if (!have_header) {
                throw Error("the first record must be the header, found \"" + type + "\"");
            } else if (type == "step") {
                StepTrace s = step_trace_from_json(line);
                // A viewer indexes its grid by position: every one must lie on the header's canvas.
                const int gen = f.header.gen_length;
                if (gen > 0 && static_cast<long long>(s.positions.size()) > gen) {
                    throw Error("step has " + std::to_string(s.positions.size()) + " positions but gen_length is " +
                                std::to_string(gen));
                }
                for (const PositionTrace& p : s.positions) {
                    if (p.pos < 0 || (gen > 0 && p.pos >= gen)) {
                        throw Error("position index " + std::to_string(p.pos) + " is outside the canvas (gen_length " +
                                    std::to_string(gen) + ")");
                    }
                }
                if (s.step != static_cast<int>(f.steps.size()))
                    throw Error("step " + std::to_string(s.step) + " out of order (expected step " +
                                std::to_string(f.steps.size()) + ")");
                f.steps.push_back(std::move(s));
            } else if (type == "summary") {
                f.summary = trace_summary_from_json(line);
                have_summary = true;
            } else {
                throw Error("unknown record type \"" + type + "\" (expected header, step or summary)");
            }
        } catch (const Error& e) {
            throw Error(where + e.what());
        }
    }
    if (in.bad()) throw Error(source + ": read error");
    if (!have_header) throw Error(source + ": not a trace (no header line)");
    return f;
}

TraceFile read_trace(const std::filesystem::path& path) {
    require_regular_file(path, "trace");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open trace file " + path.string());
    return parse_trace(in, path.string());
}

}  // namespace dlm
