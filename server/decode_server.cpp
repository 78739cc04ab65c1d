#include "decode_server.h"

#include <QCryptographicHash>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketServer>

#include "util/error.h"

using dlm::serve::ClientId;

namespace {

// Compares digests, so the time taken says nothing about how much of a guessed token was right.
bool sameToken(const QString& a, const QString& b) {
    const QByteArray da = QCryptographicHash::hash(a.toUtf8(), QCryptographicHash::Sha256);
    const QByteArray db = QCryptographicHash::hash(b.toUtf8(), QCryptographicHash::Sha256);
    unsigned char diff = 0;
    for (int i = 0; i < da.size(); ++i) diff |= static_cast<unsigned char>(da[i] ^ db[i]);
    return diff == 0;
}

}  // namespace

DecodeServer::DecodeServer(std::vector<dlm::LoadedModel> models, dlm::serve::ServeLimits limits, ServerSecurity security,
                           QObject* parent)
    : QObject(parent),
      service_(std::make_unique<dlm::serve::DecodeService>(std::move(models), limits,
                                                           [this](ClientId id, const std::string& m) { send(id, m); })),
      security_(std::move(security)),
      server_(new QWebSocketServer(QStringLiteral("dlmscope-server"),
                                   security_.tls ? QWebSocketServer::SecureMode : QWebSocketServer::NonSecureMode, this)) {
    if (security_.tls) server_->setSslConfiguration(security_.ssl);
    server_->setMaxPendingConnections(service_->limits().max_clients);
    connect(server_, &QWebSocketServer::newConnection, this, &DecodeServer::onNewConnection);
}

DecodeServer::~DecodeServer() {
    for (auto& [id, c] : clients_) c.socket->disconnect(this);
}

void DecodeServer::listen(const QString& host, quint16 port) {
    const QHostAddress address = host == QLatin1String("localhost") ? QHostAddress(QHostAddress::LocalHost) : QHostAddress(host);
    if (address.isNull()) throw dlm::Error("'" + host.toStdString() + "' is not an IP address to listen on");
    if (!server_->listen(address, port))
        throw dlm::Error("cannot listen on " + host.toStdString() + ":" + std::to_string(port) + ": " +
                         server_->errorString().toStdString());
}

quint16 DecodeServer::port() const { return server_->serverPort(); }

void DecodeServer::onNewConnection() {
    while (QWebSocket* socket = server_->nextPendingConnection()) {
        socket->setParent(this);
        if (int(clients_.size()) >= service_->limits().max_clients) {
            socket->sendTextMessage(QString::fromStdString(dlm::serve::error_message("the server has as many clients as it takes; try later")));
            socket->close(QWebSocketProtocol::CloseCodePolicyViolated);
            socket->deleteLater();
            continue;
        }
        const ClientId id = next_id_++;
        // Past the limit a message is dropped by the socket itself and the connection closed
        // (1009, too big), before it is ever held in memory whole.
        socket->setMaxAllowedIncomingMessageSize(service_->limits().max_message_bytes);
        socket->setMaxAllowedIncomingFrameSize(service_->limits().max_message_bytes);
        clients_[id] = Client{socket, false};
        connect(socket, &QWebSocket::textMessageReceived, this, [this, id](const QString& t) { onText(id, t); });
        connect(socket, &QWebSocket::binaryMessageReceived, this,
                [this, id](const QByteArray&) { send(id, dlm::serve::error_message("messages are JSON text, not binary")); });
        connect(socket, &QWebSocket::disconnected, this, [this, id] { onGone(id); });
    }
}

void DecodeServer::send(ClientId id, const std::string& message) {
    auto it = clients_.find(id);
    if (it == clients_.end()) return;  // gone: nobody to tell
    it->second.socket->sendTextMessage(QString::fromStdString(message));
}

void DecodeServer::refuse(ClientId id, const std::string& message) {
    auto it = clients_.find(id);
    if (it == clients_.end()) return;
    it->second.socket->sendTextMessage(QString::fromStdString(dlm::serve::error_message(message)));
    it->second.socket->close(QWebSocketProtocol::CloseCodePolicyViolated, QString::fromStdString(message).left(120));
}

void DecodeServer::onText(ClientId id, const QString& text) {
    auto it = clients_.find(id);
    if (it == clients_.end()) return;
    const QByteArray utf8 = text.toUtf8();
    dlm::serve::ClientMessage message;
    try {
        message = dlm::serve::parse_client_message(std::string_view(utf8.constData(), size_t(utf8.size())), service_->limits());
    } catch (const std::exception& e) {
        if (!it->second.greeted) return refuse(id, e.what());
        return send(id, dlm::serve::error_message(e.what()));
    }
    if (!it->second.greeted) {
        const auto* hello = std::get_if<dlm::serve::Hello>(&message);
        if (!hello) return refuse(id, "the first message must be hello");
        if (!security_.token.isEmpty() && !sameToken(QString::fromStdString(hello->token), security_.token))
            return refuse(id, "wrong or missing token");
        it->second.greeted = true;
        return send(id, dlm::serve::welcome_message("dlmscope-server " DLM_VERSION, service_->listings(), service_->limits()));
    }
    service_->handle(id, message);
    schedulePump();
}

void DecodeServer::onGone(ClientId id) {
    auto it = clients_.find(id);
    if (it == clients_.end()) return;
    it->second.socket->deleteLater();
    clients_.erase(it);
    service_->drop_client(id);  // its runs end; the others go on
    schedulePump();
}

void DecodeServer::schedulePump() {
    if (pump_scheduled_ || !service_->busy()) return;
    pump_scheduled_ = true;
    QTimer::singleShot(0, this, &DecodeServer::pump);
}

void DecodeServer::pump() {
    pump_scheduled_ = false;
    service_->step_once();
    schedulePump();
}
