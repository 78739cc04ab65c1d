#include "app_controller.h"

#include <QJSEngine>

#include "cell_style.h"
#include "local_path.h"
#include "routing_decode_engine.h"

namespace {
AppController* g_instance = nullptr;
}  // namespace

AppController* AppController::create(QQmlEngine*, QJSEngine*) {
    // The instance belongs to main() / the test, never to the QML engine.
    if (g_instance) QJSEngine::setObjectOwnership(g_instance, QJSEngine::CppOwnership);
    return g_instance;
}

void AppController::setInstance(AppController* c) { g_instance = c; }

AppController::AppController(Options options, DecodeEngine* engine, QObject* parent)
    : QObject(parent),
      options_(options),
      own_engine_(engine ? nullptr : new RoutingDecodeEngine),
      engine_(engine ? engine : own_engine_.get()),
      model_(new ModelHost(engine_, options.persist, options.restore)),
      config_(new DecodeConfig(engine_, options.persist, options.restore)),
      runs_(new RunController(engine_, model_.get(), config_.get(), options.persist, options.restore)) {
    for (QObject* part : {static_cast<QObject*>(model_.get()), static_cast<QObject*>(config_.get()),
                          static_cast<QObject*>(runs_.get())})
        QJSEngine::setObjectOwnership(part, QJSEngine::CppOwnership);
    ModelHost* m = model_.get();
    DecodeConfig* c = config_.get();
    RunController* r = runs_.get();
    connect(m, &ModelHost::statusMessage, this, &AppController::setStatus);
    connect(m, &ModelHost::errorMessage, this, [this](const QString& e) { setError(ErrorSource::Model, e); });
    connect(r, &RunController::statusMessage, this, &AppController::setStatus);
    connect(r, &RunController::errorMessage, this, [this](const QString& e) { setError(ErrorSource::Run, e); });
    // Runs end before their model is replaced or moved; the runs shown stay.
    connect(m, &ModelHost::aboutToChange, r, [r] {
        if (r->running()) r->stop();
        r->stopReplay();
    });
    connect(m, &ModelHost::modelReady, c, &DecodeConfig::adoptModel);
    connect(m, &ModelHost::modelChanged, c, [m, c] {
        if (!m->loaded()) c->setModelReady(false);
    });
    for (auto signal : {&ModelHost::modelChanged, &ModelHost::loadingChanged})
        connect(m, signal, this, &AppController::canRunChanged);
    connect(c, &DecodeConfig::issuesChanged, this, &AppController::canRunChanged);
}

AppController::~AppController() {
    if (g_instance == this) g_instance = nullptr;
}

QVariantList AppController::legend() const {
    QVariantList out;
    for (auto s : cell_style::legendStates())
        out.push_back(QVariantMap{{"kind", "state"}, {"name", cell_style::stateLabel(s)}, {"color", cell_style::stateColor(s)}, {"glyph", QString()}});
    for (auto e : cell_style::legendEvents())
        out.push_back(QVariantMap{{"kind", "event"}, {"name", cell_style::eventLabel(e)}, {"color", cell_style::eventColor(e)}, {"glyph", cell_style::eventGlyph(e)}});
    return out;
}

QString AppController::toLocalPath(const QString& pathOrUrl) const { return localPath(pathOrUrl); }

void AppController::setStatus(const QString& s) {
    if (s == status_) return;
    status_ = s;
    Q_EMIT statusChanged();
}

void AppController::setError(ErrorSource source, const QString& e) {
    if (e.isEmpty() && source != ErrorSource::None && source != error_source_) return;  // not its message
    error_source_ = e.isEmpty() ? ErrorSource::None : source;
    if (e == error_) return;
    error_ = e;
    Q_EMIT errorChanged();
}
