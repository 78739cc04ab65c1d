#include "remote_decode_engine.h"

#include <nlohmann/json.hpp>


namespace {

using nlohmann::json;
namespace serve = dlm::serve;

json settingsJson(const QVariantMap& settings) {
    json out = json::object();
    for (auto it = settings.cbegin(); it != settings.cend(); ++it) out[it.key().toStdString()] = it.value().toString().toStdString();
    return out;
}

QUrl serverOf(const QUrl& location) {
    QUrl u = location;
    u.setPath(QString());
    u.setQuery(QString());
    u.setFragment(QString());
    return u;
}

}  // namespace

RemoteDecodeEngine::RemoteDecodeEngine(QObject* parent) : DecodeEngine(parent) {
    connect(&socket_, &QWebSocket::connected, this, [this] {
        reached_ = true;
        socket_.sendTextMessage(QString::fromStdString(json{{"v", 1}, {"type", "hello"}, {"token", token_.toStdString()}}.dump()));
    });
    connect(&socket_, &QWebSocket::sslErrors, this, [this](const QList<QSslError>& errors) {
        // A certificate the user chose to trust is the server's, self-signed or naming another
        // host than the one dialled (an address, a tunnel): every error must be about it.
        bool trusted = !trusted_.isEmpty();
        QStringList why;
        for (const QSslError& e : errors) {
            trusted = trusted && trusted_.contains(e.certificate());
            why << e.errorString();
        }
        if (trusted) return socket_.ignoreSslErrors();
        untrusted_why_ = why.join(QStringLiteral("; "));
    });
    connect(&socket_, &QWebSocket::textMessageReceived, this, [this](const QString& text) { reader_.post(connection_, text); });
    connect(&socket_, &QWebSocket::disconnected, this, [this] { reader_.postClosed(connection_); });
    reader_.moveToThread(&reader_thread_);
    connect(&reader_, &ServerMessageReader::read, this, &RemoteDecodeEngine::onRead);
    reader_thread_.start();
}

RemoteDecodeEngine::~RemoteDecodeEngine() {
    socket_.disconnect(this);
    reader_thread_.quit();
    reader_thread_.wait();
}

void RemoteDecodeEngine::open(const QUrl& server, const QString& token) {
    if (server == server_ && socket_.state() != QAbstractSocket::UnconnectedState && (token.isNull() || token == token_)) return;
    // The old connection's close, and anything of it still being read, is not for the new one:
    // its messages carry an older number, and so does its close (abort() may emit it at once).
    ++connection_;
    socket_.abort();
    ++connection_;
    server_ = server;
    if (!token.isNull()) token_ = token;
    greeted_ = false;
    reached_ = false;
    untrusted_why_.clear();
    models_.clear();
    model_.clear();
    outbox_.clear();
    socket_.open(server_);
}

void RemoteDecodeEngine::connectServer(quint64 ticket, const QString& url, const QString& token, const QString& certificate) {
    const QUrl u(url);
    if (!u.isValid() || !isServerModel(url) || u.host().isEmpty())
        return Q_EMIT serverFailed(ticket, tr("'%1' is not a server address (ws://host:port or wss://host:port)").arg(url));
    QList<QSslCertificate> trusted;
    if (!certificate.isEmpty()) {
        trusted = QSslCertificate::fromPath(certificate, QSsl::Pem);
        if (trusted.isEmpty())
            return Q_EMIT serverFailed(ticket, tr("%1 holds no PEM certificate (the server's --tls-cert file is one)").arg(certificate));
    }
    if (trusted != trusted_) socket_.abort();  // a connection made under the old trust is not kept
    trusted_ = trusted;
    connect_ticket_ = ticket;
    open(serverOf(u), token);
    if (greeted_) {
        connect_ticket_ = 0;
        announceModels(ticket);
    }
}

QStringList RemoteDecodeEngine::servedNames() const {
    QStringList names;
    for (const auto& m : models_) names << QString::fromStdString(m.name);
    return names;
}

void RemoteDecodeEngine::announceModels(quint64 ticket) {
    QStringList details;
    for (const auto& m : models_)
        details << tr("%1 · on %2").arg(QString::fromStdString(m.summary), QString::fromStdString(m.backend));
    Q_EMIT serverConnected(ticket, server_.toString(), servedNames(), details);
}

void RemoteDecodeEngine::loadModel(quint64 ticket, const QString& location, const QString&) {
    const QUrl u(location);
    const QString name = u.path().mid(1);
    if (!u.isValid() || u.host().isEmpty() || name.isEmpty())
        return Q_EMIT modelLoadFailed(ticket, tr("'%1' does not name a model on a server (ws://host:port/<model>)").arg(location));
    load_ticket_ = ticket;
    load_name_ = name;
    open(serverOf(u), QString());
    if (greeted_) onWelcome(serve::Welcome{{}, models_, {}});
}

void RemoteDecodeEngine::cancelLoad(quint64 ticket) {
    if (ticket == load_ticket_) load_ticket_ = 0;
}

void RemoteDecodeEngine::switchBackend(quint64 ticket, const QString&) {
    // The server's --backend decides; the model stays where it runs.
    for (const auto& m : models_)
        if (QString::fromStdString(m.name) == model_) return Q_EMIT modelLoaded(ticket, infoFor(m));
    Q_EMIT modelLoadFailed(ticket, tr("no model is loaded from the server"));
}

ModelInfo RemoteDecodeEngine::infoFor(const serve::ModelListing& m) const {
    ModelInfo info;
    info.name = QString::fromStdString(m.name);
    QUrl u = server_;
    u.setPath("/" + info.name);
    info.dir = u.toString();
    info.family = QString::fromStdString(m.family);
    info.tokenizer = QString::fromStdString(m.tokenizer);
    info.summary = QString::fromStdString(m.summary);
    info.vocab = m.vocab;
    info.maxSeqLen = m.max_seq_len;
    info.chatTemplate = m.chat_template;
    info.chatTemplateName = QString::fromStdString(m.chat_template_name);
    info.chatTemplateNote = QString::fromStdString(m.chat_template_note);
    info.backendChoice = QString();
    info.backend = QString::fromStdString(m.backend);
    info.backendNote = tr("on the server %1:%2 (its --backend decides)").arg(server_.host()).arg(server_.port());
    if (!m.backend_note.empty()) info.backendNote += "; " + QString::fromStdString(m.backend_note);
    info.generation.settings = m.default_settings;
    info.generation.task = m.default_task;
    info.generation.notes = m.default_notes;
    return info;
}

void RemoteDecodeEngine::send(const std::string& message) {
    if (!greeted_) return outbox_.push_back(message);
    socket_.sendTextMessage(QString::fromStdString(message));
}

void RemoteDecodeEngine::startRun(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat) {
    if (model_.isEmpty()) return Q_EMIT runFailed(runId, tr("no model is loaded from the server"));
    if (run_) control("cancel");  // as locally: a new run replaces the one under way
    run_ = runId;
    summary_.reset();
    send(json{{"v", 1}, {"type", "run"}, {"run", runId}, {"model", model_.toStdString()}, {"prompt", prompt.toStdString()},
              {"chat", chat}, {"settings", settingsJson(settings)}}.dump());
}

void RemoteDecodeEngine::control(const char* kind) {
    if (run_) send(json{{"v", 1}, {"type", kind}, {"run", run_}}.dump());
}

void RemoteDecodeEngine::pause() { control("pause"); }
void RemoteDecodeEngine::resume() { control("resume"); }
void RemoteDecodeEngine::stepOnce() { control("step"); }
void RemoteDecodeEngine::cancelRun() { control("cancel"); }

void RemoteDecodeEngine::validate(quint64 requestId, const QString& prompt, const QVariantMap& settings, bool chat) {
    if (model_.isEmpty()) return Q_EMIT validated(requestId, {});
    send(json{{"v", 1}, {"type", "validate"}, {"request", requestId}, {"model", model_.toStdString()},
              {"prompt", prompt.toStdString()}, {"chat", chat}, {"settings", settingsJson(settings)}}.dump());
}

void RemoteDecodeEngine::onWelcome(const serve::Welcome& w) {
    models_ = w.models;
    if (connect_ticket_) announceModels(std::exchange(connect_ticket_, 0));
    if (!load_ticket_) return;
    for (const auto& m : models_) {
        if (QString::fromStdString(m.name) != load_name_) continue;
        model_ = load_name_;
        return Q_EMIT modelLoaded(std::exchange(load_ticket_, 0), infoFor(m));
    }
    Q_EMIT modelLoadFailed(std::exchange(load_ticket_, 0),
                           tr("the server %1 serves no model named '%2' (it serves: %3)").arg(server_.toString(), load_name_, servedNames().join(", ")));
}

void RemoteDecodeEngine::onRead(const ReadMessage& read) {
    if (read.connection != connection_) return;
    if (read.closed) return onClosed();
    if (!read.unreadable.isEmpty()) {
        if (run_) Q_EMIT runFailed(std::exchange(run_, 0), tr("the server sent something unreadable: %1").arg(read.unreadable));
        return;
    }
    const serve::ServerMessage& m = read.message;
    if (const auto* w = std::get_if<serve::Welcome>(&m)) {
        greeted_ = true;
        onWelcome(*w);
        while (!outbox_.empty()) {
            socket_.sendTextMessage(QString::fromStdString(outbox_.front()));
            outbox_.pop_front();
        }
        return;
    }
    if (const auto* r = std::get_if<serve::Record>(&m)) {
        if (quint64(r->run) != run_) return;  // a run replaced since
        if (!read.badRecord.isEmpty()) {
            control("cancel");
            return Q_EMIT runFailed(std::exchange(run_, 0), tr("the server sent a bad trace record: %1").arg(read.badRecord));
        }
        if (read.header) Q_EMIT runStarted(run_, read.header, {});
        else if (read.step) Q_EMIT stepReady(run_, read.step);
        else if (read.summary) summary_ = read.summary;
        return;
    }
    if (const auto* e = std::get_if<serve::RunEnded>(&m)) {
        if (quint64(e->run) != run_) return;
        run_ = 0;
        if (e->end == serve::RunEnd::Failed) return Q_EMIT runFailed(e->run, QString::fromStdString(e->error));
        Q_EMIT runFinished(e->run, summary_ ? summary_ : std::make_shared<const dlm::TraceSummary>(),
                           e->end == serve::RunEnd::Cancelled);
        return;
    }
    if (const auto* i = std::get_if<serve::Issues>(&m)) {
        QVariantList issues;
        for (const auto& x : i->issues)
            issues.push_back(QVariantMap{{"severity", x.is_error() ? "error" : "warning"},
                                         {"key", QString::fromStdString(x.key)},
                                         {"message", QString::fromStdString(x.message)}});
        return Q_EMIT validated(quint64(i->request), issues);
    }
    if (const auto* e = std::get_if<serve::ServerError>(&m)) {
        // Before hello is answered, an error is the server refusing us (the token).
        if (!greeted_) return failPending(tr("the server refused the connection: %1").arg(QString::fromStdString(e->message)));
        if (e->run > 0 && quint64(e->run) == run_) Q_EMIT runFailed(std::exchange(run_, 0), QString::fromStdString(e->message));
    }
}

void RemoteDecodeEngine::failPending(const QString& error) {
    if (connect_ticket_) Q_EMIT serverFailed(std::exchange(connect_ticket_, 0), error);
    if (load_ticket_) Q_EMIT modelLoadFailed(std::exchange(load_ticket_, 0), error);
}

void RemoteDecodeEngine::onClosed() {
    QString why = socket_.closeReason();
    if (why.isEmpty()) why = socket_.errorString();
    // A socket that never opened did not lose anything: nothing answered at that address.
    const QString error = reached_ ? tr("lost the connection to %1: %2").arg(server_.toString(), why)
                        : !untrusted_why_.isEmpty()
                            ? tr("could not connect to %1: its certificate is not trusted (%2). To trust a server's own "
                                 "certificate, choose its --tls-cert file under Certificate in Connect.").arg(server_.toString(), untrusted_why_)
                            : tr("could not connect to %1: %2 (is dlmscope-server running there, "
                                 "and the host, port and TLS setting its own?)").arg(server_.toString(), why);
    greeted_ = false;
    outbox_.clear();
    failPending(error);
    if (run_) Q_EMIT runFailed(std::exchange(run_, 0), error + tr(" (the steps received are kept; Save trace… keeps them)"));
    if (!model_.isEmpty()) {
        model_.clear();
        Q_EMIT connectionLost(error);
    }
}
