#pragma once
// A DecodeEngine on a dlmscope server (docs/server.md): the models are the server's, named
// ws[s]://host:port/<name>; runs, steps, pause/step/cancel and validation travel as protocol
// messages, and the step records are the trace records the local engine makes, read by the same
// reader. One connection at a time (to the server of the loaded model). When it drops, a run under
// way fails with the reason (the steps already received stay with the run) and connectionLost
// tells the app the model is gone.
#include <deque>

#include <QList>
#include <QSslCertificate>
#include <QThread>
#include <QUrl>
#include <QWebSocket>

#include "decode_engine.h"
#include "serve/protocol.h"
#include "server_message_reader.h"

class RemoteDecodeEngine : public DecodeEngine {
    Q_OBJECT
public:
    explicit RemoteDecodeEngine(QObject* parent = nullptr);
    ~RemoteDecodeEngine() override;

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

private:
    void open(const QUrl& server, const QString& token);
    void onRead(const ReadMessage& m);
    void onWelcome(const dlm::serve::Welcome& w);
    QStringList servedNames() const;
    void announceModels(quint64 ticket);  // serverConnected with the served models
    void onClosed();
    void send(const std::string& message);
    void control(const char* kind);
    ModelInfo infoFor(const dlm::serve::ModelListing& m) const;
    void failPending(const QString& error);

    QWebSocket socket_;
    QThread reader_thread_;
    ServerMessageReader reader_;  // lives on reader_thread_
    quint64 connection_ = 0;      // counts connections: messages of an older one are dropped
    QUrl server_;          // ws[s]://host:port of the connection
    QString token_;
    // The certificates trusted as the server's whatever their name or issuer (Connect's
    // Certificate), and why the last handshake failed when no trusted one was shown.
    QList<QSslCertificate> trusted_;
    QString untrusted_why_;
    bool greeted_ = false;
    bool reached_ = false;  // the socket opened (else a close means nothing answered)
    std::deque<std::string> outbox_;  // sent once the server has welcomed us
    std::vector<dlm::serve::ModelListing> models_;
    quint64 connect_ticket_ = 0, load_ticket_ = 0;
    QString load_name_;    // the model a pending load asks for
    QString model_;        // the loaded model's name on the server ("" when none)
    quint64 run_ = 0;      // the run under way (0: none)
    TraceSummaryPtr summary_;
};
