#include "decode_worker.h"

#include <filesystem>

#include <QDir>
#include <QFileInfo>
#include <QLocale>

#include "compute/backend_factory.h"
#include "decode/decode_session.h"
#include "decode/decode_settings.h"
#include "decode/strategy.h"
#include "model/checkpoint.h"
#include "text/chat_template.h"
#include "util/error.h"

namespace {

dlm::DecodeSettings toSettings(const QVariantMap& map) {
    dlm::DecodeSettings s;
    for (auto it = map.cbegin(); it != map.cend(); ++it) s.set(it.key().toStdString(), it.value().toString().toStdString());
    return s;
}

QVariantList toVariant(const std::vector<dlm::SettingsIssue>& issues) {
    QVariantList out;
    for (const auto& i : issues)
        out.push_back(QVariantMap{{"severity", i.is_error() ? "error" : "warning"},
                                  {"key", QString::fromStdString(i.key)},
                                  {"message", QString::fromStdString(i.message)}});
    return out;
}

QString describe(const dlm::Checkpoint& c) {
    const auto& m = c.config();
    return QStringLiteral("%1 · d=%2 · L=%3 · H=%4 · V=%5 · %6 params")
        .arg(QString::fromUtf8(dlm::family_name(m.family).data()))
        .arg(m.d_model).arg(m.n_layers).arg(m.n_heads).arg(m.vocab_size)
        .arg(QLocale::c().toString(double(dlm::parameter_count(m)) / 1e6, 'f', 2) + "M");
}

}  // namespace

DecodeWorker::DecodeWorker(QObject* parent) : QObject(parent) {}
DecodeWorker::~DecodeWorker() = default;

void DecodeWorker::requestCancel() {
    cancel_.store(true);
    // The session's own flag is atomic too; setting it is safe from any thread. Reading the
    // pointer races with the worker only between runs, which the GUI never overlaps with Stop.
}

void DecodeWorker::loadModel(quint64 ticket, const QString& dir, const QString& backendChoice) {
    try {
        const dlm::BackendKind kind = dlm::parse_backend_kind(backendChoice.toStdString());
        auto checkpoint = std::make_unique<dlm::Checkpoint>(dlm::load_checkpoint(std::filesystem::path(dir.toStdString())));
        if (!checkpoint->config().is_diffusion())
            throw dlm::Error("'" + dir.toStdString() + "' is a " +
                             std::string(dlm::family_name(checkpoint->config().family)) +
                             " model (autoregressive): dlmscope decodes masked diffusion models (llada, dream)");
        if (cancelled_load_.load() == ticket) return;  // the user gave up waiting: keep the old model
        // CUDA when asked for (or auto) and usable, else the CPU with a note saying why.
        dlm::BackendChoice choice = dlm::make_backend(checkpoint->weights, kind);
        if (cancelled_load_.load() == ticket) return;
        finishRun(true);  // a run on the old model ends here (the GUI stops it first anyway)
        backend_ = std::move(choice.backend);
        checkpoint_ = std::move(checkpoint);
        model_dir_ = QDir::cleanPath(dir);
        Q_EMIT modelLoaded(ticket, loadedInfo(kind, choice.note));
    } catch (const std::exception& e) {
        if (cancelled_load_.load() != ticket) Q_EMIT modelLoadFailed(ticket, QString::fromUtf8(e.what()));
    }
}

void DecodeWorker::switchBackend(quint64 ticket, const QString& backendChoice) {
    if (!checkpoint_) return Q_EMIT modelLoadFailed(ticket, QStringLiteral("no model is loaded"));
    try {
        const dlm::BackendKind kind = dlm::parse_backend_kind(backendChoice.toStdString());
        finishRun(true);
        // The old backend goes first: a model held on the GPU and on the CPU at once (or twice
        // on the GPU) may not fit, and the switch would then fail for no reason of its own.
        backend_.reset();
        dlm::BackendChoice choice = dlm::make_backend(checkpoint_->weights, kind);
        backend_ = std::move(choice.backend);
        Q_EMIT modelLoaded(ticket, loadedInfo(kind, choice.note));
    } catch (const std::exception& e) {
        // Not even the CPU backend could be made (out of memory): nothing is left to run on.
        backend_.reset();
        checkpoint_.reset();
        Q_EMIT modelLoadFailed(ticket, QString::fromUtf8(e.what()) + QStringLiteral(" (the model was closed)"));
    }
}

ModelInfo DecodeWorker::loadedInfo(dlm::BackendKind kind, const std::string& note) const {
    ModelInfo info;
    info.dir = model_dir_;
    info.name = QFileInfo(info.dir).fileName();
    info.family = QString::fromUtf8(dlm::family_name(checkpoint_->config().family).data());
    info.tokenizer = QString::fromStdString(checkpoint_->tokenizer->kind());
    info.vocab = checkpoint_->config().vocab_size;
    info.maxSeqLen = checkpoint_->config().max_seq_len;
    const dlm::ChatTemplate& chat = checkpoint_->chat_template;
    info.chatTemplate = chat.recognised();
    if (chat.recognised()) info.chatTemplateName = QString::fromStdString(chat.describe());
    else if (chat.published) info.chatTemplateNote = QString::fromStdString(chat.note);
    info.summary = describe(*checkpoint_);
    info.backendChoice = QString::fromUtf8(dlm::backend_kind_name(kind));
    info.backend = QString::fromStdString(backend_->name());
    info.backendNote = QString::fromStdString(note);
    info.generation = dlm::read_generation_defaults(checkpoint_->dir);
    return info;
}

void DecodeWorker::validate(quint64 requestId, const QString& prompt, const QVariantMap& settings, bool chat) {
    QVariantList issues;
    int promptLength = 0;
    try {
        const auto s = toSettings(settings);
        if (checkpoint_) {
            const auto ids = dlm::build_prompt(*checkpoint_, prompt.toStdString(), chat);
            promptLength = int(ids.size());
            issues = toVariant(dlm::validate(s, checkpoint_->config(), promptLength));
            // Unknown or malformed parameters of the chosen strategy surface before Run, as the
            // strategy itself reports them. Guided Diffusion is left to Run: building it loads its
            // guider model from disk, too much for every keystroke.
            bool has_error = false;
            for (const auto& v : issues) has_error |= v.toMap().value("severity") == "error";
            if (!has_error && s.strategy != "guided") {
                try {
                    (void)dlm::make_strategy(s, checkpoint_->config(), promptLength);
                } catch (const std::exception& e) {
                    issues.push_back(QVariantMap{{"severity", "error"}, {"key", QString()}, {"message", QString::fromUtf8(e.what())}});
                }
            }
        }
    } catch (const std::exception& e) {
        issues.push_back(QVariantMap{{"severity", "error"}, {"key", QString()}, {"message", QString::fromUtf8(e.what())}});
    }
    Q_EMIT validated(requestId, issues, promptLength);
}

void DecodeWorker::startRun(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat) {
    if (session_) finishRun(true);
    cancel_.store(false);
    single_steps_ = 0;
    run_id_ = runId;
    try {
        if (!checkpoint_) throw dlm::Error("no model is loaded: open a checkpoint folder first");
        auto s = toSettings(settings);
        auto ids = dlm::build_prompt(*checkpoint_, prompt.toStdString(), chat);
        dlm::DecodeLabels labels{checkpoint_->dir.filename().string(), prompt.toStdString(), checkpoint_->dir};
        session_ = std::make_unique<dlm::DecodeSession>(*backend_, *checkpoint_->tokenizer, checkpoint_->config(),
                                                        std::move(ids), std::move(s), std::move(labels));
        QStringList warnings;
        for (const auto& w : session_->warnings()) warnings << QString::fromStdString(w.message);
        Q_EMIT runStarted(runId, std::make_shared<const dlm::TraceHeader>(session_->header()), warnings);
        scheduleStep();
    } catch (const std::exception& e) {
        session_.reset();
        Q_EMIT runFailed(runId, QString::fromUtf8(e.what()));
    }
}

void DecodeWorker::resume() {
    paused_.store(false);
    scheduleStep();
}

void DecodeWorker::stepOnce() {
    if (!session_) return;
    ++single_steps_;
    scheduleStep();
}

void DecodeWorker::scheduleStep() {
    if (step_scheduled_ || !session_) return;
    step_scheduled_ = true;
    QMetaObject::invokeMethod(this, &DecodeWorker::runOneStep, Qt::QueuedConnection);
}

void DecodeWorker::runOneStep() {
    step_scheduled_ = false;
    if (!session_) return;
    if (cancel_.load()) return finishRun(true);
    if (paused_.load()) {
        if (single_steps_ == 0) return;  // idle until resume() or stepOnce()
        --single_steps_;
    }
    try {
        auto trace = std::make_shared<const dlm::StepTrace>(session_->step());
        Q_EMIT stepReady(run_id_, trace);
    } catch (const std::exception& e) {
        session_.reset();
        Q_EMIT runFailed(run_id_, QString::fromUtf8(e.what()));
        return;
    }
    if (session_->finished()) return finishRun(false);
    if (cancel_.load()) return finishRun(true);
    if (!paused_.load() || single_steps_ > 0) scheduleStep();
}

void DecodeWorker::finishRun(bool cancelled) {
    if (!session_) return;
    auto summary = std::make_shared<const dlm::TraceSummary>(session_->summary());
    session_.reset();
    Q_EMIT runFinished(run_id_, summary, cancelled);
}

void DecodeWorker::shutdown() {
    session_.reset();
    backend_.reset();
    checkpoint_.reset();
}
