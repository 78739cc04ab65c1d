#pragma once
// The runs on screen (`App.runs` in QML): run A and, in compare mode, run B; starting, pausing,
// stepping and stopping them; replaying a finished run; opening and saving traces. Steps are
// recorded on arrival and applied to the views by a frame timer, so a burst of fast steps costs
// one repaint. A compare pair is two runs of the same prompt and seed: B starts when A finishes
// (not when A is stopped or fails); it may run on the other model the engine holds, to put a local
// decode and a server's side by side. Answers for runs no longer shown are dropped by run id.
#include <atomic>
#include <memory>

#include <QHash>
#include <QObject>
#include <QtQml/qqmlregistration.h>
#include <QTimer>
#include <QVariantMap>

#include "decode_engine.h"
#include "run_view.h"

class DecodeConfig;
class ModelHost;

class RunController : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("RunController is owned by the App singleton (App.runs)")
    Q_PROPERTY(RunView* run READ run CONSTANT)
    Q_PROPERTY(RunView* compareRun READ compareRun CONSTANT)
    Q_PROPERTY(bool running READ running NOTIFY runningChanged)
    Q_PROPERTY(bool paused READ paused NOTIFY runningChanged)
    Q_PROPERTY(bool compareMode READ compareMode WRITE setCompareMode NOTIFY compareModeChanged)
    Q_PROPERTY(QVariantMap compareSummary READ compareSummary NOTIFY compareSummaryChanged)
    // Compare mode's run B on the other model (ModelHost::otherModel): local against remote.
    Q_PROPERTY(bool compareOnOtherModel READ compareOnOtherModel WRITE setCompareOnOtherModel NOTIFY compareModeChanged)
    Q_PROPERTY(bool replaying READ replaying NOTIFY replayingChanged)
    Q_PROPERTY(double replaySpeed READ replaySpeed WRITE setReplaySpeed NOTIFY replaySpeedChanged)
    Q_PROPERTY(int framesApplied READ framesApplied NOTIFY framesAppliedChanged)
    // SureLock's ε for the heatmaps' threshold line: the setting, else the shown run's; its default
    // when not given, 0 (no line) when the strategy does not lock.
    Q_PROPERTY(double epsilon READ epsilon NOTIFY epsilonChanged)
    // The ε run B decoded with (0 where its strategy does not lock): its heatmap's band.
    Q_PROPERTY(double compareEpsilon READ compareEpsilon NOTIFY epsilonChanged)
    Q_PROPERTY(bool exportingAnimation READ exportingAnimation NOTIFY exportingAnimationChanged)

public:
    // persist: the replay speed is written to QSettings; restore: read from them at start.
    RunController(DecodeEngine* engine, ModelHost* model, DecodeConfig* config, bool persist, bool restore,
                  QObject* parent = nullptr);
    ~RunController() override;  // stops an animation being written

    RunView* run() { return &run_; }
    RunView* compareRun() { return &compare_; }
    bool running() const { return running_; }
    bool paused() const { return paused_; }
    bool compareMode() const { return compare_mode_; }
    void setCompareMode(bool c);
    QVariantMap compareSummary() const { return compare_summary_; }
    bool compareOnOtherModel() const { return compare_on_other_; }
    void setCompareOnOtherModel(bool on);
    bool replaying() const { return replay_timer_.isActive(); }
    double replaySpeed() const { return replay_speed_; }
    void setReplaySpeed(double s);
    int framesApplied() const { return frames_applied_; }
    double epsilon() const;
    double compareEpsilon() const;
    // A model is loaded and idle, and the engine found no error in the settings.
    bool canRun() const;

    Q_INVOKABLE void runDecode();   // Run: a fresh run with the current prompt and settings
    Q_INVOKABLE void rerun();       // Re-run: the same prompt and seed, in the current mode
    Q_INVOKABLE void runCompare();  // A (settings) then B (compare settings), same prompt and seed
    Q_INVOKABLE void pause();
    Q_INVOKABLE void resume();      // a paused run, else a replay
    Q_INVOKABLE void stepOnce();    // one decode step while paused; else one replay step
    Q_INVOKABLE void stop();        // the run (and a pending B), else the replay
    // The toolbar's Compare switch: on starts the A/B pair when a run can start (else only shows
    // the two panes, B waiting for Run); off returns to the single view.
    Q_INVOKABLE void toggleCompare(bool on);
    Q_INVOKABLE void startReplay();
    Q_INVOKABLE void stopReplay();
    Q_INVOKABLE void setViewStep(int step);  // both runs in lock-step
    Q_INVOKABLE bool openTrace(const QString& pathOrUrl);
    // In compare mode run B goes beside A's file, as <name>-B.<suffix> (comparePath; "" outside
    // compare mode): traces, CSV and the grid's PNG. Opening a trace with such a file beside it
    // opens the pair in compare mode.
    static QString pathOfB(const QString& path);
    Q_INVOKABLE QString comparePath(const QString& path) const;
    Q_INVOKABLE bool saveTrace(const QString& pathOrUrl);
    Q_INVOKABLE bool exportCsv(const QString& pathOrUrl);
    // The decode as an animated PNG (in compare mode A above B, in lock-step); written off the GUI
    // thread, the status line telling how far it is and where it went. `options` (each optional):
    // "from", "to": the steps shown, 0 being the masked canvas (default: the whole run);
    // "stepsPerSecond" (default: the replay speed); "scale": 1 or 2 pixels a point (default: 2 up
    // to 384 positions, else 1).
    Q_INVOKABLE bool exportAnimation(const QString& pathOrUrl, const QVariantMap& options = {});
    // What exportAnimation would write with `options`, for the export dialog: "steps" (the longest
    // run's), "frames", "seconds" (played once), "width", "height" (pixels), "scale" (pixels a
    // point, as chosen or as "automatic" chooses), "problem" (empty when it can be written).
    Q_INVOKABLE QVariantMap animationPlan(const QVariantMap& options = {}) const;
    bool exportingAnimation() const { return bool(animation_cancel_); }

    void applyFrame();  // the frame tick (public for tests)

Q_SIGNALS:
    void runningChanged();
    void compareModeChanged();
    void compareSummaryChanged();
    void replayingChanged();
    void replaySpeedChanged();
    void framesAppliedChanged();
    void epsilonChanged();
    void exportingAnimationChanged();
    // A run (or compare pair, or an opened trace) is complete and shown: automation hooks here.
    void runCompleted(bool ok);
    void statusMessage(const QString& message);
    void errorMessage(const QString& message);  // empty: the last error no longer applies

private:
    void startRunInto(RunView* view, const QVariantMap& settings, bool onOtherModel = false);
    void onRunStarted(quint64 runId, const TraceHeaderPtr& header, const QStringList& warnings);
    void onStepReady(quint64 runId, const StepTracePtr& step);
    void onRunFinished(quint64 runId, const TraceSummaryPtr& summary, bool cancelled);
    void onRunFailed(quint64 runId, const QString& error);
    void setRunning(bool running, bool paused);
    void updateCompareSummary();
    void replayTick();
    DecodeAnimation animationOf(const QVariantMap& options) const;

    DecodeEngine* engine_;
    ModelHost* model_;
    DecodeConfig* config_;
    bool persist_;
    RunView run_, compare_;
    quint64 run_counter_ = 0;
    QHash<quint64, RunView*> run_targets_;
    QHash<quint64, QStringList> run_warnings_;  // what the session warned of at its start
    quint64 compare_b_pending_ = 0;  // run A of a compare pair; B starts when it finishes
    bool running_ = false, paused_ = false, compare_mode_ = false, compare_on_other_ = false;
    QVariantMap compare_summary_;
    QTimer frame_timer_, replay_timer_;
    double replay_speed_ = 20;
    int frames_applied_ = 0;
    std::shared_ptr<std::atomic<bool>> animation_cancel_;  // set while an animation is written
};
