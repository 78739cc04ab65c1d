#include "decode_service.h"

#include <algorithm>

#include "decode/strategy.h"
#include "trace/trace_io.h"
#include "util/error.h"

namespace dlm::serve {

struct DecodeService::Run {
    ClientId client = 0;
    int64_t id = 0;
    size_t model = 0;
    std::string prompt;
    std::vector<int32_t> ids;
    DecodeSettings settings;
    std::unique_ptr<DecodeSession> session;
    bool paused = false;
    int single_steps = 0;  // steps granted while paused
    bool cancel = false;
};

ModelListing listing_of(const LoadedModel& m) {
    const ModelConfig& c = m.config();
    ModelListing l;
    l.name = m.name;
    l.family = std::string(family_name(c.family));
    l.summary = model_summary(c);
    l.tokenizer = m.checkpoint->tokenizer->kind();
    l.vocab = c.vocab_size;
    l.max_seq_len = c.max_seq_len;
    const ChatTemplate& chat = m.checkpoint->chat_template;
    l.chat_template = chat.recognised();
    if (chat.recognised()) l.chat_template_name = chat.describe();
    else if (chat.published) l.chat_template_note = chat.note;
    l.backend = m.backend->name();
    l.backend_note = m.backend_note;
    l.default_settings = m.generation.settings;
    l.default_task = m.generation.task;
    l.default_notes = m.generation.notes;
    return l;
}

DecodeService::DecodeService(std::vector<LoadedModel> models, ServeLimits limits, Send send)
    : models_(std::move(models)), limits_(limits), send_(std::move(send)) {
    if (models_.empty()) throw Error("the server needs at least one model (--model DIR)");
    for (const auto& m : models_) {
        for (const auto& l : listings_)
            if (l.name == m.name) throw Error("two served models are both named '" + m.name + "': name them apart, --model NAME=DIR");
        listings_.push_back(listing_of(m));
    }
}

DecodeService::~DecodeService() = default;

void DecodeService::handle(ClientId client, const ClientMessage& message) {
    if (std::holds_alternative<Hello>(message)) return send_(client, error_message("hello was already received"));
    if (std::holds_alternative<ListModels>(message)) return send_(client, models_message(listings_));
    if (const auto* r = std::get_if<RunRequest>(&message)) return submit(client, *r);
    if (const auto* c = std::get_if<Control>(&message)) return control(client, *c);
    if (const auto* v = std::get_if<ValidateRequest>(&message)) return validate(client, *v);
}

size_t DecodeService::model_index(const std::string& name) const {
    if (name.empty() && models_.size() == 1) return 0;
    for (size_t i = 0; i < models_.size(); ++i)
        if (models_[i].name == name) return i;
    std::string served;
    for (const auto& m : models_) served += (served.empty() ? "" : ", ") + m.name;
    throw Error(name.empty() ? "name the model: this server serves " + served
                             : "no model named '" + name + "' is served (served: " + served + ")");
}

std::vector<int32_t> DecodeService::prompt_ids(const LoadedModel& m, const std::string& prompt, int chat) const {
    const bool through_template = chat < 0 ? m.checkpoint->chat_template.recognised() : chat == 1;
    return build_prompt(*m.checkpoint, prompt, through_template);
}

void DecodeService::submit(ClientId client, const RunRequest& r) {
    auto same = [&](const std::unique_ptr<Run>& x) { return x->client == client && x->id == r.run; };
    if (std::any_of(waiting_.begin(), waiting_.end(), same) || std::any_of(active_.begin(), active_.end(), same))
        return send_(client, error_message("run " + std::to_string(r.run) + " is already under way", r.run));
    auto mine = [&](const std::unique_ptr<Run>& x) { return x->client == client; };
    const long long held = std::count_if(waiting_.begin(), waiting_.end(), mine) + std::count_if(active_.begin(), active_.end(), mine);
    if (held >= limits_.max_runs_per_client)
        return send_(client, end_message(r.run, RunEnd::Failed,
                                         "this client already has " + std::to_string(held) +
                                             " runs queued or running, the server's limit; cancel one or wait"));
    auto run = std::make_unique<Run>();
    run->client = client;
    run->id = r.run;
    run->prompt = r.prompt;
    try {
        run->model = model_index(r.model);
        const LoadedModel& m = models_[run->model];
        for (const auto& [k, v] : r.settings) run->settings.set(k, v);
        run->ids = prompt_ids(m, r.prompt, r.chat);
        const auto issues = dlm::validate(run->settings, m.config(), int(run->ids.size()));
        std::string errors;
        for (const auto& i : issues)
            if (i.is_error()) errors += (errors.empty() ? "" : " ") + i.message;
        if (!errors.empty()) throw Error(errors);
    } catch (const std::exception& e) {
        return send_(client, end_message(r.run, RunEnd::Failed, e.what()));
    }
    waiting_.push_back(std::move(run));
    activate_waiting();
    report_positions();
}

void DecodeService::report_positions() {
    for (size_t i = 0; i < waiting_.size(); ++i) send_(waiting_[i]->client, queued_message(waiting_[i]->id, int(i) + 1));
}

void DecodeService::activate_waiting() {
    while (!waiting_.empty() && int(active_.size()) < limits_.max_active_runs) {
        std::unique_ptr<Run> run = std::move(waiting_.front());
        waiting_.pop_front();
        const LoadedModel& m = models_[run->model];
        try {
            run->session = std::make_unique<DecodeSession>(*m.backend, *m.checkpoint->tokenizer, m.config(), run->ids,
                                                           run->settings, m.run_labels(run->prompt),
                                                           m.guiders.get());
        } catch (const std::exception& e) {
            send_(run->client, end_message(run->id, RunEnd::Failed, e.what()));
            continue;
        }
        send_record(*run, trace_header_to_json(run->session->header()));
        active_.push_back(std::move(run));
    }
}

void DecodeService::send_record(const Run& run, const std::string& record_json) {
    send_(run.client, record_message(run.id, record_json));
}

void DecodeService::control(ClientId client, const Control& c) {
    for (size_t i = 0; i < waiting_.size(); ++i) {
        if (waiting_[i]->client != client || waiting_[i]->id != c.run) continue;
        if (c.kind == ControlKind::Cancel) {
            waiting_.erase(waiting_.begin() + long(i));
            send_(client, end_message(c.run, RunEnd::Cancelled));
            report_positions();
        } else if (c.kind == ControlKind::Pause) {
            waiting_[i]->paused = true;
        } else if (c.kind == ControlKind::Resume) {
            waiting_[i]->paused = false;
        } else {
            ++waiting_[i]->single_steps;
        }
        return;
    }
    for (auto& run : active_) {
        if (run->client != client || run->id != c.run) continue;
        switch (c.kind) {
            case ControlKind::Pause: run->paused = true; break;
            case ControlKind::Resume: run->paused = false; break;
            case ControlKind::Step: ++run->single_steps; break;
            case ControlKind::Cancel: run->cancel = true; break;  // ends at its next turn
        }
        return;
    }
    send_(client, error_message("there is no run " + std::to_string(c.run) + " of this client", c.run));
}

void DecodeService::validate(ClientId client, const ValidateRequest& r) {
    std::vector<SettingsIssue> issues;
    try {
        const LoadedModel& m = models_[model_index(r.model)];
        DecodeSettings s;
        for (const auto& [k, v] : r.settings) s.set(k, v);
        const int prompt_len = int(prompt_ids(m, r.prompt, r.chat).size());
        issues = validate_with_strategy(s, m.config(), prompt_len);
    } catch (const std::exception& e) {
        issues.push_back({SettingsIssue::Severity::Error, {}, e.what()});
    }
    send_(client, issues_message(r.request, issues));
}

void DecodeService::drop_client(ClientId client) {
    auto mine = [&](const std::unique_ptr<Run>& x) { return x->client == client; };
    waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(), mine), waiting_.end());
    active_.erase(std::remove_if(active_.begin(), active_.end(), mine), active_.end());
    turn_ = 0;
    activate_waiting();
    report_positions();
}

bool DecodeService::busy() const {
    for (const auto& r : active_)
        if (r->cancel || !r->paused || r->single_steps > 0) return true;
    return false;
}

void DecodeService::finish(size_t i, RunEnd end, const std::string& error) {
    std::unique_ptr<Run> run = std::move(active_[i]);
    active_.erase(active_.begin() + long(i));
    if (end != RunEnd::Failed) send_record(*run, trace_summary_to_json(run->session->summary()));
    send_(run->client, end_message(run->id, end, error));
    activate_waiting();
    report_positions();
}

void DecodeService::step_once() {
    activate_waiting();
    const size_t n = active_.size();
    for (size_t k = 0; k < n; ++k) {
        const size_t i = (turn_ + k) % n;
        Run& run = *active_[i];
        if (!run.cancel && run.paused && run.single_steps == 0) continue;
        turn_ = i + 1;
        if (run.cancel) return finish(i, RunEnd::Cancelled);
        if (run.paused) --run.single_steps;
        try {
            send_record(run, step_trace_to_json(run.session->step()));
        } catch (const std::exception& e) {
            return finish(i, RunEnd::Failed, e.what());
        }
        if (run.session->finished()) finish(i, RunEnd::Done);
        return;
    }
}

}  // namespace dlm::serve
