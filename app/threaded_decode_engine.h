#pragma once
// The app's DecodeEngine: a DecodeWorker on its own thread. Requests that must run in order
// between steps (load, switch, run, resume, step, validate) are queued to the worker; pause,
// cancel and cancel-load set the worker's atomics directly, so they act within one step even
// while the worker is busy. Destruction cancels the run, finishes the current step and joins.
#include <QThread>

#include "decode_engine.h"

class DecodeWorker;

class ThreadedDecodeEngine : public DecodeEngine {
    Q_OBJECT
public:
    explicit ThreadedDecodeEngine(QObject* parent = nullptr);
    ~ThreadedDecodeEngine() override;

    void loadModel(quint64 ticket, const QString& dir, const QString& backend) override;
    void cancelLoad(quint64 ticket) override;
    void switchBackend(quint64 ticket, const QString& backend) override;
    void startRun(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat) override;
    void pause() override;
    void resume() override;
    void stepOnce() override;
    void cancelRun() override;
    void validate(quint64 requestId, const QString& prompt, const QVariantMap& settings, bool chat) override;

private:
    QThread thread_;
    DecodeWorker* worker_;
};
