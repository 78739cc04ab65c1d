#include "run_controller.h"

#include <algorithm>
#include <optional>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QSettings>
#include <QThreadPool>

#include "csv_export.h"
#include "decode/settings_schema.h"
#include "decode_config.h"
#include "local_path.h"
#include "model_host.h"
#include "text_diff.h"
#include "trace_files.h"

namespace {
// "1 step", "48 steps": Qt's %n plural needs a translation file to say more than "step(s)".
QString stepCount(qsizetype n) {
    return n == 1 ? RunController::tr("1 step") : RunController::tr("%1 steps").arg(n);
}
}  // namespace

RunController::RunController(DecodeEngine* engine, ModelHost* model, DecodeConfig* config, bool persist, bool restore,
                             QObject* parent)
    : QObject(parent), engine_(engine), model_(model), config_(config), persist_(persist) {
    if (persist_ && restore) replay_speed_ = std::clamp(QSettings().value("replay/speed", replay_speed_).toDouble(),
                                                     DecodeAnimation::kMinStepsPerSecond, DecodeAnimation::kMaxStepsPerSecond);
    for (RunView* v : {&run_, &compare_})
        v->setAnswerLookup([config](const QString& prompt) { return config->answerFor(prompt); });
    connect(engine_, &DecodeEngine::runStarted, this, &RunController::onRunStarted);
    connect(engine_, &DecodeEngine::stepReady, this, &RunController::onStepReady);
    connect(engine_, &DecodeEngine::runFinished, this, &RunController::onRunFinished);
    connect(engine_, &DecodeEngine::runFailed, this, &RunController::onRunFailed);
    connect(config_, &DecodeConfig::settingsChanged, this, &RunController::epsilonChanged);

    frame_timer_.setSingleShot(true);
    frame_timer_.setInterval(16);  // ~ one display frame: bursts of steps coalesce into one repaint
    connect(&frame_timer_, &QTimer::timeout, this, &RunController::applyFrame);
    connect(&replay_timer_, &QTimer::timeout, this, &RunController::replayTick);
    connect(&compare_, &RunView::summaryChanged, this, &RunController::updateCompareSummary);
    connect(&run_, &RunView::summaryChanged, this, &RunController::updateCompareSummary);
}

bool RunController::canRun() const { return model_->loaded() && !model_->loading() && !config_->hasErrors(); }

namespace {
double number(const QString& text) {
    bool ok = false;
    const double e = text.toDouble(&ok);
    return ok ? e : 0.0;
}
double epsilonOf(const RunView& v) {
    return number(QString::fromStdString(dlm::parameter_in_effect(v.history().header()->settings, "surelock.epsilon")));
}
}  // namespace

double RunController::epsilon() const {
    // An ε the panel gives moves the band over the shown run (tuning by eye); else the band is at
    // the ε the shown run decoded with, else at the panel's default. 0 (no band) where the
    // strategy does not lock.
    const QString inPanel = config_->parameterInEffect("surelock.epsilon");
    if (config_->settings().contains("surelock.epsilon") && !inPanel.isEmpty()) return number(inPanel);
    if (run_.hasRun()) return epsilonOf(run_);
    return number(inPanel);
}

double RunController::compareEpsilon() const { return compare_.hasRun() ? epsilonOf(compare_) : 0.0; }

// --- runs ----------------------------------------------------------------------------------

void RunController::startRunInto(RunView* view, const QVariantMap& settings, bool onOtherModel) {
    const quint64 id = ++run_counter_;
    run_targets_.insert(id, view);
    setRunning(true, false);
    view->setSource(ModelHost::describe(onOtherModel ? model_->otherModel() : model_->dir()));
    if (onOtherModel) engine_->startRunOnOtherModel(id, config_->prompt(), settings, config_->chat());
    else engine_->startRun(id, config_->prompt(), settings, config_->chat());
}

void RunController::runDecode() {
    if (!model_->loaded()) return Q_EMIT errorMessage(tr("No model is loaded: open a checkpoint folder (Model…) or a trace."));
    Q_EMIT errorMessage(QString());
    stopReplay();
    compare_b_pending_ = 0;
    if (compare_mode_) setCompareMode(false);
    compare_.clear();
    Q_EMIT statusMessage(tr("Decoding…"));
    startRunInto(&run_, config_->runSettings());
}

void RunController::rerun() { compare_mode_ ? runCompare() : runDecode(); }

void RunController::runCompare() {
    if (!model_->loaded()) return Q_EMIT errorMessage(tr("No model is loaded: compare needs a model."));
    Q_EMIT errorMessage(QString());
    stopReplay();
    config_->alignCompareToRun();
    setCompareMode(true);
    compare_.clear();
    Q_EMIT statusMessage(tr("Compare: decoding A…"));
    startRunInto(&run_, config_->runSettings());
    compare_b_pending_ = run_counter_;
}

void RunController::pause() {
    if (!running_ || paused_) return;
    engine_->pause();
    setRunning(true, true);
    Q_EMIT statusMessage(tr("Paused"));
}

void RunController::resume() {
    if (!running_) return startReplay();
    engine_->resume();
    setRunning(true, false);
    Q_EMIT statusMessage(tr("Decoding…"));
}

void RunController::stepOnce() {
    if (running_) {
        if (!paused_) pause();
        engine_->stepOnce();
        return;
    }
    stopReplay();
    setViewStep(run_.viewStep() + 1);
}

void RunController::stop() {
    if (!running_) return stopReplay();
    compare_b_pending_ = 0;
    engine_->cancelRun();
    Q_EMIT statusMessage(tr("Stopping…"));
}

void RunController::onRunStarted(quint64 runId, const TraceHeaderPtr& header, const QStringList& warnings) {
    RunView* v = run_targets_.value(runId);
    if (!v) return;
    v->begin(header);
    Q_EMIT epsilonChanged();  // ε may come from the header
    if (!warnings.isEmpty()) Q_EMIT statusMessage(tr("Decoding… (%1)").arg(warnings.join("; ")));
    run_warnings_.insert(runId, warnings);
}

void RunController::onStepReady(quint64 runId, const StepTracePtr& step) {
    RunView* v = run_targets_.value(runId);
    if (!v) return;
    try {
        v->record(step);
    } catch (const std::exception& e) {
        Q_EMIT errorMessage(QString::fromUtf8(e.what()));
        return;
    }
    if (!frame_timer_.isActive()) frame_timer_.start();
}

void RunController::applyFrame() {
    run_.flush();
    compare_.flush();
    ++frames_applied_;
    Q_EMIT framesAppliedChanged();
}

void RunController::onRunFinished(quint64 runId, const TraceSummaryPtr& summary, bool cancelled) {
    RunView* v = run_targets_.take(runId);
    const QStringList warnings = run_warnings_.take(runId);
    if (!v) return;
    frame_timer_.stop();
    applyFrame();
    v->finish(summary, cancelled);
    if (!cancelled && runId == compare_b_pending_) {
        compare_b_pending_ = 0;
        const bool other = compare_on_other_ && !model_->otherModel().isEmpty();
        Q_EMIT statusMessage(other ? tr("Compare: decoding B on %1…").arg(model_->otherModelName())
                                   : tr("Compare: decoding B…"));
        startRunInto(&compare_, config_->compareRunSettings(), other);
        return;
    }
    setRunning(false, false);
    if (cancelled) {
        Q_EMIT statusMessage(tr("Stopped after %1").arg(stepCount(v->stepCount())));
    } else {
        const QString took = tr("%1, %2 s").arg(stepCount(summary->steps)).arg(summary->wall_s, 0, 'f', 2);
        const int unfinished = v->unfinishedPositions();
        // The run's warnings stay in the last word about it (a guider picked among the user's
        // folders, a knob without effect): the "Decoding…" line that first said them is gone.
        const QString said = warnings.isEmpty() ? QString() : tr(" (%1)").arg(warnings.join("; "));
        Q_EMIT statusMessage((unfinished > 0 ? tr("Ended at the step limit: %1, %2 positions still masked").arg(took).arg(unfinished)
                                             : tr("Done: %1").arg(took)) + said);
    }
    Q_EMIT runCompleted(!cancelled);
}

void RunController::onRunFailed(quint64 runId, const QString& error) {
    run_warnings_.remove(runId);
    if (!run_targets_.remove(runId)) return;
    compare_b_pending_ = 0;
    frame_timer_.stop();
    applyFrame();
    setRunning(false, false);
    Q_EMIT errorMessage(error);
    Q_EMIT statusMessage(tr("Run failed"));
    Q_EMIT runCompleted(false);
}

void RunController::setRunning(bool running, bool paused) {
    if (running == running_ && paused == paused_) return;
    running_ = running;
    paused_ = paused;
    Q_EMIT runningChanged();
}

// --- compare -------------------------------------------------------------------------------

void RunController::toggleCompare(bool on) {
    if (on && canRun() && !running_) return runCompare();
    setCompareMode(on);
}

void RunController::setCompareOnOtherModel(bool on) {
    if (on == compare_on_other_) return;
    compare_on_other_ = on;
    Q_EMIT compareModeChanged();
}

void RunController::setCompareMode(bool c) {
    if (c == compare_mode_) return;
    compare_mode_ = c;
    Q_EMIT compareModeChanged();
}

void RunController::updateCompareSummary() {
    compare_summary_.clear();
    if (run_.complete() && compare_.complete()) {
        const auto& a = *run_.history().summary();
        const auto& b = *compare_.history().summary();
        const auto d = diffWords(QString::fromStdString(a.text), QString::fromStdString(b.text));
        // Costs with a guider's forwards, against the dense forwards of each run's steps and
        // against the baseline sampler's run on its canvas (design.md §6).
        compare_summary_ = QVariantMap{
            {"flopsRatioA", a.flops_ratio()}, {"flopsRatioB", b.flops_ratio()},
            {"flopsToBaselineA", a.flops_ratio_to_baseline(run_.history().positionCount())},
            {"flopsToBaselineB", b.flops_ratio_to_baseline(compare_.history().positionCount())},
            {"flopsAoverB", b.strategy_flops() > 0 ? a.strategy_flops() / b.strategy_flops() : 0.0},
            {"speedupAoverB", a.wall_s > 0 ? b.wall_s / a.wall_s : 0.0},
            {"wallA", a.wall_s}, {"wallB", b.wall_s}, {"stepsA", a.steps}, {"stepsB", b.steps},
            {"tpsA", a.e2e_tps()}, {"tpsB", b.e2e_tps()},
            {"agree", d.identical}, {"changedWords", d.changedWords},
            {"textA", d.leftHtml}, {"textB", d.rightHtml}};
        // What B changed, so that a difference in the answers can be put down to its cause.
        if (const auto& ha = run_.history().header(), &hb = compare_.history().header(); ha && hb) {
            QStringList changes;
            for (const auto& c : dlm::differing_settings(ha->settings, hb->settings))
                changes << QString::fromStdString(c.key + " " + c.a + " → " + c.b);
            compare_summary_["settingChanges"] = changes.join(QStringLiteral(" · "));
        }
    }
    Q_EMIT compareSummaryChanged();
}

// --- replay, files ---------------------------------------------------------------------------

void RunController::setViewStep(int step) {
    run_.setViewStep(step);
    if (compare_mode_) compare_.setViewStep(step);
}

void RunController::setReplaySpeed(double s) {
    s = std::clamp(s, DecodeAnimation::kMinStepsPerSecond, DecodeAnimation::kMaxStepsPerSecond);
    if (qFuzzyCompare(s, replay_speed_)) return;
    replay_speed_ = s;
    if (replay_timer_.isActive()) replay_timer_.setInterval(int(1000 / replay_speed_));
    Q_EMIT replaySpeedChanged();
    if (persist_) QSettings().setValue("replay/speed", replay_speed_);
}

void RunController::startReplay() {
    if (running_ || run_.stepCount() == 0) return;
    if (run_.viewStep() >= run_.stepCount() - 1) setViewStep(0);
    replay_timer_.start(int(1000 / replay_speed_));
    Q_EMIT replayingChanged();
}

void RunController::stopReplay() {
    if (!replay_timer_.isActive()) return;
    replay_timer_.stop();
    Q_EMIT replayingChanged();
}

void RunController::replayTick() {
    const int last = std::max(run_.stepCount(), compare_mode_ ? compare_.stepCount() : 0) - 1;
    if (run_.viewStep() >= last) return stopReplay();
    setViewStep(run_.viewStep() + 1);
}

bool RunController::openTrace(const QString& pathOrUrl) {
    const QString path = localPath(pathOrUrl);
    try {
        auto file = dlm::read_trace(std::filesystem::path(path.toStdString()));
        // A compare pair saved together (<name>-B beside it) opens as the pair.
        const QString pathB = pathOfB(path);
        std::optional<dlm::TraceFile> fileB;
        QString problemB;
        if (QFileInfo::exists(pathB)) {
            try {
                fileB = dlm::read_trace(std::filesystem::path(pathB.toStdString()));
            } catch (const std::exception& e) {
                problemB = QString::fromUtf8(e.what());
            }
        }
        if (running_) stop();
        stopReplay();
        compare_.clear();
        // The left panel shows what the trace was decoded with, so that Run (with a model
        // loaded) decodes the same prompt with the same settings.
        config_->adoptTrace(file.header, fileB ? &fileB->header : nullptr);
        showTrace(run_, std::move(file));
        if (fileB) showTrace(compare_, std::move(*fileB));
        setCompareMode(bool(fileB));
        setViewStep(run_.stepCount() - 1);
        Q_EMIT epsilonChanged();
        if (!problemB.isEmpty()) Q_EMIT errorMessage(tr("Opened %1 alone: its run B, %2, could not be read: %3").arg(QFileInfo(path).fileName(), QFileInfo(pathB).fileName(), problemB));
        Q_EMIT statusMessage(fileB ? tr("Opened the compare pair %1 (%2) and %3 (%4)")
                                         .arg(QFileInfo(path).fileName(), stepCount(run_.stepCount()), QFileInfo(pathB).fileName(), stepCount(compare_.stepCount()))
                                   : tr("Opened trace %1 (%2)").arg(QFileInfo(path).fileName(), stepCount(run_.stepCount())));
        Q_EMIT runCompleted(true);
        return true;
    } catch (const std::exception& e) {
        Q_EMIT errorMessage(tr("Could not open the trace: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
}

QString RunController::pathOfB(const QString& path) {
    const QFileInfo f(path);
    return f.dir().filePath(f.completeBaseName() + QStringLiteral("-B") + (f.suffix().isEmpty() ? QString() : "." + f.suffix()));
}

QString RunController::comparePath(const QString& path) const {
    return compare_mode_ && compare_.hasRun() ? pathOfB(path) : QString();
}

RunController::~RunController() {
    if (animation_cancel_) animation_cancel_->store(true);
}

DecodeAnimation RunController::animationOf(const QVariantMap& options) const {
    DecodeAnimation animation;
    animation.stepsPerSecond = options.value(QStringLiteral("stepsPerSecond"), replay_speed_).toDouble();
    animation.firstStep = options.value(QStringLiteral("from"), 0).toInt();
    animation.lastStep = options.value(QStringLiteral("to"), -1).toInt();
    animation.scale = options.value(QStringLiteral("scale"), 0).toDouble();
    if (run_.stepCount() == 0) return animation;
    animation.panels.push_back(run_.animationPanel());
    if (compare_mode_ && compare_.stepCount() > 0) {  // A above B, in lock-step
        animation.panels.push_back(compare_.animationPanel());
        animation.panels[0].title.prepend(QStringLiteral("A · "));
        animation.panels[1].title.prepend(QStringLiteral("B · "));
    }
    return animation;
}

QVariantMap RunController::animationPlan(const QVariantMap& options) const {
    const DecodeAnimation a = animationOf(options);
    QString problem = a.problem();
    if (run_.stepCount() == 0) problem = tr("there is no decode yet: run one or open a trace");
    const QSize pixels = problem.isEmpty() ? a.pixelSize() : QSize();
    int playMs = 0;
    for (int f = 0; problem.isEmpty() && f < a.frames(); ++f) playMs += a.delayMs(f);
    return {{QStringLiteral("steps"), a.steps()},
            {QStringLiteral("frames"), problem.isEmpty() ? a.frames() : 0},
            {QStringLiteral("seconds"), playMs / 1000.0},
            {QStringLiteral("width"), pixels.width()},
            {QStringLiteral("height"), pixels.height()},
            {QStringLiteral("scale"), a.pixelRatio()},
            {QStringLiteral("problem"), problem}};
}

bool RunController::exportAnimation(const QString& pathOrUrl, const QVariantMap& options) {
    if (animation_cancel_) {
        Q_EMIT errorMessage(tr("An animation is still being written; export again when it is done"));
        return false;
    }
    if (run_.stepCount() == 0) {
        Q_EMIT errorMessage(tr("There is no decode to export yet: run one or open a trace"));
        return false;
    }
    const QString path = localPath(pathOrUrl);
    DecodeAnimation animation = animationOf(options);
    if (const QString problem = animation.problem(); !problem.isEmpty()) {
        Q_EMIT errorMessage(tr("Could not export the animation: %1").arg(problem));
        return false;
    }
    const bool both = animation.panels.size() == 2;
    // "steps 20–60 of " when the animation shows part of the run.
    const QString part = animation.firstStep == 0 && animation.shownLast() == animation.steps()
                             ? QString()
                             : tr("steps %1–%2 of ").arg(animation.firstStep).arg(animation.shownLast());
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    animation_cancel_ = cancel;
    Q_EMIT exportingAnimationChanged();
    Q_EMIT statusMessage(tr("Writing the animation to %1…").arg(path));
    // Back on the GUI thread, and only while this controller still exists.
    auto post = [self = QPointer<RunController>(this)](std::function<void(RunController*)> f) {
        QMetaObject::invokeMethod(QCoreApplication::instance(), [self, f = std::move(f)] { if (self) f(self); },
                                  Qt::QueuedConnection);
    };
    QThreadPool::globalInstance()->start([animation = std::move(animation), path, both, part, cancel, post] {
        const QString name = QFileInfo(path).fileName();
        int reported = 0;
        const QString error = writeDecodeAnimation(animation, path, [&](int done, int total) {
            const int percent = 100 * done / total;
            if (percent < reported + 10 || done == total) return;
            reported = percent;
            post([=](RunController* c) { Q_EMIT c->statusMessage(tr("Writing %1: %2 %").arg(name).arg(percent)); });
        }, cancel.get());
        const QString size = QStringLiteral("%1 MB").arg(QFileInfo(path).size() / 1e6, 0, 'f', 1);
        const int frames = animation.frames();
        post([=](RunController* c) {
            if (!error.isEmpty()) Q_EMIT c->errorMessage(error);
            else if (!both) Q_EMIT c->statusMessage(tr("Exported %1the decode as an animation of %2 frames to %3 (%4)").arg(part).arg(frames).arg(path, size));
            else Q_EMIT c->statusMessage(tr("Exported %1runs A and B as one animation of %2 frames, A above B, to %3 (%4)").arg(part).arg(frames).arg(path, size));
            c->animation_cancel_.reset();  // last: whoever waits for the end reads the outcome above
            Q_EMIT c->exportingAnimationChanged();
        });
    });
    return true;
}

bool RunController::saveTrace(const QString& pathOrUrl) {
    const QString path = localPath(pathOrUrl), pathB = comparePath(path);
    try {
        writeTraceFile(run_.history(), std::filesystem::path(path.toStdString()));
        if (!pathB.isEmpty()) writeTraceFile(compare_.history(), std::filesystem::path(pathB.toStdString()));
        Q_EMIT statusMessage(pathB.isEmpty() ? tr("Saved trace %1").arg(path)
                                             : tr("Saved the traces of A to %1 and B to %2").arg(path, pathB));
        return true;
    } catch (const std::exception& e) {
        Q_EMIT errorMessage(tr("Could not save the trace: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
}

bool RunController::exportCsv(const QString& pathOrUrl) {
    const QString path = localPath(pathOrUrl), pathB = comparePath(path);
    QString err = writeStepCsv(*run_.stats(), path);
    if (err.isEmpty() && !pathB.isEmpty()) err = writeStepCsv(*compare_.stats(), pathB);
    if (!err.isEmpty()) {
        Q_EMIT errorMessage(err);
        return false;
    }
    Q_EMIT statusMessage(pathB.isEmpty() ? tr("Exported %1 to %2").arg(stepCount(run_.stats()->count()), path)
                                         : tr("Exported the steps of A to %1 and B to %2").arg(path, pathB));
    return true;
}
