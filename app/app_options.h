#pragma once
// Command-line options of the app (automation: tools/dev.sh run, tests, screenshots).
#include <QString>
#include <QStringList>
#include <QVariantMap>

class QCoreApplication;

struct AppOptions {
    QString modelDir;        // --model DIR (default: the last local model, else the embedded one)
    QString prompt;          // --prompt TEXT (default: the saved / built-in prompt)
    QString tracePath;       // --trace FILE: open a recorded trace (no model needed)
    QString screenshotPath;  // --screenshot FILE: grab the window when the run completes
    QString saveTracePath;   // --save-trace FILE: save the run's trace when it completes
    QString saveAnimationPath;  // --save-animation FILE: write the decode as an animated PNG then
    // --animation-steps FROM-TO, --animation-speed N, --animation-scale 1|2: its choices, as
    // RunController::exportAnimation takes them (none given: the whole run at the replay speed)
    QVariantMap animationOptions;
    int preset = -1;         // --preset NAME: index into dlm::strategy_presets(), applied before --set
    int comparePreset = -1;  // --compare-preset NAME: run B's preset, before --compare-set
    QStringList settings;    // --set KEY=VALUE (repeatable): decode settings for this launch
    QStringList compareSettings;  // --compare-set KEY=VALUE: run B of compare mode
    QString backend;         // --backend auto|cpu|cuda (empty: the saved choice, else auto)
    bool autorun = false;       // --autorun: start decoding once the model is loaded
    bool compare = false;       // --compare: run A then B and show compare mode
    bool quitWhenDone = false;  // --quit-when-done
    int inspect = -1;           // --inspect POS: open the inspector on a position
    int showStep = -1;          // --show-step N: scrub to step N (from 1) when the run completes
    bool fresh = false;         // --no-restore: ignore saved settings
    bool windowGeometryGiven = false;  // Qt's -qwindowgeometry / -geometry: the window's size is set
    QString error;              // set when the arguments are invalid
};

// Qt's own window-system options (-platform, -qwindowgeometry, -display, ...) are left to the
// QApplication; --help-all lists them after the app's own.
AppOptions parseAppOptions(const QStringList& arguments);
// `arguments` without the options QGuiApplication / QApplication consume (and their values).
QStringList withoutQtWindowSystemOptions(const QStringList& arguments);
// The embedded default model (engine/model/embedded_models.h) for a program in applicationDir.
QString defaultModelDir(const QString& applicationDir);

// The model a launch opens, and the one to open instead if that one fails (empty: none): --model
// when given; else the local model of the last session (`saved`, empty with --no-restore) while
// its folder still holds a checkpoint, falling back to the embedded one; else the embedded one.
struct StartupModel {
    QString dir, fallback;
};
StartupModel startupModel(const AppOptions& options, const QString& saved, const QString& embedded);
