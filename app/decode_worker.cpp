#include "decode_worker.h"

#include <filesystem>

#include <QDir>

#include "backends/backend_factory.h"
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

}  // namespace

DecodeWorker::DecodeWorker(DecodeEngine* reports) : reports_(reports) {}
DecodeWorker::~DecodeWorker() = default;

void DecodeWorker::requestCancel() {
    cancel_.store(true);
    // The session's own flag is atomic too; setting it is safe from any thread. Reading the
    // pointer races with the worker only between runs, which the GUI never overlaps with Stop.
}

void DecodeWorker::loadModel(quint64 ticket, const QString& dir, const QString& backendChoice) {
    try {
        dlm::LoadOptions options;
        options.backend = dlm::parse_backend_kind(backendChoice.toStdString());
        options.diffusion_only = true;
        // The user gave up waiting: keep the old model.
        options.cancelled = [this, ticket] { return cancelled_load_.load() == ticket; };
        dlm::LoadedModel loaded = dlm::load_model(std::filesystem::path(dir.toStdString()), options);
        if (!loaded) return;
        finishRun(true);  // a run on the old model ends here (the GUI stops it first anyway)
        model_ = std::move(loaded);
        model_dir_ = QDir::cleanPath(dir);
        Q_EMIT reports_->modelLoaded(ticket, loadedInfo(options.backend));
    } catch (const std::exception& e) {
        if (cancelled_load_.load() != ticket) Q_EMIT reports_->modelLoadFailed(ticket, QString::fromUtf8(e.what()));
    }
}

void DecodeWorker::switchBackend(quint64 ticket, const QString& backendChoice) {
    if (!model_.checkpoint) return Q_EMIT reports_->modelLoadFailed(ticket, QStringLiteral("no model is loaded"));
    try {
        const dlm::BackendKind kind = dlm::parse_backend_kind(backendChoice.toStdString());
        finishRun(true);
        dlm::switch_backend(model_, kind);
        Q_EMIT reports_->modelLoaded(ticket, loadedInfo(kind));
    } catch (const std::exception& e) {
        // Not even the CPU backend could be made (out of memory): nothing is left to run on.
        model_ = {};
        Q_EMIT reports_->modelLoadFailed(ticket, QString::fromUtf8(e.what()) + QStringLiteral(" (the model was closed)"));
    }
}

ModelInfo DecodeWorker::loadedInfo(dlm::BackendKind kind) const {
    const dlm::Checkpoint& checkpoint = *model_.checkpoint;
    ModelInfo info;
    info.dir = model_dir_;
    info.name = QString::fromStdString(model_.name);
    info.family = QString::fromUtf8(dlm::family_name(checkpoint.config().family).data());
    info.tokenizer = QString::fromStdString(checkpoint.tokenizer->kind());
    info.vocab = checkpoint.config().vocab_size;
    info.maxSeqLen = checkpoint.config().max_seq_len;
    const dlm::ChatTemplate& chat = checkpoint.chat_template;
    info.chatTemplate = chat.recognised();
    if (chat.recognised()) info.chatTemplateName = QString::fromStdString(chat.describe());
    else if (chat.published) info.chatTemplateNote = QString::fromStdString(chat.note);
    info.summary = QString::fromStdString(dlm::model_summary(checkpoint.config()));
    info.backendChoice = QString::fromUtf8(dlm::backend_kind_name(kind));
    info.backend = QString::fromStdString(model_.backend->name());
    info.backendNote = QString::fromStdString(model_.backend_note);
    info.generation = model_.generation;
    return info;
}

void DecodeWorker::validate(quint64 requestId, const QString& prompt, const QVariantMap& settings, bool chat) {
    QVariantList issues;
    try {
        const auto s = toSettings(settings);
        if (model_) {
            const auto ids = dlm::build_prompt(*model_.checkpoint, prompt.toStdString(), chat);
            issues = toVariant(dlm::validate_with_strategy(s, model_.config(), int(ids.size())));
        }
    } catch (const std::exception& e) {
        issues.push_back(QVariantMap{{"severity", "error"}, {"key", QString()}, {"message", QString::fromUtf8(e.what())}});
    }
    Q_EMIT reports_->validated(requestId, issues);
}

void DecodeWorker::startRun(quint64 runId, const QString& prompt, const QVariantMap& settings, bool chat) {
    if (session_) finishRun(true);
    cancel_.store(false);
    single_steps_ = 0;
    run_id_ = runId;
    try {
        if (!model_) throw dlm::Error("no model is loaded: open a checkpoint folder first");
        auto s = toSettings(settings);
        auto ids = dlm::build_prompt(*model_.checkpoint, prompt.toStdString(), chat);
        dlm::DecodeLabels labels = model_.run_labels(prompt.toStdString());
        session_ = std::make_unique<dlm::DecodeSession>(*model_.backend, *model_.checkpoint->tokenizer, model_.config(),
                                                        std::move(ids), std::move(s), std::move(labels),
                                                        model_.guiders.get());
        QStringList warnings;
        for (const auto& w : session_->warnings()) warnings << QString::fromStdString(w.message);
        Q_EMIT reports_->runStarted(runId, std::make_shared<const dlm::TraceHeader>(session_->header()), warnings);
        scheduleStep();
    } catch (const std::exception& e) {
        session_.reset();
        Q_EMIT reports_->runFailed(runId, QString::fromUtf8(e.what()));
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
        Q_EMIT reports_->stepReady(run_id_, trace);
    } catch (const std::exception& e) {
        session_.reset();
        Q_EMIT reports_->runFailed(run_id_, QString::fromUtf8(e.what()));
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
    Q_EMIT reports_->runFinished(run_id_, summary, cancelled);
}

