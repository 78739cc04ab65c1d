// The user's path through the app in a real X window (Xvfb), by mouse and keyboard: run, every
// preset, scrub, inspect, compare from the toolbar, save and reopen a trace, each export, the
// model picker on a good and a bad folder, and a 1024 x 700 window. Clicks go through Qt's event
// delivery to the items a user would click; the file dialogs are the app's own Qt Quick dialogs,
// given a path and accepted. Skipped (with a message) without an X display or the embedded model.
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtQml/qqmlextensionplugin.h>
#include <QtTest>

#include "app_controller.h"
#include "app_options.h"
#include "app_style.h"
#include "automation.h"
#include "denoise_grid_item.h"

Q_IMPORT_QML_PLUGIN(DlmscopePlugin)

namespace {

QString modelDir() { return QStringLiteral(DLM_SOURCE_DIR "/resources/models/tiny-mdlm"); }
QString outDir() {
    const QString d = qEnvironmentVariable("DLM_TEST_OUT", QDir::tempPath()) + "/walkthrough";
    QDir().mkpath(d);
    return d;
}

}  // namespace

class Walkthrough : public QObject {
    Q_OBJECT
    AppController* c_ = nullptr;
    QQmlApplicationEngine* engine_ = nullptr;
    QQuickWindow* win_ = nullptr;

    template <class T = QQuickItem> T* find(const char* name) {
        auto* o = win_->findChild<T*>(QString::fromLatin1(name));
        if (!o) qWarning("no item named %s", name);
        return o;
    }
    QPoint centreOf(QQuickItem* item) { return item->mapToScene(QPointF(item->width() / 2, item->height() / 2)).toPoint(); }
    void click(QQuickItem* item) {
        QVERIFY(item);
        QVERIFY2(item->isVisible() && item->isEnabled(), qPrintable(item->objectName() + " is not clickable"));
        QTest::mouseClick(win_, Qt::LeftButton, {}, centreOf(item));
    }
    void clickNamed(const char* name) { click(find(name)); }
    bool waitRun(int ms = 120000) {
        return QTest::qWaitFor([&] { return !c_->runs()->running(); }, ms) && c_->errorString().isEmpty();
    }
    // A file dialog of the app, opened by the user's click: in its folder (set as the breadcrumb
    // bar would), the file picked, or for saving its name typed into the dialog's name field; then
    // accepted.
    void acceptDialog(const char* name, const char* property, const QString& path) {
        QObject* dialog = win_->findChild<QObject*>(QString::fromLatin1(name));
        QVERIFY2(dialog, name);
        QTRY_VERIFY2_WITH_TIMEOUT(dialog->property("visible").toBool(), name, 5000);
        const QFileInfo fi(path);
        QVERIFY(dialog->setProperty("currentFolder", QUrl::fromLocalFile(fi.absolutePath())));
        // The name field of the dialog on screen (each dialog has its own, shown only when saving).
        QQuickItem* field = nullptr;
        for (auto* f : win_->findChildren<QQuickItem*>(QStringLiteral("fileNameTextField")))
            if (f->isVisible()) field = f;
        if (field) {  // a save dialog: type the name, as a user does
            QTest::qWait(300);
            field->forceActiveFocus();
            field->setProperty("text", QString());
            for (const QChar ch : fi.fileName()) QTest::keyClick(win_, ch.toLatin1());
            QCOMPARE(field->property("text").toString(), fi.fileName());
            QTest::keyClick(win_, Qt::Key_Return);
        } else {  // open a file or a folder: pick it
            QVERIFY(dialog->setProperty(property, QUrl::fromLocalFile(path)));
        }
        QTest::qWait(100);
        if (dialog->property("visible").toBool()) QVERIFY(QMetaObject::invokeMethod(dialog, "accept"));
        QTRY_VERIFY2_WITH_TIMEOUT(!dialog->property("visible").toBool(), name, 5000);
    }

private Q_SLOTS:
    void initTestCase() {
        if (QGuiApplication::platformName() != QLatin1String("xcb"))
            QSKIP(qPrintable("needs an X display (platform is " + QGuiApplication::platformName() +
                             "); ctest runs it under xvfb-run"));
        QVERIFY2(QFileInfo::exists(modelDir() + "/config.json"),
                 qPrintable("the embedded default model is missing: " + modelDir()));
        QSettings().clear();
        c_ = new AppController(AppController::Options{false, false});
        AppController::setInstance(c_);
        engine_ = new QQmlApplicationEngine;
        engine_->addImportPath(QStringLiteral("qrc:/"));
        engine_->load(QUrl(QStringLiteral("qrc:/Dlmscope/Main.qml")));
        QVERIFY(!engine_->rootObjects().isEmpty());
        win_ = qobject_cast<QQuickWindow*>(engine_->rootObjects().first());
        QVERIFY(win_);
        QVERIFY(QTest::qWaitForWindowExposed(win_));
        win_->requestActivate();  // no window manager under Xvfb: shortcuts need an active window
        QVERIFY(QTest::qWaitForWindowActive(win_));
        c_->model()->load(modelDir());  // what main() does at start-up
        QTRY_VERIFY_WITH_TIMEOUT(c_->model()->loaded() && c_->canRun(), 60000);
    }
    void cleanupTestCase() {
        delete engine_;
        AppController::setInstance(nullptr);
        delete c_;
    }

    void runFromTheToolbar() {
        c_->config()->useExample(1);  // a short canvas keeps the walk quick
        QTRY_VERIFY_WITH_TIMEOUT(c_->canRun() && find("runButton")->isEnabled(), 10000);
        // The toolbar keeps its height while a run starts and ends (the busy indicator keeps its
        // place): a header that changes height relayouts the whole window at every run, a jump
        // the user sees, and a relayout in the middle of a polish that Qt 6.4's layouts can crash in.
        auto* toolBar = find("toolBar");
        QVERIFY(toolBar);
        QSignalSpy toolBarHeight(toolBar, &QQuickItem::heightChanged);
        clickNamed("runButton");
        QTRY_VERIFY_WITH_TIMEOUT(c_->runs()->running() || c_->runs()->run()->complete(), 5000);
        QVERIFY2(waitRun(), qPrintable(c_->errorString()));
        QVERIFY(c_->runs()->run()->complete());
        QCOMPARE(toolBarHeight.count(), 0);
        QVERIFY(find("verdictBadge")->isVisible());
        QTest::qWait(Automation::kSettleMs);  // the charts draw their last steps a few frames later
        win_->grabWindow().save(outDir() + "/1-run.png");
    }

    // Each preset, chosen with the keyboard on the preset box, decodes without an error.
    void everyPresetRuns() {
        auto* box = find("presetBox");
        QVERIFY(box);
        const int presets = c_->config()->presets().size();
        for (int i = 0; i < presets; ++i) {
            box->forceActiveFocus();
            if (i == 0) {
                QTest::keyClick(win_, Qt::Key_Home);
            } else {
                QTest::keyClick(win_, Qt::Key_Down);
            }
            QTRY_COMPARE_WITH_TIMEOUT(c_->config()->presetIndex(), i, 5000);
            const QString name = c_->config()->presets()[i].toMap().value("name").toString();
            QTRY_VERIFY2_WITH_TIMEOUT(c_->canRun() && find("runButton")->isEnabled(), qPrintable(name), 10000);
            clickNamed("runButton");
            QVERIFY2(waitRun(), qPrintable(name + ": " + c_->errorString()));
            QVERIFY2(c_->runs()->run()->complete() && c_->runs()->run()->stepCount() > 0, qPrintable(name));
            QCOMPARE(c_->runs()->run()->strategy(), c_->config()->settings().value("strategy").toString());
        }
        box->forceActiveFocus();
        QTest::keyClick(win_, Qt::Key_Home);
        QTRY_COMPARE(c_->config()->presetIndex(), 0);
        clickNamed("runButton");
        QVERIFY(waitRun());
    }

    // Dragging the scrubber shows an earlier step; a click on a cell opens the inspector and Esc
    // closes it.
    void scrubAndInspect() {
        auto* scrubber = find("scrubber");
        QVERIFY(scrubber);
        const int last = c_->runs()->run()->stepCount() - 1;
        QCOMPARE(c_->runs()->run()->viewStep(), last);
        const QPointF a = scrubber->mapToScene(QPointF(scrubber->width() - 4, scrubber->height() / 2));
        const QPointF b = scrubber->mapToScene(QPointF(scrubber->width() * 0.3, scrubber->height() / 2));
        QTest::mousePress(win_, Qt::LeftButton, {}, a.toPoint());
        QTest::mouseMove(win_, ((a + b) / 2).toPoint());
        QTest::mouseMove(win_, b.toPoint());
        QTest::mouseRelease(win_, Qt::LeftButton, {}, b.toPoint());
        QTRY_VERIFY(c_->runs()->run()->viewStep() < last);
        QVERIFY(c_->runs()->run()->viewStep() > 0);

        auto* grid = find<DenoiseGridItem>("denoiseGrid");
        QVERIFY(grid);
        const QRectF cell = grid->cellRect(3);
        QTest::mouseClick(win_, Qt::LeftButton, {}, grid->mapToScene(cell.center()).toPoint());
        auto* inspector = find("inspector");
        QTRY_VERIFY(inspector->isVisible());
        QCOMPARE(inspector->property("position").toInt(), 3);
        // The click fills the position's KL curve up to the shown step; the charts draw it on a
        // later frame, so the screenshot waits for one.
        auto* kl = inspector->property("klSeries").value<QObject*>();
        QVERIFY(kl);
        QTRY_VERIFY(kl->property("count").toInt() > 0);
        QVERIFY(kl->property("count").toInt() <= c_->runs()->run()->viewStep() + 1);
        QTest::qWait(300);
        win_->grabWindow().save(outDir() + "/2-inspector.png");
        QTest::keyClick(win_, Qt::Key_Escape);
        QTRY_VERIFY(!inspector->isVisible());
    }

    // The keys drive the run once the grid is clicked, even straight after typing in the prompt:
    // the click takes the keyboard from the prompt's text (Space and the arrows typed into it).
    void keysDriveTheRunAfterClickingTheGrid() {
        auto* prompt = find("promptEdit");
        QVERIFY(prompt);
        click(prompt);
        QTRY_VERIFY(prompt->hasActiveFocus());
        const QString text = c_->config()->prompt();
        auto* grid = find<DenoiseGridItem>("denoiseGrid");
        QTest::mouseClick(win_, Qt::LeftButton, {}, grid->mapToScene(grid->cellRect(5).center()).toPoint());
        QTRY_VERIFY(!prompt->hasActiveFocus());
        const int step = c_->runs()->run()->viewStep();
        QVERIFY(step > 0);
        QTest::keyClick(win_, Qt::Key_Left);
        QTRY_COMPARE(c_->runs()->run()->viewStep(), step - 1);
        // Space replays; a short run's replay may end before it is looked at, so the start is
        // caught as it happens, and Space stops one still going.
        QSignalSpy replay(c_->runs(), &RunController::replayingChanged);
        QTest::keyClick(win_, Qt::Key_Space);
        QTRY_VERIFY(replay.count() >= 1);
        if (c_->runs()->replaying()) {
            QTest::keyClick(win_, Qt::Key_Space);
            QTRY_VERIFY(!c_->runs()->replaying());
        }
        QCOMPARE(c_->config()->prompt(), text);
        QTest::keyClick(win_, Qt::Key_Escape);
        QTRY_VERIFY(!find("inspector")->isVisible());
    }

    void compareFromTheToolbar() {
        clickNamed("compareButton");
        QTRY_VERIFY_WITH_TIMEOUT(c_->runs()->compareMode(), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(c_->runs()->run()->complete() && c_->runs()->compareRun()->complete() && !c_->runs()->running(), 120000);
        QVERIFY2(c_->errorString().isEmpty(), qPrintable(c_->errorString()));
        QVERIFY(!c_->runs()->compareSummary().isEmpty());
        // The pointer leaves the Compare button, whose tooltip would cover run A's heading.
        QTest::mouseMove(win_, QPoint(win_->width() / 2, win_->height() - 4));
        QTest::qWait(Automation::kSettleMs);
        win_->grabWindow().save(outDir() + "/3-compare.png");
        // The grid's and the heatmap's exports keep both sides: B beside A.
        for (const char* exported : {"Grid", "Heatmap"}) {
            const QString stem = outDir() + "/compare-" + QString::fromLatin1(exported).toLower();
            const QString a = stem + ".png", b = stem + "-B.png";
            QFile::remove(a);
            QFile::remove(b);
            clickNamed("exportButton");
            auto* item = find((QByteArray("export") + exported + "Item").constData());
            QTRY_VERIFY2_WITH_TIMEOUT(item && item->isVisible(), exported, 5000);
            QTest::qWait(300);  // the menu's open transition
            click(item);
            acceptDialog("exportDialog", "selectedFile", a);
            QTRY_VERIFY2(QFileInfo(a).size() > 0 && QFileInfo(b).size() > 0, exported);
            QVERIFY2(QImage(a) != QImage(b), exported);
            QTRY_VERIFY2(c_->status().contains(QFileInfo(b).fileName()), qPrintable(c_->status()));
        }
        // The animation puts both in one picture, A above B (written off the GUI thread); here the
        // first six steps, chosen in its dialog before the file.
        const QString animation = outDir() + "/compare-decode.png";
        QFile::remove(animation);
        clickNamed("exportButton");
        auto* item = find("exportAnimationItem");
        QTRY_VERIFY_WITH_TIMEOUT(item && item->isVisible(), 5000);
        QTest::qWait(300);
        click(item);
        auto* to = find("animationTo");
        QTRY_VERIFY_WITH_TIMEOUT(to && to->isVisible(), 5000);
        QTest::qWait(300);  // the dialog's open transition
        QVERIFY(to->setProperty("value", 6));
        win_->grabWindow().save(outDir() + "/3-animation-dialog.png");
        clickNamed("animationChooseFile");
        acceptDialog("exportDialog", "selectedFile", animation);
        QTRY_VERIFY_WITH_TIMEOUT(c_->status().contains("Exported steps 0–6 of runs A and B as one animation of 7 frames, A above B, to " + animation), 60000);
        QVERIFY(!QFileInfo::exists(RunController::pathOfB(animation)));
        clickNamed("compareButton");
        QTRY_VERIFY(!c_->runs()->compareMode());
    }

    void saveAndReopenATrace() {
        const QString path = outDir() + "/walk.ndjson";
        QFile::remove(path);
        const int steps = c_->runs()->run()->stepCount();
        clickNamed("saveTraceButton");
        acceptDialog("saveTraceDialog", "selectedFile", path);
        QTRY_VERIFY2(QFileInfo(path).size() > 0, qPrintable(c_->status() + " | " + c_->errorString() + " | " +
            win_->findChild<QObject*>("saveTraceDialog")->property("selectedFile").toString()));
        clickNamed("openTraceButton");
        acceptDialog("openTraceDialog", "selectedFile", path);
        QTRY_VERIFY(c_->status().contains("walk.ndjson"));
        QCOMPARE(c_->runs()->run()->stepCount(), steps);
        QVERIFY(c_->runs()->run()->complete());
    }

    // --trace FILE --screenshot OUT with the pointer resting on a grid cell (Xvfb leaves it at the
    // screen's centre, often over the grid): the capture shows the run, not the cell's hover card.
    void aScreenshotLeavesOutThePointersHoverCard() {
        const QString trace = outDir() + "/walk.ndjson";
        QVERIFY(QFileInfo::exists(trace));
        auto* grid = find<DenoiseGridItem>("denoiseGrid");
        QVERIFY(grid);
        QTest::mouseMove(win_, centreOf(grid));
        QTRY_VERIFY(grid->hoveredPosition() >= 0);
        auto* card = find("hoverCard");
        QVERIFY(card);
        QTRY_VERIFY(card->isVisible());
        AppOptions o;
        o.tracePath = trace;
        o.screenshotPath = outDir() + "/hover-free.png";
        QFile::remove(o.screenshotPath);
        Automation automation(c_, win_, o);
        automation.start(modelDir());
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(o.screenshotPath).size() > 0, 10000);
        QCOMPARE(grid->hoveredPosition(), -1);
        QVERIFY(!card->isVisible());
    }

    // Each item of the Export menu writes its file and says so in the status line.
    void everyExport() {
        const struct {
            const char* item;
            const char* file;
        } exports[] = {{"exportGridItem", "grid.png"},
                       {"exportHeatmapItem", "heatmap.png"},
                       {"exportChartsItem", "charts.png"},
                       {"exportCsvItem", "steps.csv"}};
        for (const auto& e : exports) {
            const QString path = outDir() + "/" + e.file;
            QFile::remove(path);
            clickNamed("exportButton");
            auto* item = find(e.item);
            QTRY_VERIFY2_WITH_TIMEOUT(item && item->isVisible(), e.item, 5000);
            QTest::qWait(300);  // the menu's open transition
            click(item);
            acceptDialog("exportDialog", "selectedFile", path);
            QTRY_VERIFY2(QFileInfo(path).size() > 0, e.file);
            QTRY_VERIFY2(c_->status().contains(e.file), qPrintable(c_->status()));
        }
        // The charts' image is the whole grid of six, not what the panel's scroll shows.
        const QImage charts(outDir() + "/charts.png");
        auto* grid = find("chartsGrid");
        QVERIFY(grid);
        QCOMPARE(charts.size(), QSize(qRound(grid->width()), qRound(grid->height())));
        QSet<QRgb> colours;  // drawn charts, not an empty panel
        for (int y = 0; y < charts.height(); y += 7)
            for (int x = 0; x < charts.width(); x += 7) colours.insert(charts.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
    }

    // The model picker: a folder that is not a checkpoint is refused with a banner and the model
    // stays; the embedded folder loads.
    void modelPicker() {
        QTemporaryDir empty;
        clickNamed("modelButton");
        acceptDialog("modelDialog", "selectedFolder", empty.path());
        QTRY_VERIFY_WITH_TIMEOUT(!c_->model()->loading() && !c_->errorString().isEmpty(), 30000);
        QVERIFY(find("dismissButton")->isVisible());
        QVERIFY(c_->model()->loaded());
        clickNamed("dismissButton");
        QTRY_VERIFY(c_->errorString().isEmpty());
        clickNamed("modelButton");
        acceptDialog("modelDialog", "selectedFolder", modelDir());
        QTRY_VERIFY_WITH_TIMEOUT(!c_->model()->loading() && c_->model()->loaded(), 60000);
        QVERIFY2(c_->errorString().isEmpty(), qPrintable(c_->errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(c_->canRun(), 10000);
    }

    void smallWindow() {
        win_->resize(1024, 700);
        QTRY_COMPARE(win_->width(), 1024);
        QTest::qWait(300);
        const QRectF window(0, 0, win_->width(), win_->height());
        for (const char* name : {"runButton", "exportButton", "statusLabel", "denoiseGrid", "chartsPanel"}) {
            auto* item = find(name);
            QVERIFY2(item, name);
            const QRectF r = item->mapRectToScene(QRectF(0, 0, item->width(), item->height()));
            QVERIFY2(window.contains(r), name);
        }
        clickNamed("runButton");
        QVERIFY(waitRun());
        QTest::qWait(Automation::kSettleMs);
        win_->grabWindow().save(outDir() + "/4-small.png");
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    useAppStyle();
    QApplication::setOrganizationName(QStringLiteral("dlmscope-tests"));
    QApplication::setApplicationName(QStringLiteral("dlmscope-walkthrough"));
    Walkthrough t;
    return QTest::qExec(&t, argc, argv);
}

#include "walkthrough_test.moc"
