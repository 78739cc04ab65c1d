#pragma once
// Launch-time automation from the command line: open the model or trace, apply --set and
// --prompt, start the run (--autorun / --compare), open the inspector (--inspect), grab the
// window (--screenshot), save the trace and the animation (--save-trace, --save-animation) and
// quit (--quit-when-done) with 0 on success, 1 on any error.
#include <QObject>
#include <QPointer>

#include "app_options.h"

class AppController;
class QQuickWindow;

class Automation : public QObject {
    Q_OBJECT
public:
    // How long a capture waits after a run for the scene graph to draw the last step: Qt Charts
    // renders its series a few frames after the points arrive (up to about half a second under load).
    static constexpr int kSettleMs = 600;
    Automation(AppController* controller, QQuickWindow* window, AppOptions options, QObject* parent = nullptr);
    // Opens `modelDir`; if it cannot be opened, `fallback` (when given), the error staying shown.
    void start(const QString& modelDir, const QString& fallback = {});

private:
    void onModelChanged();
    void onRunCompleted(bool ok);
    void finish(bool ok);
    void conclude(bool ok);  // says what went wrong; quits with --quit-when-done

    AppController* controller_;
    QPointer<QQuickWindow> window_;
    AppOptions options_;
    QString first_, fallback_;  // the model opened first; the one to open if it fails (once)
    bool started_ = false, finished_ = false;
};
