#pragma once
// The engine side of the app, driven by ThreadedDecodeEngine (threaded_decode_engine.h). A
// DecodeWorker lives on its own QThread (moveToThread); it owns the
// loaded model (checkpoint, backend, guiders: backends/loaded_model.h) and the running
// DecodeSession. Every step is a separate queued invocation, so requests are served between steps
// and Stop returns within one step.
//  * Queued (invoke on the worker's thread): loadModel, switchBackend, startRun, resume,
//    stepOnce, validate. They run in order, between steps.
//  * Direct, from the GUI thread (atomics read by the worker at the next step boundary):
//    requestCancel, setPaused, cancelLoad.
// Results come back as the DecodeEngine signals of the engine that drives it (queued to the GUI
// thread).
#include <atomic>
#include <memory>
#include <string>

#include <QObject>
#include <QStringList>
#include <QVariantMap>

#include "backends/loaded_model.h"
#include "decode_engine.h"

namespace dlm {
class DecodeSession;
}  // namespace dlm


class DecodeWorker : public QObject {
    Q_OBJECT
public:
    // Results are emitted as `reports`' signals from the worker's thread; its receivers on the
    // GUI thread get them queued (the connection type is decided at emission).
    explicit DecodeWorker(DecodeEngine* reports);
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
    // settings: DecodeSettings keys (and "<namespace>.<name>" params) -> value text.
    void startRun(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat);
    void resume();   // continue after a pause
    void stepOnce(); // run exactly one step while paused
    void validate(quint64 requestId, const QString& prompt, const QVariantMap& settings, bool chat);

private:
    ModelInfo loadedInfo(dlm::BackendKind kind) const;
    void scheduleStep();
    void runOneStep();
    void finishRun(bool cancelled);

    DecodeEngine* reports_;
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
