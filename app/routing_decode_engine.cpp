#include "routing_decode_engine.h"

RoutingDecodeEngine::RoutingDecodeEngine(QObject* parent) : DecodeEngine(parent) {
    forward(&local_);
    forward(&remote_);
}

void RoutingDecodeEngine::forward(DecodeEngine* from) {
    connect(from, &DecodeEngine::modelLoaded, this, [this, from](quint64 ticket, const ModelInfo& info) {
        held_[from] = info.dir;
        if (ticket == pending_ticket_ && from == pending_) active_ = from;  // runs follow the model
        Q_EMIT modelLoaded(ticket, info);
        announceOther();
    });
    connect(from, &DecodeEngine::modelLoadFailed, this, &DecodeEngine::modelLoadFailed);
    connect(from, &DecodeEngine::runStarted, this, &DecodeEngine::runStarted);
    connect(from, &DecodeEngine::stepReady, this, &DecodeEngine::stepReady);
    connect(from, &DecodeEngine::runFinished, this, &DecodeEngine::runFinished);
    connect(from, &DecodeEngine::runFailed, this, &DecodeEngine::runFailed);
    connect(from, &DecodeEngine::validated, this, &DecodeEngine::validated);
    connect(from, &DecodeEngine::serverConnected, this, &DecodeEngine::serverConnected);
    connect(from, &DecodeEngine::serverFailed, this, &DecodeEngine::serverFailed);
    connect(from, &DecodeEngine::connectionLost, this, [this, from](const QString& error) {
        held_.remove(from);
        if (from == active_) Q_EMIT connectionLost(error);
        announceOther();
    });
}

void RoutingDecodeEngine::announceOther() {
    Q_EMIT otherModelChanged(held_.value(other()));
}

void RoutingDecodeEngine::connectServer(quint64 ticket, const QString& url, const QString& token, const QString& certificate) {
    remote_.connectServer(ticket, url, token, certificate);
}

void RoutingDecodeEngine::loadModel(quint64 ticket, const QString& location, const QString& backend) {
    pending_ticket_ = ticket;
    pending_ = isServerModel(location) ? static_cast<DecodeEngine*>(&remote_) : &local_;
    pending_->loadModel(ticket, location, backend);
}

void RoutingDecodeEngine::cancelLoad(quint64 ticket) {
    if (pending_) pending_->cancelLoad(ticket);
}

void RoutingDecodeEngine::switchBackend(quint64 ticket, const QString& backend) {
    pending_ticket_ = ticket;
    pending_ = active_;
    active_->switchBackend(ticket, backend);
}

void RoutingDecodeEngine::startRun(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat) {
    running_ = active_;
    active_->startRun(runId, prompt, settings, chat);
}
void RoutingDecodeEngine::startRunOnOtherModel(quint64 runId, const QString& prompt, const QVariantMap& settings,
                                               bool chat) {
    if (held_.value(other()).isEmpty())
        return Q_EMIT runFailed(runId, tr("there is no other model to run B on: load a local folder and a server "
                                          "model, one after the other"));
    running_ = other();
    running_->startRun(runId, prompt, settings, chat);
}
void RoutingDecodeEngine::pause() { running_->pause(); }
void RoutingDecodeEngine::resume() { running_->resume(); }
void RoutingDecodeEngine::stepOnce() { running_->stepOnce(); }
void RoutingDecodeEngine::cancelRun() { running_->cancelRun(); }
void RoutingDecodeEngine::validate(quint64 requestId, const QString& prompt, const QVariantMap& settings, bool chat) {
    active_->validate(requestId, prompt, settings, chat);
}
