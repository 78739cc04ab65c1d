#pragma once
// The QML singleton `App`: wires the app's parts together and holds what belongs to none of
// them, the status line and the error banner.
//  * App.model  (ModelHost)     which model is loaded, on which backend; loading and switching
//  * App.config (DecodeConfig)  prompt, settings, presets, examples, the engine's issues
//  * App.runs   (RunController) runs A and B, pause/step/stop, replay, trace files
// They talk by signals; each owns its state and saves its own settings. The engine behind them is
// a DecodeEngine: local folders decode on its own thread, ws:// models on a dlmscope server
// (RoutingDecodeEngine), or a test injects its own.
#include <memory>

#include <QObject>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

#include "decode_config.h"
#include "model_host.h"
#include "run_controller.h"

class QQmlEngine;
class QJSEngine;

class AppController : public QObject {
    Q_OBJECT
    QML_NAMED_ELEMENT(App)
    QML_SINGLETON
    Q_PROPERTY(ModelHost* model READ model CONSTANT)
    Q_PROPERTY(DecodeConfig* config READ config CONSTANT)
    Q_PROPERTY(RunController* runs READ runs CONSTANT)
    Q_PROPERTY(QString status READ status NOTIFY statusChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorChanged)
    // Run can start: a model is loaded and idle, and the engine found no error in the settings.
    Q_PROPERTY(bool canRun READ canRun NOTIFY canRunChanged)
    // With --no-restore the window starts at its default size, unless Qt's -qwindowgeometry
    // (or -geometry) set one.
    Q_PROPERTY(bool startsAtDefaultSize READ startsAtDefaultSize CONSTANT)
    Q_PROPERTY(QVariantList legend READ legend CONSTANT)

public:
    struct Options {
        bool persist = true;  // read/write QSettings (tests turn it off)
        bool restore = true;  // start from the saved settings
        bool windowGeometryGiven = false;  // -qwindowgeometry on the command line
    };
    // Deliberately not default-constructible: Qt 6.4 prefers a default constructor over create()
    // for QML singletons, and the QML `App` must be the instance main() (or a test) made.
    // engine: null for the real engine on its own thread; a test passes its own (kept alive by it).
    explicit AppController(Options options, DecodeEngine* engine = nullptr, QObject* parent = nullptr);
    ~AppController() override;

    // The QML singleton is the instance main() (or a test) created.
    static AppController* create(QQmlEngine*, QJSEngine*);
    static void setInstance(AppController* c);

    ModelHost* model() { return model_.get(); }
    DecodeConfig* config() { return config_.get(); }
    RunController* runs() { return runs_.get(); }
    QString status() const { return status_; }
    QString errorString() const { return error_; }
    bool canRun() const { return runs_->canRun(); }
    bool startsAtDefaultSize() const { return !(options_.persist && options_.restore) && !options_.windowGeometryGiven; }
    QVariantList legend() const;

    Q_INVOKABLE void clearError() { setError(ErrorSource::None, {}); }
    Q_INVOKABLE void reportError(const QString& message) { setError(ErrorSource::Other, message); }
    Q_INVOKABLE void reportStatus(const QString& message) { setStatus(message); }
    Q_INVOKABLE QString toLocalPath(const QString& pathOrUrl) const;

Q_SIGNALS:
    void statusChanged();
    void errorChanged();
    void canRunChanged();

private:
    // Who put the banner's message there: a part clears only its own (a new run clears the last
    // run's error, not why the model failed to open); Dismiss clears any.
    enum class ErrorSource { None, Model, Run, Other };
    void setStatus(const QString& s);
    void setError(ErrorSource source, const QString& e);

    Options options_;
    std::unique_ptr<DecodeEngine> own_engine_;  // the real engine, unless a test gave one
    DecodeEngine* engine_;
    std::unique_ptr<ModelHost> model_;
    std::unique_ptr<DecodeConfig> config_;
    std::unique_ptr<RunController> runs_;
    QString status_, error_;
    ErrorSource error_source_ = ErrorSource::None;
};
