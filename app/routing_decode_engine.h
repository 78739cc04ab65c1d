#pragma once
// The app's engine: a model folder goes to the local engine (its own thread), a ws[s]:// model
// to a dlmscope server; runs, steps and validation go to the engine that holds the loaded model.
// The other engine keeps the model it held, so compare mode can run B there (local vs remote).
// Both engines' answers pass through (tickets and run ids are unique across them, so a late answer
// of the other engine is dropped like any stale one).
#include <QHash>

#include "decode_engine.h"
#include "remote_decode_engine.h"
#include "threaded_decode_engine.h"

class RoutingDecodeEngine : public DecodeEngine {
    Q_OBJECT
public:
    explicit RoutingDecodeEngine(QObject* parent = nullptr);

    void connectServer(quint64 ticket, const QString& url, const QString& token, const QString& certificate) override;
    void loadModel(quint64 ticket, const QString& location, const QString& backend) override;
    void cancelLoad(quint64 ticket) override;
    void switchBackend(quint64 ticket, const QString& backend) override;
    void startRun(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat) override;
    void pause() override;
    void resume() override;
    void stepOnce() override;
    void cancelRun() override;
    void validate(quint64 requestId, const QString& prompt, const QVariantMap& settings, bool chat) override;
    void startRunOnOtherModel(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat) override;

private:
    void forward(DecodeEngine* from);
    DecodeEngine* other() { return active_ == &local_ ? static_cast<DecodeEngine*>(&remote_) : &local_; }
    void announceOther();

    ThreadedDecodeEngine local_;
    RemoteDecodeEngine remote_;
    DecodeEngine* active_ = &local_;  // the engine of the loaded model
    DecodeEngine* running_ = &local_; // the engine of the run under way (pause, step, cancel)
    QHash<const DecodeEngine*, QString> held_;  // what each engine holds: its model's location
    quint64 pending_ticket_ = 0;      // the load under way, and the engine doing it
    DecodeEngine* pending_ = nullptr;
};
