#pragma once
// Launch-time automation from the command line: open the model or trace, apply --set and
// --prompt, start the run (--autorun / --compare), open the inspector (--inspect), grab the
// window (--screenshot) and quit (--quit-when-done) with 0 on success, 1 on any error.
#include <QObject>
#include <QPointer>

#include "app_options.h"

class AppController;
class QQuickWindow;

class Automation : public QObject {
    Q_OBJECT
public:
    Automation(AppController* controller, QQuickWindow* window, AppOptions options, QObject* parent = nullptr);
    void start(const QString& modelDir);

private:
    void onModelChanged();
    void onRunCompleted(bool ok);
    void finish(bool ok);

    AppController* controller_;
    QPointer<QQuickWindow> window_;
    AppOptions options_;
    bool started_ = false, finished_ = false;
};
