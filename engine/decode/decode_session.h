#pragma once
// One decode run: a canvas of prompt + gen_length masks, denoised step by step by a strategy
// (an unmask policy x a compute policy x a revision policy, design.md §7). Each step returns a
// self-contained StepTrace (design.md §5) that can be queued to another thread.
//
// Threading: a session is used from one thread at a time; request_cancel() may be called from
// any thread and takes effect between steps.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compute/backend.h"
#include "decode/decode_settings.h"
#include "model/checkpoint.h"
#include "model/model_config.h"
#include "text/tokenizer.h"
#include "trace/step_trace.h"

namespace dlm {

class DecodeCanvas;
struct Strategy;
class GuiderCache;

// Labels copied into the trace header only (they do not change the run).
struct DecodeLabels {
    std::string model;        // checkpoint folder name
    std::string prompt_text;  // the user's text before the chat template
    std::map<std::string, std::string> model_defaults;  // model_setting_changes of the model
};

class DecodeSession {
public:
    // `prompt_ids` is the canvas prefix, already templated (see build_prompt). Throws dlm::Error
    // listing every problem when validate() reports an error, when the model is not a diffusion
    // model, or when the strategy name / a strategy parameter is unknown. The backend, tokenizer
    // and config must outlive the session.
    // `guiders`: Guided Diffusion's guider checkpoints, kept with the loaded model (null: a guided
    // run reads its guider folder itself and must name it).
    DecodeSession(Backend& backend, const Tokenizer& tokenizer, const ModelConfig& config,
                  std::vector<int32_t> prompt_ids, DecodeSettings settings, DecodeLabels labels = {},
                  GuiderCache* guiders = nullptr);
    ~DecodeSession();
    DecodeSession(const DecodeSession&) = delete;
    DecodeSession& operator=(const DecodeSession&) = delete;

    bool finished() const;
    // Runs one denoising step (forward, statistics, unmask, revision) and returns its trace.
    // Throws dlm::Error when called on a finished session.
    StepTrace step();
    // Steps until finished, calling on_step after each one; on_step returning false, or
    // request_cancel(), stops after the current step. Returns true when the run finished.
    bool run(const std::function<bool(const StepTrace&)>& on_step = {});
    void request_cancel() { cancel_.store(true); }
    bool cancelled() const { return cancel_.load(); }

    TraceHeader header() const;
    // Totals so far; text = the generated region decoded with skip_special, cut at the first
    // EOS/EoT, masks dropped.
    TraceSummary summary() const;
    // EOS and EoT: the answer ends at the first one committed (the header carries them).
    std::vector<int32_t> answer_end_ids() const;
    std::vector<int32_t> canvas() const;  // prompt + generated region, N ids (masks included)

    const DecodeSettings& settings() const { return settings_; }
    const std::vector<SettingsIssue>& warnings() const { return warnings_; }
    int steps_done() const { return step_; }
    int planned_steps() const;  // steps the schedule plans (the run may stop earlier if dynamic)
    int prompt_length() const;
    int canvas_length() const;
    int masks_left() const;

private:
    // The phases of step(), in order.
    void plan_rows();                  // which rows to compute, which positions get statistics
    int forward();                     // the batch (CFG, the revision's view, shadow columns); returns the shadow count
    void row_statistics();             // per-position statistics and sampled tokens
    struct Changes;                    // what commit_and_revise() did
    Changes commit_and_revise();       // unmask, revise, lock/freeze
    StepTrace make_trace(const Changes& changes, int shadow) const;

    Backend& backend_;
    const Tokenizer& tokenizer_;
    const ModelConfig& config_;
    DecodeSettings settings_;
    DecodeLabels labels_;
    std::vector<SettingsIssue> warnings_;
    std::unique_ptr<DecodeCanvas> canvas_;
    std::unique_ptr<Strategy> strategy_;
    struct Runtime;  // caches, posterior store, scratch buffers
    std::unique_ptr<Runtime> rt_;
    int step_ = 0;
    TraceSummary totals_;
    std::atomic<bool> cancel_{false};
};

// Prompt ids for a user's text: through the checkpoint's chat template when `chat` and the
// template was recognised, otherwise plain text (plus BOS where the model has one). Throws
// dlm::Error for empty text.
std::vector<int32_t> build_prompt(const Checkpoint& checkpoint, const std::string& user_text, bool chat);
std::vector<int32_t> build_prompt(const ModelConfig& config, const Tokenizer& tokenizer,
                                  const ChatTemplate& chat_template, const std::string& user_text, bool chat);

}  // namespace dlm
