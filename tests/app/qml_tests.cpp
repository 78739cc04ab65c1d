// Qt Quick Test harness: one CTest per tst_*.qml. The real AppController is the `App`
// singleton; its runs are filled with a synthetic run so the components are tested in isolation
// from the engine (no model is loaded).
#include <QApplication>
#include <QQmlEngine>
#include <QQuickWindow>
#include <QtQml/qqmlextensionplugin.h>
#include <QtQuickTest>

#include "app_controller.h"
#include "synthetic_run.h"

Q_IMPORT_QML_PLUGIN(DlmscopePlugin)

class Setup : public QObject {
    Q_OBJECT
public Q_SLOTS:
    // Called before the test file is loaded (applicationAvailable() only exists from Qt 6.5).
    void qmlEngineAvailable(QQmlEngine* engine) {
        engine->addImportPath(QStringLiteral("qrc:/"));
        if (controller_) return;
        controller_ = new AppController(AppController::Options{false, false});
        AppController::setInstance(controller_);
        feed(controller_->runs()->run(), makeSyntheticRun(96, 24, true));
        feed(controller_->runs()->compareRun(), makeSyntheticRun(96, 24, false));
    }
    void cleanupTestCase() {
        delete controller_;
        controller_ = nullptr;
    }

private:
    static void feed(RunView* v, const SyntheticRun& r) {
        v->begin(r.header);
        for (const auto& s : r.steps) v->record(s);
        v->flush();
        v->finish(r.summary);
    }
    AppController* controller_ = nullptr;
};

int main(int argc, char** argv) {
    QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("dlmscope-tests"));  // Qt.labs.settings needs one
    QApplication::setApplicationName(QStringLiteral("dlmscope-tests"));  // Qt Charts needs a QApplication
    Setup setup;
    return quick_test_main_with_setup(argc, argv, "app_qml", nullptr, &setup);
}

#include "qml_tests.moc"
