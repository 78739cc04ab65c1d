#include "threaded_decode_engine.h"

#include "decode_worker.h"

ThreadedDecodeEngine::ThreadedDecodeEngine(QObject* parent) : DecodeEngine(parent), worker_(new DecodeWorker(this)) {
    qRegisterMetaType<StepTracePtr>();
    qRegisterMetaType<TraceHeaderPtr>();
    qRegisterMetaType<TraceSummaryPtr>();
    qRegisterMetaType<ModelInfo>();
    worker_->moveToThread(&thread_);
    thread_.setObjectName(QStringLiteral("dlmscope-decode"));
    thread_.start();
}

ThreadedDecodeEngine::~ThreadedDecodeEngine() {
    // Closing during a decode: the current step finishes, the session is dropped, the thread ends.
    worker_->requestCancel();
    thread_.quit();
    thread_.wait();
    delete worker_;
}

void ThreadedDecodeEngine::loadModel(quint64 ticket, const QString& dir, const QString& backend) {
    QMetaObject::invokeMethod(worker_, [w = worker_, ticket, dir, backend] { w->loadModel(ticket, dir, backend); },
                              Qt::QueuedConnection);
}

void ThreadedDecodeEngine::cancelLoad(quint64 ticket) { worker_->cancelLoad(ticket); }

void ThreadedDecodeEngine::switchBackend(quint64 ticket, const QString& backend) {
    QMetaObject::invokeMethod(worker_, [w = worker_, ticket, backend] { w->switchBackend(ticket, backend); },
                              Qt::QueuedConnection);
}

void ThreadedDecodeEngine::startRun(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat) {
    worker_->setPaused(false);
    QMetaObject::invokeMethod(worker_, [w = worker_, runId, prompt, settings, chat] { w->startRun(runId, prompt, settings, chat); },
                              Qt::QueuedConnection);
}

void ThreadedDecodeEngine::pause() { worker_->setPaused(true); }

void ThreadedDecodeEngine::resume() {
    worker_->setPaused(false);
    QMetaObject::invokeMethod(worker_, &DecodeWorker::resume, Qt::QueuedConnection);
}

void ThreadedDecodeEngine::stepOnce() { QMetaObject::invokeMethod(worker_, &DecodeWorker::stepOnce, Qt::QueuedConnection); }

void ThreadedDecodeEngine::cancelRun() {
    worker_->requestCancel();
    resume();  // a paused run wakes up to end
}

void ThreadedDecodeEngine::validate(quint64 requestId, const QString& prompt, const QVariantMap& settings, bool chat) {
    QMetaObject::invokeMethod(worker_, [w = worker_, requestId, prompt, settings, chat] { w->validate(requestId, prompt, settings, chat); },
                              Qt::QueuedConnection);
}
