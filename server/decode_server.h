#pragma once
// The network side of dlmscope-server: a QWebSocketServer in front of a DecodeService. Each
// connection must say hello first (with the token, when the server has one); every text message
// is parsed within the limits and handed to the service; a binary, oversized or malformed message
// is answered with an error (and, before hello, the connection is closed). Decode steps run on
// this thread between network events, one at a time, so a request waits at most one step.
#include <map>
#include <memory>

#include <QObject>
#include <QSslConfiguration>
#include <QString>

#include "decode_service.h"

class QWebSocket;
class QWebSocketServer;

struct ServerSecurity {
    QString token;                 // empty: no token asked (loopback only)
    bool tls = false;
    QSslConfiguration ssl;         // certificate and key, with tls
};

class DecodeServer : public QObject {
    Q_OBJECT
public:
    // Throws dlm::Error when the models cannot be served together (see DecodeService).
    DecodeServer(std::vector<dlm::LoadedModel> models, dlm::serve::ServeLimits limits, ServerSecurity security,
                 QObject* parent = nullptr);
    ~DecodeServer() override;

    // Throws dlm::Error with the reason when the address cannot be listened on.
    void listen(const QString& host, quint16 port);
    quint16 port() const;
    dlm::serve::DecodeService& service() { return *service_; }
    int clientCount() const { return int(clients_.size()); }

private:
    struct Client {
        QWebSocket* socket = nullptr;
        bool greeted = false;
    };
    void onNewConnection();
    void onText(dlm::serve::ClientId id, const QString& text);
    void onGone(dlm::serve::ClientId id);
    void send(dlm::serve::ClientId id, const std::string& message);
    void refuse(dlm::serve::ClientId id, const std::string& message);  // error, then close
    void schedulePump();
    void pump();

    std::unique_ptr<dlm::serve::DecodeService> service_;
    ServerSecurity security_;
    QWebSocketServer* server_;
    std::map<dlm::serve::ClientId, Client> clients_;
    dlm::serve::ClientId next_id_ = 1;
    bool pump_scheduled_ = false;
};
