#pragma once
// The engine side of the app. A DecodeWorker lives on its own QThread (moveToThread); it owns the
// loaded model (checkpoint, backend, guiders: backends/loaded_model.h) and the running
// DecodeSession. Every step is a separate queued invocation, so requests are served between steps
// and Stop returns within one step.
//  * Queued (invoke on the worker's thread): loadModel, switchBackend, startRun, resume,
//    stepOnce, validate. They run in order, between steps.
//  * Direct, from the GUI thread (atomics read by the worker at the next step boundary):
//    requestCancel, setPaused, cancelLoad.
// Results come back as signals (queued to the GUI thread).
#include <atomic>
#include <memory>
#include <string>

#include <QObject>
#include <QStringList>
#include <QVariantMap>

#include "backends/loaded_model.h"
#include "decode/generation_defaults.h"
#include "trace_ptr.h"

namespace dlm {
class DecodeSession;
}  // namespace dlm

// What the GUI shows about the loaded model (a copyable value for queued signals).
struct ModelInfo {
    QString name, dir, family, tokenizer, summary;
    int vocab = 0, maxSeqLen = 0;
    bool chatTemplate = false;     // a chat template was recognised: prompts can go through it
    QString chatTemplateName;      // which one, with its default system line
    QString chatTemplateNote;      // a published template that is not rendered: why prompts go in raw
    QString backendChoice;  // what was asked for: "auto", "cpu" or "cuda"
    QString backend;        // what runs it: Backend::name() ("cpu", "cuda")
    QString backendNote;    // why that is not what was asked for (empty when it is)
    dlm::GenerationDefaults generation;  // the decode defaults its generation_config.json publishes
};
Q_DECLARE_METATYPE(ModelInfo)

class DecodeWorker : public QObject {
    Q_OBJECT
public:
    explicit DecodeWorker(QObject* parent = nullptr);
    ~DecodeWorker() override;

    // Thread-safe (called from the GUI thread directly): take effect between steps.
    void requestCancel();
    void setPaused(bool paused) { paused_.store(paused); }
    void cancelLoad(quint64 ticket) { cancelled_load_.store(ticket); }

public Q_SLOTS:
    // backend: "auto" | "cpu" | "cuda" (compute/backend_factory.h). The old model and backend
    // stay until the new ones are ready (a cancelled load keeps them).
    void loadModel(quint64 ticket, const QString& dir, const QString& backend);
    // Moves the loaded model to another backend (the old one is released first, so this cannot
    // be cancelled). Answers with modelLoaded, or modelLoadFailed if the model had to be closed.
    void switchBackend(quint64 ticket, const QString& backend);
    // settings: DecodeSettings keys (and "<strategy>.<name>" params) -> value text.
    void startRun(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat);
    void resume();   // continue after a pause
    void stepOnce(); // run exactly one step while paused
    void validate(quint64 requestId, const QString& prompt, const QVariantMap& settings, bool chat);

Q_SIGNALS:
    void modelLoaded(quint64 ticket, const ModelInfo& info);
    void modelLoadFailed(quint64 ticket, const QString& error);
    void runStarted(quint64 runId, const TraceHeaderPtr& header, const QStringList& warnings);
    void stepReady(quint64 runId, const StepTracePtr& step);
    void runFinished(quint64 runId, const TraceSummaryPtr& summary, bool cancelled);
    void runFailed(quint64 runId, const QString& error);
    // issues: {severity: "error"|"warning", key, message}
    void validated(quint64 requestId, const QVariantList& issues);

private:
    ModelInfo loadedInfo(dlm::BackendKind kind) const;
    void scheduleStep();
    void runOneStep();
    void finishRun(bool cancelled);

    dlm::LoadedModel model_;  // empty until a load succeeds
    std::unique_ptr<dlm::DecodeSession> session_;
    QString model_dir_;
    quint64 run_id_ = 0;
    bool step_scheduled_ = false;
    int single_steps_ = 0;  // steps granted while paused
    std::atomic<bool> paused_{false};
    std::atomic<bool> cancel_{false};
    std::atomic<quint64> cancelled_load_{0};
};
