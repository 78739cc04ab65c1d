#pragma once
// The loaded model as the app knows it (`App.model` in QML): which model, on which backend, and
// the load or backend switch under way. Every request to the engine carries a ticket; only the
// answer to the newest one counts, so a slow load that was superseded or cancelled cannot replace
// the model the user chose after it. The backend choice and the last model folder are saved.
#include <QObject>
#include <QtQml/qqmlregistration.h>

#include "decode_engine.h"

class ModelHost : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("ModelHost is owned by the App singleton (App.model)")
    Q_PROPERTY(QString name READ name NOTIFY modelChanged)
    Q_PROPERTY(QString summary READ summary NOTIFY modelChanged)
    Q_PROPERTY(QString dir READ dir NOTIFY modelChanged)
    Q_PROPERTY(bool loaded READ loaded NOTIFY modelChanged)
    Q_PROPERTY(bool loading READ loading NOTIFY loadingChanged)
    Q_PROPERTY(QString loadingWhat READ loadingWhat NOTIFY loadingChanged)
    Q_PROPERTY(bool switchingBackend READ switchingBackend NOTIFY loadingChanged)
    // The compute backend: `backend` is the user's choice ("auto", "cpu", "cuda"; saved);
    // `backendName` is what runs the loaded model and `backendNote` why that differs from the
    // choice (no CUDA in this build, no usable GPU, not enough device memory), empty otherwise.
    Q_PROPERTY(QString backend READ backend WRITE setBackend NOTIFY backendChanged)
    Q_PROPERTY(QStringList backendChoices READ backendChoices CONSTANT)
    Q_PROPERTY(QString backendName READ backendName NOTIFY modelChanged)
    Q_PROPERTY(QString backendNote READ backendNote NOTIFY modelChanged)
    Q_PROPERTY(bool cudaBuilt READ cudaBuilt CONSTANT)
    // The loaded model's chat template: whether prompts can go through it, which one it is, and
    // for a published template the engine does not render exactly, why prompts go in raw.
    Q_PROPERTY(bool chatAvailable READ chatAvailable NOTIFY modelChanged)
    Q_PROPERTY(QString chatTemplateName READ chatTemplateName NOTIFY modelChanged)
    Q_PROPERTY(QString chatTemplateNote READ chatTemplateNote NOTIFY modelChanged)
    // A dlmscope server (docs/server.md): "Connect to engine…" lists its models; one of them
    // loads as ws[s]://host:port/<name> and behaves as a local model. The last host, port and TLS
    // choice are saved (the token is not). After a lost connection, reconnect() loads it again.
    Q_PROPERTY(bool remote READ remote NOTIFY modelChanged)
    Q_PROPERTY(QString serverHost READ serverHost NOTIFY serverChanged)
    Q_PROPERTY(int serverPort READ serverPort NOTIFY serverChanged)
    Q_PROPERTY(bool serverTls READ serverTls NOTIFY serverChanged)
    // A PEM file trusted as the server's certificate over wss:// ("" : the system's trust).
    Q_PROPERTY(QString serverCertificate READ serverCertificate NOTIFY serverChanged)
    Q_PROPERTY(bool connecting READ connecting NOTIFY serverChanged)
    Q_PROPERTY(QString serverUrl READ serverUrl NOTIFY serverChanged)
    Q_PROPERTY(QStringList serverModels READ serverModels NOTIFY serverChanged)
    // For each served model: its architecture summary and the backend it runs on.
    Q_PROPERTY(QStringList serverModelDetails READ serverModelDetails NOTIFY serverChanged)
    Q_PROPERTY(QString serverError READ serverError NOTIFY serverChanged)
    Q_PROPERTY(bool canReconnect READ canReconnect NOTIFY modelChanged)
    // The model compare mode can run B on besides the loaded one (the local folder while a server
    // model is loaded, or the reverse); empty when there is none.
    Q_PROPERTY(QString otherModel READ otherModel NOTIFY otherModelChanged)
    Q_PROPERTY(QString otherModelName READ otherModelName NOTIFY otherModelChanged)

public:
    // persist: the backend choice, model folder and server are written to QSettings; restore:
    // read from them at start (off with --no-restore).
    ModelHost(DecodeEngine* engine, bool persist, bool restore, QObject* parent = nullptr);
    // The local model folder of the last session (empty when not restored): what a launch
    // without --model reopens.
    QString savedModelDir() const { return saved_model_dir_; }

    const ModelInfo& info() const { return model_; }
    QString name() const { return model_.name; }
    QString summary() const { return model_.summary; }
    QString dir() const { return model_.dir; }
    bool loaded() const { return loaded_; }
    bool loading() const { return loading_; }
    QString loadingWhat() const { return loading_what_; }
    bool switchingBackend() const { return loading_ && switching_backend_; }
    QString backend() const { return backend_choice_; }
    // Moves the loaded model (if any) to the chosen backend; a load under way starts over on it.
    void setBackend(const QString& choice);
    static QStringList backendChoices() { return {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")}; }
    QString backendName() const { return loaded_ ? model_.backend : QString(); }
    QString backendNote() const { return loaded_ ? model_.backendNote : QString(); }
    bool cudaBuilt() const;
    bool chatAvailable() const { return loaded_ && model_.chatTemplate; }
    QString chatTemplateName() const { return loaded_ ? model_.chatTemplateName : QString(); }
    QString chatTemplateNote() const { return loaded_ ? model_.chatTemplateNote : QString(); }

    bool remote() const;
    // For the model folder dialog: where it first opens (the folder holding the loaded local
    // model, so its siblings show; empty otherwise), and whether a folder is a checkpoint to open.
    Q_INVOKABLE QUrl modelsFolder() const;
    Q_INVOKABLE static bool isCheckpointFolder(const QUrl& folder);
    QString serverHost() const { return server_host_; }
    int serverPort() const { return server_port_; }
    bool serverTls() const { return server_tls_; }
    QString serverCertificate() const { return server_certificate_; }
    bool connecting() const { return connecting_; }
    QString serverUrl() const { return server_url_; }
    QStringList serverModels() const { return server_models_; }
    QStringList serverModelDetails() const { return server_model_details_; }
    QString serverError() const { return server_error_; }
    bool canReconnect() const { return !loaded_ && !lost_location_.isEmpty(); }
    QString otherModel() const { return other_model_; }
    // "tiny-mdlm (local)" or "tiny-mdlm on ws://host:port"
    QString otherModelName() const { return describe(other_model_); }
    static QString describe(const QString& location);

    // A folder (path or file:// URL) or a server's model (ws[s]://host:port/<name>).
    Q_INVOKABLE void load(const QString& dirOrUrl);
    Q_INVOKABLE void connectServer(const QString& host, int port, const QString& token, bool tls,
                                   const QString& certificate = {});
    Q_INVOKABLE void loadFromServer(const QString& name);
    Q_INVOKABLE void reconnect();
    // Keeps the model that was loaded before; a backend switch cannot be cancelled.
    Q_INVOKABLE void cancelLoad();

Q_SIGNALS:
    void modelChanged();
    void loadingChanged();
    void backendChanged();
    void serverChanged();
    void otherModelChanged();
    // The model is about to be replaced or moved: runs on it must end.
    void aboutToChange();
    // A load (switched = false) or a backend switch (true) succeeded.
    void modelReady(const ModelInfo& info, bool switched);
    void loadFailed();  // a load (not a backend switch) failed; errorMessage says why
    void statusMessage(const QString& message);
    void errorMessage(const QString& message);  // empty: the last error no longer applies

private:
    void onLoaded(quint64 ticket, const ModelInfo& info);
    void onLoadFailed(quint64 ticket, const QString& error);
    void onConnectionLost(const QString& error);
    void save() const;

    DecodeEngine* engine_;
    bool persist_;
    QString saved_model_dir_;
    ModelInfo model_;
    bool loaded_ = false, loading_ = false;
    bool switching_backend_ = false;  // the current request moves the model to another backend
    QString loading_what_, loading_dir_;
    QString backend_choice_ = QStringLiteral("auto");
    quint64 ticket_ = 0;
    QString server_host_ = QStringLiteral("127.0.0.1");
    int server_port_ = 8765;
    bool server_tls_ = false, connecting_ = false;
    QString server_certificate_;
    QString server_url_, server_error_;
    QStringList server_models_;
    QStringList server_model_details_;
    quint64 server_ticket_ = 0;
    QString lost_location_;  // the server model whose connection dropped
    QString other_model_;
};
