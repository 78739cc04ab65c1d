#pragma once
// One run as the UI shows it: its recorded history, the canvas at the shown step, the per-step
// statistics and the step being viewed (live: the newest; scrubbing: any past one). Steps are
// recorded the moment they arrive and applied to the models at screen rate by flush().
#include <functional>

#include <QObject>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

#include "canvas_model.h"
#include "decode_animation.h"
#include "run_history.h"
#include "step_stats_model.h"

class RunView : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("RunView is owned by the AppController")
    Q_PROPERTY(CanvasModel* canvas READ canvas CONSTANT)
    Q_PROPERTY(StepStatsModel* stats READ stats CONSTANT)
    Q_PROPERTY(int stepCount READ stepCount NOTIFY stepCountChanged)
    // The header's steps, or the steps recorded once a strategy runs past them (COVER's and the
    // other revision strategies' step limits lie beyond the steps setting): the charts' x range.
    Q_PROPERTY(int plannedSteps READ plannedSteps NOTIFY plannedStepsChanged)
    Q_PROPERTY(int viewStep READ viewStep WRITE setViewStep NOTIFY viewStepChanged)
    Q_PROPERTY(bool following READ following WRITE setFollowing NOTIFY followingChanged)
    Q_PROPERTY(int positions READ positions NOTIFY runReset)
    Q_PROPERTY(int blockLength READ blockLength NOTIFY runReset)
    Q_PROPERTY(bool hasRun READ hasRun NOTIFY runReset)
    Q_PROPERTY(bool complete READ complete NOTIFY summaryChanged)
    Q_PROPERTY(QString title READ title NOTIFY runReset)  // "<modelName> · <strategyLabel>"
    Q_PROPERTY(QString modelName READ modelName NOTIFY runReset)  // "trace" for a trace without one
    Q_PROPERTY(QString strategy READ strategy NOTIFY runReset)
    // The strategy with its parameters that differ from the defaults ("surelock (unlock=on)"):
    // what the titles show, so that two variants of one strategy read apart.
    Q_PROPERTY(QString strategyLabel READ strategyLabel NOTIFY runReset)
    Q_PROPERTY(QString promptText READ promptText NOTIFY runReset)
    Q_PROPERTY(QVariantList promptPieces READ promptPieces NOTIFY runReset)
    Q_PROPERTY(QString settingsText READ settingsText NOTIFY runReset)
    Q_PROPERTY(QString answerText READ answerText NOTIFY viewStepChanged)
    Q_PROPERTY(QVariantMap totals READ totals NOTIFY viewStepChanged)
    // The known answer of the run's prompt (a worked example), the answer the run gave (text after
    // the last "####") and the verdict once it is complete: "" (no known answer / not complete),
    // "correct" or "wrong".
    Q_PROPERTY(QString expectedAnswer READ expectedAnswer NOTIFY runReset)
    Q_PROPERTY(QString predictedAnswer READ predictedAnswer NOTIFY summaryChanged)
    Q_PROPERTY(QString verdict READ verdict NOTIFY summaryChanged)
    // The verdict in words, as the grid pane's badge and the animation's caption say it.
    Q_PROPERTY(QString verdictText READ verdictText NOTIFY summaryChanged)
    // Positions still masked when the run ended on its own: the strategy's step limit came first
    // (a revision strategy that keeps remasking, say), so the answer is unfinished. 0 while the run
    // goes on, when every position was decoded, and when the user stopped it.
    Q_PROPERTY(int unfinishedPositions READ unfinishedPositions NOTIFY summaryChanged)
    // Where the run is decoded: "tiny-mdlm (local)", "tiny-mdlm on ws://host:port"; empty for a trace.
    Q_PROPERTY(QString source READ source WRITE setSource NOTIFY sourceChanged)

public:
    explicit RunView(QObject* parent = nullptr);

    CanvasModel* canvas() { return &canvas_; }
    StepStatsModel* stats() { return &stats_; }
    const RunHistory& history() const { return history_; }

    // A new run (live or opened from a trace).
    void begin(TraceHeaderPtr header);
    void record(StepTracePtr step);  // cheap: stored now, shown at the next flush()
    void finish(TraceSummaryPtr summary, bool cancelled = false);
    void clear();
    QString source() const { return source_; }
    void setSource(const QString& source) {
        if (source == source_) return;
        source_ = source;
        Q_EMIT sourceChanged();
    }
    // Applies what arrived since the last flush: new stats rows, the newest step if following.
    void flush();

    int stepCount() const { return history_.stepCount(); }
    int plannedSteps() const { return plannedStepsAt(flushed_); }
    int viewStep() const { return view_step_; }
    void setViewStep(int step);
    bool following() const { return following_; }
    void setFollowing(bool f);
    int positions() const { return history_.positionCount(); }
    int blockLength() const;
    bool hasRun() const { return bool(history_.header()); }
    bool complete() const { return bool(history_.summary()); }
    QString title() const;
    QString modelName() const;
    QString strategy() const;
    QString strategyLabel() const;
    QString promptText() const;
    QVariantList promptPieces() const;
    QString settingsText() const;
    QString answerText() const;
    QVariantMap totals() const;
    QString expectedAnswer() const { return expected_answer_; }
    QString predictedAnswer() const;
    QString verdict() const;
    QString verdictText() const;
    int unfinishedPositions() const;
    // Maps a run's prompt to its known answer ("" when none); consulted when a run begins.
    void setAnswerLookup(std::function<QString(const QString& prompt)> lookup) { answer_lookup_ = std::move(lookup); }

    // Everything the inspector shows about a position up to the viewed step.
    Q_INVOKABLE QVariantMap positionDetails(int pos) const;
    // The run's steps so far as a panel of an animation: its title, and the verdict the grid pane shows.
    DecodePanel animationPanel() const;
    // The text of the generated region at a step (masks as '_'; up to the first committed end
    // token, as the summary's text), for the answer panel, diffs and exports.
    QString textAt(int step) const;

Q_SIGNALS:
    void runReset();
    void stepCountChanged();
    void plannedStepsChanged();
    void viewStepChanged();
    void followingChanged();
    void summaryChanged();
    void stepsRecorded();  // new steps stored (before the next flush)
    void sourceChanged();

private:
    QString guidedCommitText(int pos, int reveal_step) const;
    int plannedStepsAt(int shown_steps) const;

    RunHistory history_;
    CanvasModel canvas_;
    StepStatsModel stats_;
    QString source_;
    int view_step_ = -1;
    bool following_ = true;
    int flushed_ = 0;
    std::function<QString(const QString&)> answer_lookup_;
    QString expected_answer_;
};
