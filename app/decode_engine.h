#pragma once
// What the app asks of a decode engine, and what it hears back: the seam between the GUI objects
// (ModelHost, DecodeConfig, RunController) and the engine. The app runs ThreadedDecodeEngine (the
// real engine on its own thread); unit tests drive the GUI objects with a fake that answers when
// the test says so, to test load tickets, backend switching and compare pairing without a model.
// A model is named by its folder, or by ws[s]://host:port/<name> on a dlmscope server.
// Every call returns at once; results come back as signals on the GUI thread. Tickets and run ids
// are the caller's: an answer carrying an old one is stale, and the caller drops it.
#include <QObject>
#include <QStringList>
#include <QVariantList>
#include <QVariantMap>

#include "decode/generation_defaults.h"
#include "trace_ptr.h"

// A model on a dlmscope server (ws:// or wss://), not a folder: the one place that tells them apart.
inline bool isServerModel(const QString& location) {
    return location.startsWith(QLatin1String("ws://")) || location.startsWith(QLatin1String("wss://"));
}

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

class DecodeEngine : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~DecodeEngine() override = default;

    // backend: "auto" | "cpu" | "cuda". The old model stays until the new one is ready, and stays
    // when the load fails or is cancelled.
    virtual void loadModel(quint64 ticket, const QString& dir, const QString& backend) = 0;
    virtual void cancelLoad(quint64 ticket) = 0;
    // Moves the loaded model to another backend; it cannot be cancelled (the old backend is
    // released first). Answers modelLoaded, or modelLoadFailed when no backend was left.
    virtual void switchBackend(quint64 ticket, const QString& backend) = 0;
    // settings: DecodeSettings keys (and "<namespace>.<name>" parameters) -> value text.
    virtual void startRun(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat) = 0;
    virtual void pause() = 0;
    virtual void resume() = 0;
    virtual void stepOnce() = 0;   // exactly one step of a paused run
    virtual void cancelRun() = 0;  // ends the run at the next step boundary, paused or not
    virtual void validate(quint64 requestId, const QString& prompt, const QVariantMap& settings, bool chat) = 0;
    // A run on the model the *other* engine still holds: the local folder loaded before a server
    // model was chosen, or the reverse (otherModelChanged names it). It puts a local run and a
    // remote one side by side in compare mode. Pause, step and cancel then go to that run.
    virtual void startRunOnOtherModel(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat) {
        Q_EMIT runFailed(runId, tr("this engine holds one model only"));
    }
    // A dlmscope server (ws:// or wss:// URL): connect, present the token, list its models.
    // certificate: a PEM file whose certificate wss:// trusts as the server's (a self-signed one),
    // or empty for the system's trust. Answers serverConnected or serverFailed. An engine that
    // cannot reach servers says so.
    virtual void connectServer(quint64 ticket, const QString& url, const QString& token, const QString& certificate) {
        Q_EMIT serverFailed(ticket, tr("this engine decodes locally; it does not connect to servers"));
    }

Q_SIGNALS:
    void modelLoaded(quint64 ticket, const ModelInfo& info);
    void modelLoadFailed(quint64 ticket, const QString& error);
    void runStarted(quint64 runId, const TraceHeaderPtr& header, const QStringList& warnings);
    void stepReady(quint64 runId, const StepTracePtr& step);
    void runFinished(quint64 runId, const TraceSummaryPtr& summary, bool cancelled);
    void runFailed(quint64 runId, const QString& error);
    // issues: {severity: "error"|"warning", key, message}
    void validated(quint64 requestId, const QVariantList& issues);
    // models: the served names; details: for each, its summary and the backend it runs on.
    void serverConnected(quint64 ticket, const QString& url, const QStringList& models, const QStringList& details);
    void serverFailed(quint64 ticket, const QString& error);
    // The server holding the loaded model went away (a run under way has failed first).
    void connectionLost(const QString& error);
    // The model startRunOnOtherModel runs on: its folder or ws[s]:// location; empty when none.
    void otherModelChanged(const QString& location);
};
