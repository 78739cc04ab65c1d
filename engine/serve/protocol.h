#pragma once
// The dlmscope server protocol, version 1 (docs/server.md): JSON text messages over a WebSocket,
// each an object with "v" (the version) and "type". The step payload is exactly a trace record
// (trace/trace_io.h), so a stream and an NDJSON file share one reader. Everything a client sends
// is parsed here, strictly and within ServeLimits, into a ClientMessage; anything else is a
// dlm::Error whose message is sent back. Nothing here does I/O, so it is fuzzed in isolation.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "decode/decode_settings.h"
#include "trace/step_trace.h"

namespace dlm::serve {

inline constexpr int kProtocolVersion = 1;

// What one client may ask of a server; the server's --max-* options set them.
struct ServeLimits {
    uint64_t max_message_bytes = 1ull << 20;  // one incoming message
    int max_prompt_bytes = 64 * 1024;         // prompt text, UTF-8
    int max_gen_length = 4096;                // positions generated per run
    int max_runs_per_client = 2;              // queued + running
    int max_active_runs = 4;                  // sessions stepped side by side, over all clients
    int max_clients = 16;
};

// Client -> server.
struct Hello { std::string token; };  // must be the first message
struct ListModels {};
// What to decode: a run decodes it, a validation checks it.
struct DecodeRequest {
    std::string model;   // a served model's name; may be empty when one model is served
    std::string prompt;
    int chat = -1;       // 1 / 0: through the chat template or raw; -1: the model's default
    std::map<std::string, std::string> settings;  // decode settings and strategy parameters, as text
};
struct RunRequest : DecodeRequest {
    int64_t run = 0;  // the client's id for the run (1 .. 2^53); answers carry it
};
enum class ControlKind { Pause, Resume, Step, Cancel };
struct Control { ControlKind kind; int64_t run = 0; };
struct ValidateRequest : DecodeRequest {
    int64_t request = 0;
};
using ClientMessage = std::variant<Hello, ListModels, RunRequest, Control, ValidateRequest>;

// Throws dlm::Error with a message for the client: not JSON, not an object, a wrong version, an
// unknown type, a missing or mistyped field, a value past `limits`.
ClientMessage parse_client_message(std::string_view text, const ServeLimits& limits);

// What a client learns of a served model (the app's model panel shows it).
struct ModelListing {
    std::string name, family, summary, tokenizer;
    int vocab = 0, max_seq_len = 0;
    bool chat_template = false;
    std::string chat_template_name, chat_template_note;
    std::string backend, backend_note;
    std::map<std::string, std::string> default_settings;  // generation_config.json, as settings
    std::map<std::string, std::string> default_task;      // its gen_length / steps
    std::vector<std::string> default_notes;
};

// Server -> client (each returns one message's text).
std::string welcome_message(const std::string& server, const std::vector<ModelListing>& models, const ServeLimits& limits);
std::string models_message(const std::vector<ModelListing>& models);
std::string queued_message(int64_t run, int position);
// `record_json`: one trace line as trace_*_to_json wrote it, embedded verbatim.
std::string record_message(int64_t run, const std::string& record_json);
enum class RunEnd { Done, Cancelled, Failed };
std::string end_message(int64_t run, RunEnd end, const std::string& error = {});
std::string issues_message(int64_t request, const std::vector<SettingsIssue>& issues);
// run < 0: about the connection or a message, not a run.
std::string error_message(const std::string& message, int64_t run = -1);

// Server -> client, as a client reads it.
struct Welcome { std::string server; std::vector<ModelListing> models; ServeLimits limits; };
struct Queued { int64_t run; int position; };
struct Record { int64_t run; std::string kind; std::string json; };  // kind: header, step, summary
struct RunEnded { int64_t run; RunEnd end; std::string error; };
struct Issues { int64_t request; std::vector<SettingsIssue> issues; };
struct ServerError { int64_t run; std::string message; };
struct Models { std::vector<ModelListing> models; };
using ServerMessage = std::variant<Welcome, Models, Queued, Record, RunEnded, Issues, ServerError>;
ServerMessage parse_server_message(std::string_view text);

}  // namespace dlm::serve
