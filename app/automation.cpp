#include "automation.h"

#include <cstdio>
#include <utility>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QQuickWindow>
#include <QTimer>

#include "app_controller.h"

Automation::Automation(AppController* controller, QQuickWindow* window, AppOptions options, QObject* parent)
    : QObject(parent), controller_(controller), window_(window), options_(std::move(options)) {
    connect(controller_->model(), &ModelHost::modelChanged, this, &Automation::onModelChanged);
    connect(controller_->runs(), &RunController::runCompleted, this, &Automation::onRunCompleted);
    connect(controller_->model(), &ModelHost::loadFailed, this, [this] {
        // The last session's model is gone or broken: the embedded one instead, the banner (until
        // dismissed: a run does not clear it) and stderr saying why.
        if (fallback_.isEmpty() || controller_->model()->loaded()) return;
        const QString why = controller_->errorString();
        const QString fallback = std::exchange(fallback_, QString());
        std::fprintf(stderr, "dlmscope: %s; opening %s instead\n", qPrintable(why), qPrintable(fallback));
        controller_->model()->load(fallback);
        // The folder once: most load errors name it already.
        const QString whose = why.contains(first_) || why.contains(QDir::toNativeSeparators(first_))
                                  ? tr("the last session's model")
                                  : tr("the last session's model, %1").arg(first_);
        controller_->reportError(tr("%1 (%2); the embedded model %3 was opened instead.")
                                     .arg(why, whose, QFileInfo(fallback).fileName()));
    });
    connect(controller_, &AppController::errorChanged, this, [this] {
        // A model that cannot be opened ends an automated launch (after the screenshot).
        if (!controller_->errorString().isEmpty() && fallback_.isEmpty() && !controller_->runs()->running() &&
            !controller_->model()->loaded() && !controller_->model()->loading() &&
            options_.tracePath.isEmpty() && (options_.autorun || options_.quitWhenDone))
            finish(false);
    });
}

void Automation::start(const QString& modelDir, const QString& fallback) {
    first_ = modelDir;
    fallback_ = fallback;
    if (!options_.backend.isEmpty()) controller_->model()->setBackend(options_.backend);
    if (!options_.prompt.isEmpty()) controller_->config()->setPrompt(options_.prompt);
    DecodeConfig* config = controller_->config();
    if (options_.preset >= 0) config->applyPreset(options_.preset);
    for (const auto& kv : options_.settings) config->setSetting(kv.section('=', 0, 0), kv.section('=', 1));
    // B starts from A's settings (the same prompt, canvas and seed) with its own preset.
    if (options_.compare || options_.comparePreset >= 0 || !options_.compareSettings.isEmpty())
        config->applyComparePreset(options_.comparePreset >= 0 ? options_.comparePreset : config->comparePresetIndex());
    for (const auto& kv : options_.compareSettings) config->setCompareSetting(kv.section('=', 0, 0), kv.section('=', 1));
    if (!options_.tracePath.isEmpty()) {
        // A trace replays without a model; runCompleted fires from openTrace. A trace that cannot
        // be read ends an automated launch like a model that cannot be opened.
        QTimer::singleShot(0, this, [this] {
            if (!controller_->runs()->openTrace(options_.tracePath) && (options_.autorun || options_.quitWhenDone))
                finish(false);
        });
        return;
    }
    controller_->model()->load(modelDir);
}

void Automation::onModelChanged() {
    if (started_ || !controller_->model()->loaded()) return;
    if (!options_.autorun && !options_.compare) {
        // Nothing to run: a screenshot or --quit-when-done is taken of the loaded model.
        if (!options_.screenshotPath.isEmpty() || options_.quitWhenDone) finish(true);
        return;
    }
    started_ = true;
    if (options_.compare) controller_->runs()->runCompare();
    else controller_->runs()->runDecode();
}

void Automation::onRunCompleted(bool ok) {
    // Steps are numbered from 1, as the timeline shows them; positions from 0, as the grid's.
    // One past the run is refused, not clamped: a screenshot of another step would pass for it.
    const RunView* run = controller_->runs()->run();
    if (options_.showStep > run->stepCount()) {
        std::fprintf(stderr, "dlmscope: --show-step %d: the run has %d steps\n", options_.showStep, run->stepCount());
        ok = false;
    } else if (options_.showStep >= 1) {
        controller_->runs()->setViewStep(options_.showStep - 1);
    }
    if (options_.inspect >= run->positions()) {
        std::fprintf(stderr, "dlmscope: --inspect %d: the generated positions are 0 to %d\n", options_.inspect,
                     run->positions() - 1);
        ok = false;
    } else if (options_.inspect >= 0 && window_) {
        QMetaObject::invokeMethod(window_, "openInspector", Q_ARG(QVariant, options_.inspect));
    }
    if (options_.screenshotPath.isEmpty() && options_.saveTracePath.isEmpty() && options_.saveAnimationPath.isEmpty() &&
        !options_.quitWhenDone)
        return;
    finish(ok);
}

void Automation::finish(bool ok) {
    if (finished_) return;
    finished_ = true;
    // A capture shows the run, not where the pointer happens to rest (a hover card, a tooltip): the
    // window is told the pointer left, before the frames it waits for.
    if (!options_.screenshotPath.isEmpty() && window_) {
        QEvent leave(QEvent::Leave);
        QCoreApplication::sendEvent(window_, &leave);
    }
    QTimer::singleShot(kSettleMs, this, [this, ok] {
        // Output that could not be written makes the launch fail: an automated caller must not
        // take a missing screenshot or trace for success.
        bool written = true;
        if (!options_.screenshotPath.isEmpty() && window_) {
            const QString path = options_.screenshotPath;
            const QFileInfo fi(path);
            QDir().mkpath(fi.absolutePath());
            if (!window_->grabWindow().save(path)) {
                std::fprintf(stderr, "dlmscope: could not write the screenshot %s\n", qPrintable(path));
                written = false;
            } else {
                std::fprintf(stdout, "dlmscope: screenshot %s\n", qPrintable(fi.absoluteFilePath()));
            }
        }
        if (!options_.saveTracePath.isEmpty()) {
            if (!controller_->runs()->saveTrace(options_.saveTracePath)) {
                std::fprintf(stderr, "dlmscope: could not write the trace %s\n", qPrintable(options_.saveTracePath));
                written = false;
            } else {
                std::fprintf(stdout, "dlmscope: trace %s\n", qPrintable(QFileInfo(options_.saveTracePath).absoluteFilePath()));
            }
        }
        RunController* runs = controller_->runs();
        if (!options_.saveAnimationPath.isEmpty()) QDir().mkpath(QFileInfo(options_.saveAnimationPath).absolutePath());
        if (!options_.saveAnimationPath.isEmpty() && runs->exportAnimation(options_.saveAnimationPath, options_.animationOptions)) {
            // Written off the GUI thread: the launch concludes when it is done.
            connect(runs, &RunController::exportingAnimationChanged, this, [this, ok, written, runs] {
                if (runs->exportingAnimation()) return;
                if (controller_->errorString().isEmpty())
                    std::fprintf(stdout, "dlmscope: animation %s\n",
                                 qPrintable(QFileInfo(options_.saveAnimationPath).absoluteFilePath()));
                conclude(ok && written);
            });
            return;
        }
        conclude(ok && written);
    });
}

void Automation::conclude(bool ok) {
    if (!controller_->errorString().isEmpty()) std::fprintf(stderr, "dlmscope: %s\n", qPrintable(controller_->errorString()));
    std::fflush(stdout);
    if (options_.quitWhenDone) QCoreApplication::exit(ok && controller_->errorString().isEmpty() ? 0 : 1);
}
