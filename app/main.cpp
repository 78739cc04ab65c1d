// dlmscope: the desktop app. Everything but option handling and window plumbing lives in the
// dlmscope_core library (the QML module Dlmscope).
#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickWindow>
#include <QTimer>
#include <QtQml/qqmlextensionplugin.h>
#include <cstdio>

#include "app_controller.h"
#include "app_options.h"
#include "app_style.h"
#include "automation.h"

Q_IMPORT_QML_PLUGIN(DlmscopePlugin)

int main(int argc, char* argv[]) {
    // Offscreen (CI, tools/dev.sh run without a display): the software scene graph renders
    // and grabs reliably without a GPU context.
    if (qEnvironmentVariable("QT_QPA_PLATFORM") == QLatin1String("offscreen"))
        QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
    auto name = [] {
        QCoreApplication::setOrganizationName(QStringLiteral("dlmscope"));
        QCoreApplication::setApplicationName(QStringLiteral("dlmscope"));
        QCoreApplication::setApplicationVersion(QStringLiteral(DLM_VERSION));
    };
    // Options first, under a core application that needs no display: --help, --version and a
    // mistyped option answer on a machine without one instead of aborting in the platform plugin.
    AppOptions opts;
    {
        QCoreApplication probe(argc, argv);
        name();
        opts = parseAppOptions(QCoreApplication::arguments());
    }
    if (!opts.error.isEmpty()) {
        std::fprintf(stderr, "dlmscope: %s\n", qPrintable(opts.error));
        return 2;
    }

    QApplication app(argc, argv);  // Qt Charts needs a QApplication
    useAppStyle();
    name();

    AppController controller(AppController::Options{true, !opts.fresh, opts.windowGeometryGiven});
    AppController::setInstance(&controller);

    QQmlApplicationEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/"));
    const QUrl mainUrl(QStringLiteral("qrc:/Dlmscope/Main.qml"));
    QObject::connect(&engine, &QQmlApplicationEngine::objectCreated, &app, [mainUrl](QObject* obj, const QUrl& url) {
        if (!obj && url == mainUrl) {
            std::fprintf(stderr, "dlmscope: the main window failed to load (see the QML errors above)\n");
            QCoreApplication::exit(1);
        }
    }, Qt::QueuedConnection);
    engine.load(mainUrl);
    if (engine.rootObjects().isEmpty()) return 1;
    auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());

    Automation automation(&controller, window, opts);
    const StartupModel model = startupModel(opts, controller.model()->savedModelDir(), defaultModelDir(QApplication::applicationDirPath()));
    automation.start(model.dir, model.fallback);
    return app.exec();
}
