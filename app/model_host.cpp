#include "model_host.h"

#include <QFileInfo>
#include <QSettings>
#include <QUrl>

#include "backends/backend_factory.h"
#include "model/hf_cache.h"
#include "local_path.h"

namespace {

// "CPU" / "CUDA" for messages; the choice "auto" reads as what it does.
QString backendLabel(const QString& name) {
    if (name == QLatin1String("cpu")) return QStringLiteral("CPU");
    if (name == QLatin1String("cuda")) return QStringLiteral("CUDA");
    return ModelHost::tr("automatically chosen");
}

}  // namespace

ModelHost::ModelHost(DecodeEngine* engine, bool persist, bool restore, QObject* parent)
    : QObject(parent), engine_(engine), persist_(persist) {
    if (persist_ && restore) {
        QSettings q;
        saved_model_dir_ = q.value("model/dir").toString();
        const QString saved = q.value("model/backend", backend_choice_).toString();
        if (backendChoices().contains(saved)) backend_choice_ = saved;
        server_host_ = q.value("server/host", server_host_).toString();
        server_port_ = q.value("server/port", server_port_).toInt();
        server_tls_ = q.value("server/tls", server_tls_).toBool();
        server_certificate_ = q.value("server/certificate").toString();
    }
    connect(engine_, &DecodeEngine::modelLoaded, this, &ModelHost::onLoaded);
    connect(engine_, &DecodeEngine::modelLoadFailed, this, &ModelHost::onLoadFailed);
    connect(engine_, &DecodeEngine::connectionLost, this, &ModelHost::onConnectionLost);
    connect(engine_, &DecodeEngine::otherModelChanged, this, [this](const QString& location) {
        if (location == other_model_) return;
        other_model_ = location;
        Q_EMIT otherModelChanged();
    });
    connect(engine_, &DecodeEngine::serverConnected, this, [this](quint64 ticket, const QString& url, const QStringList& models, const QStringList& details) {
        if (ticket != server_ticket_) return;
        connecting_ = false;
        server_url_ = url;
        server_models_ = models;
        server_model_details_ = details;
        server_error_.clear();
        Q_EMIT serverChanged();
        Q_EMIT statusMessage(models.size() == 1 ? tr("Connected to %1: 1 model").arg(url)
                                                : tr("Connected to %1: %2 models").arg(url).arg(models.size()));
    });
    connect(engine_, &DecodeEngine::serverFailed, this, [this](quint64 ticket, const QString& error) {
        if (ticket != server_ticket_) return;
        connecting_ = false;
        server_models_.clear();
        server_model_details_.clear();
        server_error_ = error;
        Q_EMIT serverChanged();
        // The dialog shows why; the status line must not go on saying "Connecting…".
        Q_EMIT statusMessage(loaded_ ? tr("Not connected; still on %1").arg(model_.name) : tr("Not connected"));
    });
}

bool ModelHost::cudaBuilt() const { return dlm::cuda_backend_built(); }

void ModelHost::save() const {
    if (!persist_) return;
    QSettings q;
    q.setValue("model/backend", backend_choice_);
    // Absolute: the next launch may start from another working directory.
    if (loaded_ && !remote()) q.setValue("model/dir", QFileInfo(model_.dir).absoluteFilePath());
}

bool ModelHost::remote() const {
    return loaded_ && isServerModel(model_.dir);
}

QUrl ModelHost::modelsFolder() const {
    if (!loaded_ || remote()) return {};
    return QUrl::fromLocalFile(QString::fromStdString(dlm::fellow_models_folder(model_.dir.toStdString()).string()));
}

bool ModelHost::isCheckpointFolder(const QUrl& folder) {
    return holdsCheckpoint(folder.toString());
}

QString ModelHost::describe(const QString& location) {
    if (location.isEmpty()) return {};
    if (!isServerModel(location)) return tr("%1 (local)").arg(folderName(location));
    const QUrl url(location);
    return tr("%1 on %2://%3:%4").arg(url.path().mid(1), url.scheme(), url.host()).arg(url.port());
}

void ModelHost::connectServer(const QString& host, int port, const QString& token, bool tls, const QString& certificate) {
    server_host_ = host.trimmed();
    server_port_ = port;
    server_tls_ = tls;
    server_certificate_ = localPath(certificate.trimmed());
    connecting_ = true;
    server_error_.clear();
    server_models_.clear();
    server_model_details_.clear();
    const QString url = QStringLiteral("%1://%2:%3").arg(tls ? "wss" : "ws", server_host_).arg(port);
    server_url_ = url;
    Q_EMIT serverChanged();
    if (persist_) {
        QSettings q;
        q.setValue("server/host", server_host_);
        q.setValue("server/port", server_port_);
        q.setValue("server/tls", server_tls_);
        q.setValue("server/certificate", server_certificate_);
    }
    Q_EMIT statusMessage(tr("Connecting to %1…").arg(url));
    engine_->connectServer(++server_ticket_, url, token, tls ? server_certificate_ : QString());
}

void ModelHost::loadFromServer(const QString& name) {
    if (server_url_.isEmpty() || name.isEmpty()) return;
    load(server_url_ + "/" + name);
}

void ModelHost::reconnect() {
    if (canReconnect()) load(lost_location_);
}

void ModelHost::onConnectionLost(const QString& error) {
    if (!loaded_ || !remote()) return;
    lost_location_ = model_.dir;
    loaded_ = false;
    Q_EMIT modelChanged();
    Q_EMIT errorMessage(tr("The server is gone: %1. The steps received are kept (Save trace… keeps them); Reconnect tries again.").arg(error));
    Q_EMIT statusMessage(tr("No model loaded"));
}

void ModelHost::load(const QString& dirOrUrl) {
    const QString dir = localPath(dirOrUrl);
    Q_EMIT aboutToChange();
    loading_ = true;
    switching_backend_ = false;
    loading_what_ = folderName(dir);
    loading_dir_ = dir;
    Q_EMIT loadingChanged();
    Q_EMIT errorMessage(QString());  // a new attempt: why the last one failed no longer applies
    Q_EMIT statusMessage(tr("Loading %1…").arg(dir));
    engine_->loadModel(++ticket_, dir, backend_choice_);
}

void ModelHost::setBackend(const QString& choice) {
    if (!backendChoices().contains(choice))
        return Q_EMIT errorMessage(tr("Unknown backend '%1': the choices are auto, cpu and cuda").arg(choice));
    if (choice == backend_choice_) return;
    backend_choice_ = choice;
    Q_EMIT backendChanged();
    save();
    if (loading_ && !switching_backend_) return load(loading_dir_);  // the load under way starts over
    if (!loaded_ || remote()) return;  // applies to the next (local) model opened
    if (!switching_backend_ && (choice == QLatin1String("cpu")) == (model_.backend == QLatin1String("cpu"))) {
        // The model already runs where this choice leads (cuda <-> auto on a GPU, or cpu): no move.
        model_.backendChoice = choice;
        model_.backendNote.clear();
        Q_EMIT modelChanged();
        return;
    }
    // A switch moves the loaded model; the runs shown (and their history) stay as they are.
    Q_EMIT aboutToChange();
    loading_ = true;
    switching_backend_ = true;
    loading_what_ = tr("%1 to the %2 backend").arg(model_.name, backendLabel(choice));
    Q_EMIT loadingChanged();
    Q_EMIT statusMessage(tr("Moving %1…").arg(loading_what_));
    engine_->switchBackend(++ticket_, choice);
}

void ModelHost::cancelLoad() {
    if (!loading_ || switching_backend_) return;
    engine_->cancelLoad(ticket_);
    ++ticket_;  // whatever the cancelled load still answers is stale
    loading_ = false;
    Q_EMIT loadingChanged();
    // The model kept is on the backend it was loaded with: the selector says so again.
    if (loaded_ && !model_.backendChoice.isEmpty() && backend_choice_ != model_.backendChoice) {
        backend_choice_ = model_.backendChoice;
        Q_EMIT backendChanged();
        save();
    }
    Q_EMIT statusMessage(loaded_ ? tr("Load cancelled; still on %1").arg(model_.name) : tr("Load cancelled"));
}

void ModelHost::onLoaded(quint64 ticket, const ModelInfo& info) {
    if (ticket != ticket_) return;
    const bool switched = switching_backend_;
    model_ = info;
    loaded_ = true;
    lost_location_.clear();
    loading_ = false;
    switching_backend_ = false;
    Q_EMIT modelReady(info, switched);
    Q_EMIT modelChanged();
    Q_EMIT loadingChanged();
    if (switched) Q_EMIT statusMessage(tr("%1 now runs on the %2 backend").arg(info.name, backendLabel(info.backend)));
    else Q_EMIT statusMessage(tr("Loaded %1 (%2) on the %3 backend").arg(info.name, info.summary, backendLabel(info.backend)));
    save();
}

void ModelHost::onLoadFailed(quint64 ticket, const QString& error) {
    if (ticket != ticket_) return;
    const bool switched = switching_backend_;
    loading_ = false;
    switching_backend_ = false;
    if (switched) {
        // The engine closed the model: it had no backend left to run on.
        loaded_ = false;
        Q_EMIT modelChanged();
    }
    Q_EMIT loadingChanged();
    Q_EMIT errorMessage(switched ? tr("Could not move the model to the %1 backend: %2").arg(backendLabel(backend_choice_), error)
                                 : tr("Could not open the model: %1").arg(error));
    Q_EMIT statusMessage(loaded_ ? tr("Still on %1").arg(model_.name) : tr("No model loaded"));
    if (!switched) Q_EMIT loadFailed();
}
