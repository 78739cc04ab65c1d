#include "serve/protocol.h"

#include <limits>

#include "util/error.h"
#include "util/json_document.h"
#include "util/json_depth.h"

namespace dlm::serve {
namespace {

using nlohmann::json;

// Client messages nest at most 2 deep ({"settings": {...}}).
constexpr int kMaxMessageDepth = 4;
constexpr size_t kMaxSettings = 256;
constexpr size_t kMaxKeyBytes = 128;
constexpr size_t kMaxValueBytes = 4096;
constexpr size_t kMaxNameBytes = 1024;
constexpr size_t kMaxTokenBytes = 4096;
constexpr int64_t kMaxId = int64_t(1) << 53;  // exact in a JavaScript number

const json& field(const json& m, const char* name) {
    auto it = m.find(name);
    if (it == m.end()) throw Error(std::string("the message lacks \"") + name + "\"");
    return *it;
}

int64_t id_field(const json& m, const char* name) {
    const json& v = field(m, name);
    if (!v.is_number_integer()) throw Error(std::string("\"") + name + "\" must be an integer");
    const int64_t id = v.is_number_unsigned() ? (v.get<uint64_t>() > uint64_t(kMaxId) ? -1 : int64_t(v.get<uint64_t>()))
                                              : v.get<int64_t>();
    if (id < 1 || id > kMaxId) throw Error(std::string("\"") + name + "\" must be between 1 and 2^53");
    return id;
}

// An integer field of the server's message (limits, sizes, a queue position): anything but an
// integer that fits T is refused. The library converts a float such as 4e83 to an integer with a
// plain cast, which is undefined behaviour. (Run and request ids go through id_field, as they do
// in the client's messages.)
template <class T>
T integer_value(const json& v, const char* name) {
    bool fits = false;
    if (v.is_number_unsigned()) {
        fits = v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    } else if (v.is_number_integer()) {
        const int64_t i = v.get<int64_t>();
        fits = i >= 0 ? static_cast<uint64_t>(i) <= static_cast<uint64_t>(std::numeric_limits<T>::max())
                      : std::numeric_limits<T>::is_signed && i >= static_cast<int64_t>(std::numeric_limits<T>::min());
    }
    if (!fits) throw Error(std::string("\"") + name + "\" must be an integer, found " + v.dump().substr(0, 64));
    return v.get<T>();
}

template <class T>
T integer_or(const json& m, const char* name, T fallback) {
    auto it = m.find(name);
    return it == m.end() ? fallback : integer_value<T>(*it, name);
}

std::string string_field(const json& m, const char* name, size_t max_bytes, bool required = true) {
    auto it = m.find(name);
    if (it == m.end()) {
        if (required) throw Error(std::string("the message lacks \"") + name + "\"");
        return {};
    }
    if (!it->is_string()) throw Error(std::string("\"") + name + "\" must be a string");
    const auto& s = it->get_ref<const std::string&>();
    if (s.size() > max_bytes)
        throw Error(std::string("\"") + name + "\" is " + std::to_string(s.size()) + " bytes; the server takes at most " +
                    std::to_string(max_bytes));
    return s;
}

int chat_field(const json& m) {
    auto it = m.find("chat");
    if (it == m.end() || it->is_null()) return -1;
    if (!it->is_boolean()) throw Error("\"chat\" must be true or false");
    return it->get<bool>() ? 1 : 0;
}

// Settings travel as an object of strings (numbers and booleans are taken as their text); the
// engine checks them as it checks the CLI's --set.
std::map<std::string, std::string> settings_field(const json& m) {
    std::map<std::string, std::string> out;
    auto it = m.find("settings");
    if (it == m.end() || it->is_null()) return out;
    if (!it->is_object()) throw Error("\"settings\" must be an object of key: value");
    if (it->size() > kMaxSettings) throw Error("\"settings\" has more than " + std::to_string(kMaxSettings) + " entries");
    for (const auto& [k, v] : it->items()) {
        if (k.empty() || k.size() > kMaxKeyBytes) throw Error("a settings key is empty or longer than 128 bytes");
        std::string text;
        if (v.is_string()) text = v.get<std::string>();
        else if (v.is_boolean()) text = v.get<bool>() ? "true" : "false";
        else if (v.is_number_integer()) text = v.dump();
        else if (v.is_number_float()) text = v.dump();
        else throw Error("setting \"" + k + "\" must be a string, a number or a boolean");
        if (text.size() > kMaxValueBytes) throw Error("setting \"" + k + "\" is longer than 4096 bytes");
        out.emplace(k, std::move(text));
    }
    return out;
}

// The gen length a client may ask for, checked before a session is built (the engine checks the
// rest against the model).
void check_gen_length(const std::map<std::string, std::string>& settings, const ServeLimits& limits) {
    auto it = settings.find("gen_length");
    if (it == settings.end()) return;
    long long gen = 0;
    try {
        size_t used = 0;
        gen = std::stoll(it->second, &used);
        if (used != it->second.size()) gen = -1;
    } catch (const std::exception&) {
        gen = -1;
    }
    if (gen < 1) throw Error("gen_length must be a positive integer, not '" + it->second + "'");
    if (gen > limits.max_gen_length)
        throw Error("gen_length " + it->second + " is past this server's limit of " + std::to_string(limits.max_gen_length));
}

DecodeRequest decode_request(const json& m, const ServeLimits& limits) {
    DecodeRequest r;
    r.model = string_field(m, "model", kMaxNameBytes, false);
    r.prompt = string_field(m, "prompt", size_t(limits.max_prompt_bytes));
    r.chat = chat_field(m);
    r.settings = settings_field(m);
    return r;
}

json limits_json(const ServeLimits& l) {
    return {{"max_message_bytes", l.max_message_bytes}, {"max_prompt_bytes", l.max_prompt_bytes},
            {"max_gen_length", l.max_gen_length},       {"max_runs_per_client", l.max_runs_per_client},
            {"max_active_runs", l.max_active_runs},     {"max_clients", l.max_clients}};
}

json listing_json(const ModelListing& m) {
    return {{"name", m.name},
            {"family", m.family},
            {"summary", m.summary},
            {"tokenizer", m.tokenizer},
            {"vocab", m.vocab},
            {"max_seq_len", m.max_seq_len},
            {"chat_template", m.chat_template},
            {"chat_template_name", m.chat_template_name},
            {"chat_template_note", m.chat_template_note},
            {"backend", m.backend},
            {"backend_note", m.backend_note},
            {"default_settings", m.default_settings},
            {"default_task", m.default_task},
            {"default_notes", m.default_notes}};
}

json message(const char* type) { return {{"v", kProtocolVersion}, {"type", type}}; }

std::string dump(const json& j) {
    // Invalid UTF-8 (a token's bytes, an error quoting a client's text) is replaced, never thrown.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

ClientMessage parse_client_message(std::string_view text, const ServeLimits& limits) {
    if (text.size() > limits.max_message_bytes)
        throw Error("the message is " + std::to_string(text.size()) + " bytes; the server takes at most " +
                    std::to_string(limits.max_message_bytes));
    check_json_depth(text, "the message", kMaxMessageDepth);
    const json m = parse_json_document(text, "the message");
    if (!m.is_object()) throw Error("a message must be a JSON object");
    const json& v = field(m, "v");
    if (!v.is_number_integer() || v.get<int64_t>() != kProtocolVersion)
        throw Error("this server speaks protocol version " + std::to_string(kProtocolVersion) + ", not " + v.dump());
    const std::string type = string_field(m, "type", 32);
    if (type == "hello") return Hello{string_field(m, "token", kMaxTokenBytes, false)};
    if (type == "models") return ListModels{};
    if (type == "run") {
        RunRequest r;
        static_cast<DecodeRequest&>(r) = decode_request(m, limits);
        r.run = id_field(m, "run");
        check_gen_length(r.settings, limits);
        return r;
    }
    if (type == "validate") {
        ValidateRequest r;
        static_cast<DecodeRequest&>(r) = decode_request(m, limits);
        r.request = id_field(m, "request");
        return r;
    }
    static const std::map<std::string, ControlKind> controls{
        {"pause", ControlKind::Pause}, {"resume", ControlKind::Resume}, {"step", ControlKind::Step}, {"cancel", ControlKind::Cancel}};
    if (auto it = controls.find(type); it != controls.end()) return Control{it->second, id_field(m, "run")};
    throw Error("unknown message type '" + type + "' (hello, models, run, pause, resume, step, cancel, validate)");
}

std::string welcome_message(const std::string& server, const std::vector<ModelListing>& models, const ServeLimits& limits) {
    json m = message("welcome");
    m["server"] = server;
    m["models"] = json::array();
    for (const auto& l : models) m["models"].push_back(listing_json(l));
    m["limits"] = limits_json(limits);
    return dump(m);
}

std::string models_message(const std::vector<ModelListing>& models) {
    json m = message("models");
    m["models"] = json::array();
    for (const auto& l : models) m["models"].push_back(listing_json(l));
    return dump(m);
}

std::string queued_message(int64_t run, int position) {
    json m = message("queued");
    m["run"] = run;
    m["position"] = position;
    return dump(m);
}

std::string record_message(int64_t run, const std::string& record_json) {
    // Embedded verbatim: the client hands the record to the same reader a trace file uses.
    return "{\"v\":" + std::to_string(kProtocolVersion) + ",\"type\":\"record\",\"run\":" + std::to_string(run) +
           ",\"record\":" + record_json + "}";
}

std::string end_message(int64_t run, RunEnd end, const std::string& error) {
    json m = message("end");
    m["run"] = run;
    m["status"] = end == RunEnd::Done ? "done" : end == RunEnd::Cancelled ? "cancelled" : "failed";
    if (end == RunEnd::Failed) m["error"] = error;
    return dump(m);
}

std::string issues_message(int64_t request, const std::vector<SettingsIssue>& issues) {
    json m = message("issues");
    m["request"] = request;
    m["issues"] = json::array();
    for (const auto& i : issues)
        m["issues"].push_back({{"severity", i.is_error() ? "error" : "warning"}, {"key", i.key}, {"message", i.message}});
    return dump(m);
}

std::string error_message(const std::string& text, int64_t run) {
    json m = message("error");
    if (run > 0) m["run"] = run;
    m["message"] = text;
    return dump(m);
}

// --- the client's side ---------------------------------------------------------------------

namespace {

ModelListing listing_from(const json& j) {
    ModelListing m;
    m.name = j.value("name", "");
    m.family = j.value("family", "");
    m.summary = j.value("summary", "");
    m.tokenizer = j.value("tokenizer", "");
    m.vocab = integer_or(j, "vocab", 0);
    m.max_seq_len = integer_or(j, "max_seq_len", 0);
    m.chat_template = j.value("chat_template", false);
    m.chat_template_name = j.value("chat_template_name", "");
    m.chat_template_note = j.value("chat_template_note", "");
    m.backend = j.value("backend", "");
    m.backend_note = j.value("backend_note", "");
    m.default_settings = j.value("default_settings", std::map<std::string, std::string>{});
    m.default_task = j.value("default_task", std::map<std::string, std::string>{});
    m.default_notes = j.value("default_notes", std::vector<std::string>{});
    return m;
}

std::vector<ModelListing> listings_from(const json& m) {
    std::vector<ModelListing> out;
    for (const auto& j : field(m, "models")) out.push_back(listing_from(j));
    return out;
}

}  // namespace

namespace {

// The server frames every record exactly so (record_message). Recognising the frame lets the
// client hand the record's text to the trace reader, which checks it field by field, instead of
// parsing a step's ~60 KB twice. Anything else takes the general path.
bool read_record_frame(std::string_view text, Record& out) {
    const std::string_view head = "{\"v\":1,\"type\":\"record\",\"run\":";
    const std::string_view mid = ",\"record\":{\"type\":\"";
    if (text.size() < head.size() + mid.size() + 2 || text.substr(0, head.size()) != head || text.back() != '}') return false;
    size_t i = head.size();
    int64_t run = 0;
    const size_t digits_from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - digits_from < 16) run = run * 10 + (text[i++] - '0');
    if (i == digits_from || text.substr(i, mid.size()) != mid) return false;
    const size_t record_from = i + mid.size() - std::string_view("{\"type\":\"").size();
    const size_t kind_from = i + mid.size(), kind_to = text.find('"', kind_from);
    if (kind_to == std::string_view::npos || kind_to - kind_from > 16) return false;
    out.run = run;
    out.kind = std::string(text.substr(kind_from, kind_to - kind_from));
    out.json = std::string(text.substr(record_from, text.size() - 1 - record_from));
    return true;
}

}  // namespace

ServerMessage parse_server_message(std::string_view text) {
    if (Record r; read_record_frame(text, r)) return r;
    check_json_depth(text, "the server's message");
    const json m = parse_json_document(text, "the server's message");
    if (!m.is_object()) throw Error("the server sent something that is not a JSON object");
    // A field of the wrong type anywhere (the version included) is the library's type_error:
    // caught below and refused like any other malformed message.
    try {
        const auto v = m.find("v");
        if (v == m.end() || !v->is_number_integer() || v->get<int64_t>() != kProtocolVersion)
            throw Error("the server speaks protocol version " + (v == m.end() ? std::string("(none)") : v->dump()) +
                        "; this client speaks " + std::to_string(kProtocolVersion));
        const std::string type = m.value("type", "");
        if (type == "welcome") {
            Welcome w{m.value("server", ""), listings_from(m), {}};
            const json& l = field(m, "limits");
            w.limits.max_message_bytes = integer_or(l, "max_message_bytes", w.limits.max_message_bytes);
            w.limits.max_prompt_bytes = integer_or(l, "max_prompt_bytes", w.limits.max_prompt_bytes);
            w.limits.max_gen_length = integer_or(l, "max_gen_length", w.limits.max_gen_length);
            w.limits.max_runs_per_client = integer_or(l, "max_runs_per_client", w.limits.max_runs_per_client);
            w.limits.max_active_runs = integer_or(l, "max_active_runs", w.limits.max_active_runs);
            w.limits.max_clients = integer_or(l, "max_clients", w.limits.max_clients);
            return w;
        }
        if (type == "models") return Models{listings_from(m)};
        if (type == "queued") return Queued{id_field(m, "run"), integer_value<int>(field(m, "position"), "position")};
        if (type == "record") {
            const json& r = field(m, "record");
            return Record{id_field(m, "run"), r.value("type", ""), dump(r)};
        }
        if (type == "end") {
            const std::string s = m.value("status", "");
            const RunEnd end = s == "done" ? RunEnd::Done : s == "cancelled" ? RunEnd::Cancelled : RunEnd::Failed;
            return RunEnded{id_field(m, "run"), end, m.value("error", "")};
        }
        if (type == "issues") {
            Issues out{id_field(m, "request"), {}};
            for (const auto& i : field(m, "issues"))
                out.issues.push_back({i.value("severity", "error") == "warning" ? SettingsIssue::Severity::Warning
                                                                                : SettingsIssue::Severity::Error,
                                      i.value("key", ""), i.value("message", "")});
            return out;
        }
        if (type == "error") return ServerError{m.contains("run") ? id_field(m, "run") : -1, m.value("message", "")};
        throw Error("the server sent an unknown message type '" + type + "'");
    } catch (const json::exception& e) {
        throw Error(std::string("the server sent a malformed message: ") + e.what());
    }
}

}  // namespace dlm::serve
