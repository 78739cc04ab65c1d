// End to end on the embedded default model: the real controller, worker thread, engine and QML
// window, offscreen. Skipped (with a message) while resources/models/tiny-mdlm is missing.
#include <algorithm>
#include <cmath>

#include <QApplication>
#include <QElapsedTimer>
#include <QPointer>
#include <QQmlApplicationEngine>
#include <QQmlExpression>
#include <QQuickItem>
#include <QTcpServer>
#include <QQuickWindow>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtQml/qqmlextensionplugin.h>
#include <QtTest>

#include "app_controller.h"
#include "backends/loaded_model.h"
#include "canvas_model.h"
#include "cell_style.h"
#include "decode_server.h"
#include "server_options.h"
#include "denoise_grid_item.h"

Q_IMPORT_QML_PLUGIN(DlmscopePlugin)

namespace {

QString modelDir() { return QStringLiteral(DLM_SOURCE_DIR "/resources/models/tiny-mdlm"); }
QString outDir() {
    const QString d = qEnvironmentVariable("DLM_TEST_OUT", QDir::tempPath());
    QDir().mkpath(d);
    return d;
}

// Counts pixels close to a colour.
int countColour(const QImage& img, const QColor& c, int tol = 2) {
    int n = 0;
    const QImage im = img.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < im.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(im.constScanLine(y));
        for (int x = 0; x < im.width(); ++x)
            n += std::abs(qRed(line[x]) - c.red()) <= tol && std::abs(qGreen(line[x]) - c.green()) <= tol &&
                 std::abs(qBlue(line[x]) - c.blue()) <= tol;
    }
    return n;
}

// Pixels in any of the confidence shades of a state (cell_style::shadedFill, 16 levels).
int countShades(const QImage& img, dlm::PosState s) {
    int n = 0;
    for (int b = 0; b < 16; ++b) n += countColour(img, cell_style::shadedFill(s, (b + 0.5f) / 16.f), 1);
    return n;
}

struct Window {
    QQmlApplicationEngine engine;
    QQuickWindow* window = nullptr;
    explicit Window() {
        engine.addImportPath(QStringLiteral("qrc:/"));
        engine.load(QUrl(QStringLiteral("qrc:/Dlmscope/Main.qml")));
        if (!engine.rootObjects().isEmpty()) window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
    }
    template <class T> T* find(const char* name) const { return window ? window->findChild<T*>(QString::fromLatin1(name)) : nullptr; }
};

// A dlmscope server in this process, on a free loopback port, serving the embedded model.
std::unique_ptr<DecodeServer> startServer(const QString& token = {}, const ServerSecurity* tls = nullptr) {
    dlm::LoadOptions o;
    o.backend = dlm::BackendKind::Cpu;
    o.diffusion_only = true;
    std::vector<dlm::LoadedModel> models;
    models.push_back(dlm::load_model(modelDir().toStdString(), o));
    auto s = std::make_unique<DecodeServer>(std::move(models), dlm::serve::ServeLimits{},
                                            tls ? *tls : ServerSecurity{token, false, {}});
    s->listen(QStringLiteral("127.0.0.1"), 0);
    return s;
}

// The real controller as the QML singleton with the main window on top of it, unregistered again
// when the test ends.
// A popup of a window (a Qt Quick dialog's own implementation) by the class it derives from:
// popups are outside the window's object tree, found through their items in the window's overlay.
QObject* findPopup(QQuickWindow* window, const char* className) {
    if (!window) return nullptr;
    QList<QQuickItem*> todo = window->contentItem()->childItems();
    while (!todo.isEmpty()) {
        QQuickItem* item = todo.takeLast();
        for (QObject* o = item->parent(); o; o = o->parent())
            if (o->inherits(className)) return o;
        todo += item->childItems();
    }
    return nullptr;
}

// An item by object name anywhere under `root`, popups' items in the window's overlay included.
QQuickItem* findItem(QQuickItem* root, const char* name) {
    QList<QQuickItem*> todo{root};
    while (!todo.isEmpty()) {
        QQuickItem* item = todo.takeLast();
        if (item->objectName() == QLatin1String(name)) return item;
        todo += item->childItems();
    }
    return nullptr;
}

struct AppUnderTest {
    AppController c{AppController::Options{false, false}};
    bool registered = (AppController::setInstance(&c), true);
    Window w;
    ~AppUnderTest() { AppController::setInstance(nullptr); }
};

}  // namespace

class AppE2ETest : public QObject {
    Q_OBJECT
    QString trace_;

    // Sets `settings`, then decodes once to the end: false when Run stays refused or the run does
    // not complete.
    bool decode(AppController& c, const QList<QPair<QString, QString>>& settings = {}) {
        for (const auto& [key, value] : settings) c.config()->setSetting(key, value);
        if (!QTest::qWaitFor([&] { return c.canRun(); }, 10000)) return false;
        QSignalSpy done(c.runs(), &RunController::runCompleted);
        c.runs()->runDecode();
        return done.wait(120000);
    }

    bool loadModel(AppController& c) {
        c.model()->load(modelDir());
        if (!QTest::qWaitFor([&] { return !c.model()->loading(); }, 60000)) return false;
        return c.model()->loaded();
    }

private Q_SLOTS:
    void init() {
        // Every test starts from the default window geometry (Qt.labs.settings keeps what an
        // earlier test resized the window to).
        QSettings().clear();
        // The embedded model ships with the repository: one missing is a broken checkout, not a skip.
        QVERIFY2(QFileInfo::exists(modelDir() + "/config.json"),
                 qPrintable("the embedded default model is missing: " + modelDir()));
    }

    // Run a decode in the real app offscreen; the UI thread keeps processing events throughout,
    // the charts receive every step, and the grid shows masked and active (and locked) cells.
    void decodeDefaultModel() {
        AppController c(AppController::Options{false, false});
        AppController::setInstance(&c);
        Window w;
        QVERIFY(w.window);
        QVERIFY2(loadModel(c), qPrintable(c.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(c.canRun(), 10000);
        // The first run is the first worked example on a canvas that holds its whole answer.
        QVERIFY(!c.config()->examples().isEmpty());
        const QVariantMap first = c.config()->examples().front().toMap();
        QCOMPARE(c.config()->prompt(), first.value("prompt").toString());
        QCOMPARE(c.config()->exampleIndex(), 0);
        QCOMPARE(c.config()->settings().value("gen_length").toInt(), first.value("genLength").toInt());
        QVERIFY(first.value("genLength").toInt() >= 160);

        // The UI thread's heartbeat: the longest gap between two 5 ms ticks during the decode.
        QElapsedTimer clock;
        clock.start();
        qint64 last = 0, worstGap = 0;
        int ticks = 0;
        QTimer heartbeat;
        heartbeat.setInterval(5);
        // While the decode runs, Live says it is following it.
        QObject* live = w.find<QObject>("liveButton");
        QVERIFY(live);
        QString liveWhileRunning;
        connect(&heartbeat, &QTimer::timeout, [&] {
            const qint64 now = clock.elapsed();
            worstGap = std::max(worstGap, now - last);
            last = now;
            ++ticks;
            if (liveWhileRunning.isEmpty() && c.runs()->running() && c.runs()->run()->stepCount() > 1)
                liveWhileRunning = live->property("text").toString();
        });
        QSignalSpy done(c.runs(), &RunController::runCompleted);
        heartbeat.start();
        last = clock.elapsed();
        c.runs()->runDecode();
        QVERIFY(done.wait(240000));
        heartbeat.stop();
        QCOMPARE(done.at(0).at(0).toBool(), true);
        QVERIFY2(c.errorString().isEmpty(), qPrintable(c.errorString()));
        const int steps = c.runs()->run()->stepCount();
        QVERIFY(steps > 0);
        qInfo("decode: %d steps in %lld ms; UI heartbeat %d ticks, worst gap %lld ms, %d frames applied",
              steps, clock.elapsed(), ticks, worstGap, c.runs()->framesApplied());
        QVERIFY2(worstGap < 1000, qPrintable(QString("the UI thread stalled for %1 ms").arg(worstGap)));
        QVERIFY(ticks > 3);
        QCOMPARE(liveWhileRunning, QStringLiteral("● Live"));
        QTRY_COMPARE(live->property("text").toString(), QStringLiteral("Live"));  // nothing to follow now

        // The run knows the example's answer and says whether it got it; the badge shows it.
        QCOMPARE(c.runs()->run()->expectedAnswer(), first.value("answer").toString());
        qInfo("default run answered '%s' (expected '%s'): %s", qPrintable(c.runs()->run()->predictedAnswer()),
              qPrintable(c.runs()->run()->expectedAnswer()), qPrintable(c.runs()->run()->verdict()));
        // The first thing a new user sees: the embedded model's default run ends on the right total.
        QCOMPARE(c.runs()->run()->predictedAnswer(), first.value("answer").toString());
        QCOMPARE(c.runs()->run()->verdict(), QString("correct"));
        QQuickItem* badge = w.find<QQuickItem>("verdictBadge");
        QVERIFY(badge);
        QVERIFY(badge->isVisible());
        // Scrubbed back to an earlier step, the badge says the verdict is the run's final one.
        QObject* verdictText = w.find<QObject>("verdictText");
        QVERIFY(verdictText);
        QVERIFY2(!verdictText->property("text").toString().contains("at the end of the run"),
                 qPrintable(verdictText->property("text").toString()));
        c.runs()->setViewStep(steps / 2);
        QCoreApplication::processEvents();
        QVERIFY2(verdictText->property("text").toString().endsWith(QString(" (at the end of the run, step %1)").arg(steps)),
                 qPrintable(verdictText->property("text").toString()));
        c.runs()->setViewStep(steps - 1);

        // Every chart got every step.
        for (const char* name : {"flopsChart", "ratioChart", "rowsChart", "tpsChart", "wallChart", "eventsChart"}) {
            QObject* chart = w.find<QObject>(name);
            QVERIFY2(chart, name);
            QCOMPARE(chart->property("points").toInt(), steps);
        }

        // Masked and active (and, under SureLock, locked) cells side by side: the step where the
        // scarcest of them is most plentiful (how early a model settles is the model's business).
        const bool surelock = c.runs()->run()->strategy() == "surelock";
        int shown = steps / 2, best = -1;
        for (int i = 0; i < steps; ++i) {
            int masked = 0, active = 0, locked = 0;
            for (const auto& p : c.runs()->run()->history().step(i).positions) {
                masked += p.state == dlm::PosState::Masked;
                active += p.state == dlm::PosState::Active;
                locked += p.state == dlm::PosState::Locked;
            }
            const int scarcest = std::min({masked, active, surelock ? locked : masked});
            if (scarcest > best) best = scarcest, shown = i;
        }
        c.runs()->setViewStep(shown);
        // A well-trained model locks a position one step after unmasking it, so a step holds one
        // to three active cells, often below the grid's fold: scroll the first into view, as a
        // user would to watch it.
        int activePos = -1;
        for (const auto& p : c.runs()->run()->history().step(shown).positions)
            if (p.state == dlm::PosState::Active) {
                activePos = p.pos;
                break;
            }
        QVERIFY(activePos >= 0);
        QQuickItem* grid = w.find<QQuickItem>("denoiseGrid");
        QQuickItem* scroll = w.find<QQuickItem>("gridScroll");
        QVERIFY(grid && scroll);
        QQuickItem* flick = scroll->property("contentItem").value<QQuickItem*>();  // the ScrollView's Flickable
        QVERIFY(flick && flick->property("contentY").isValid());
        QRectF cell;
        QVERIFY(QMetaObject::invokeMethod(grid, "cellRect", Q_RETURN_ARG(QRectF, cell), Q_ARG(int, activePos)));
        flick->setProperty("contentY", std::max(0.0, std::min(cell.center().y() - flick->height() / 2,
                                                              grid->height() - flick->height())));
        QTest::qWait(300);
        const QImage shot = w.window->grabWindow();
        QVERIFY(!shot.isNull());
        shot.save(outDir() + "/e2e-mid.png");
        QVERIFY2(countColour(shot, cell_style::stateColor(dlm::PosState::Masked)) > 200, "no masked cells visible");
        QVERIFY2(countShades(shot, dlm::PosState::Active) > 200, "no active cells visible");
        if (c.config()->strategies().contains("surelock") && c.runs()->run()->strategy() == "surelock")
            QVERIFY2(countShades(shot, dlm::PosState::Locked) + countColour(shot, cell_style::stateColor(dlm::PosState::Locked)) > 200,
                     "no locked cells visible");

        // Keep the trace for the replay test.
        trace_ = outDir() + "/e2e.ndjson";
        QVERIFY2(c.runs()->saveTrace(trace_), qPrintable(c.errorString()));
        QVERIFY(c.runs()->exportCsv(outDir() + "/e2e.csv"));
        // The animation of the real decode: one frame per step after the masked canvas (what a
        // viewer without APNG shows first).
        const QString animation = outDir() + "/e2e-decode.png";
        QFile::remove(animation);
        QVERIFY(c.runs()->exportAnimation(animation));
        QVERIFY(c.runs()->exportingAnimation());
        QVERIFY(!c.runs()->exportAnimation(animation));  // one at a time
        QTRY_VERIFY_WITH_TIMEOUT(!c.runs()->exportingAnimation(), 60000);
        c.clearError();
        QVERIFY2(c.status().contains(QString("animation of %1 frames to %2").arg(c.runs()->run()->stepCount() + 1).arg(animation)),
                 qPrintable(c.status()));
        QVERIFY(!QImage(animation).isNull());
        // Part of it, as the export dialog asks: the plan says what will be written, the status
        // line which steps were; steps past the run are refused with the range there is.
        const QVariantMap part{{"from", 2}, {"to", 5}, {"stepsPerSecond", 4}, {"scale", 1}};
        const QVariantMap plan = c.runs()->animationPlan(part);
        QCOMPARE(plan.value("problem").toString(), QString());
        QCOMPARE(plan.value("steps").toInt(), steps);
        QCOMPARE(plan.value("frames").toInt(), 4);
        QCOMPARE(plan.value("seconds").toDouble(), 0.5 + 2 * 0.25 + 3);  // at 4 steps a second: the first frame 0.5 s, the last 3 s
        QCOMPARE(c.runs()->animationPlan({{"from", 2}, {"to", 5}, {"stepsPerSecond", 20}}).value("seconds").toDouble(),
                 0.5 + 2 * 0.05 + 3);  // the first frame stays at least 0.5 s
        QVERIFY(plan.value("width").toInt() > 600 && plan.value("height").toInt() > 100);
        QCOMPARE(c.runs()->animationPlan({{"scale", 2}}).value("width").toInt(), 2 * plan.value("width").toInt());
        QCOMPARE(c.runs()->animationPlan({}).value("scale").toDouble(), 2.0);  // automatic, for a canvas this small
        QCOMPARE(plan.value("scale").toDouble(), 1.0);
        QVERIFY(c.runs()->exportAnimation(animation, part));
        QTRY_VERIFY_WITH_TIMEOUT(!c.runs()->exportingAnimation(), 60000);
        QVERIFY2(c.status().contains(QString("Exported steps 2–5 of the decode as an animation of 4 frames to %1").arg(animation)),
                 qPrintable(c.status()));
        QCOMPARE(QImage(animation).width(), plan.value("width").toInt());
        const QVariantMap past{{"from", 2}, {"to", steps + 1}};
        QVERIFY(c.runs()->animationPlan(past).value("problem").toString().contains(QString("there is no step %1").arg(steps + 1)));
        QVERIFY(!c.runs()->exportAnimation(animation, past));
        QVERIFY2(c.errorString().contains("Could not export the animation"), qPrintable(c.errorString()));
        c.clearError();
        AppController::setInstance(nullptr);
    }

    // The example picker puts a worked example in the prompt, sizes the canvas for its answer (blocks
    // still tiling it) and the settings stay valid; an edited prompt is nobody's example.
    void examplePickerSizesTheCanvas() {
        AppUnderTest app;
        AppController& c = app.c;
        Window& w = app.w;
        QVERIFY(w.window);
        QVERIFY2(loadModel(c), qPrintable(c.errorString()));
        const QVariantList examples = c.config()->examples();
        QVERIFY(examples.size() >= 6);
        // The picker names each by its title, else by its family's name in words.
        QStringList labels;
        for (const auto& e : examples) labels << e.toMap().value("label").toString();
        QVERIFY2(labels.contains("4-digit addition") && labels.contains("Word problem"), qPrintable(labels.join(", ")));
        for (int i = 0; i < examples.size(); ++i) {
            const QVariantMap e = examples[i].toMap();
            c.config()->useExample(i);
            QCOMPARE(c.config()->prompt(), e.value("prompt").toString());
            QCOMPARE(c.config()->exampleIndex(), i);
            const int gen = c.config()->settings().value("gen_length").toInt();
            QCOMPARE(gen, e.value("genLength").toInt());
            const int block = c.config()->settings().value("block_length").toInt();
            QVERIFY2(block == 0 || gen % block == 0, qPrintable(QString("block %1 does not tile %2").arg(block).arg(gen)));
            QCOMPARE(c.config()->answerFor(e.value("prompt").toString()), e.value("answer").toString());
            QTRY_VERIFY_WITH_TIMEOUT(c.canRun(), 10000);
        }
        QQuickItem* known = w.find<QQuickItem>("knownAnswer");
        QVERIFY(known);
        QVERIFY(known->isVisible());
        // A canvas shorter than the example's is named: its answer may be cut off.
        const int exampleCanvas = c.config()->settings().value("gen_length").toInt();
        QVERIFY(!known->property("text").toString().contains("cut off"));
        c.config()->setSetting("gen_length", exampleCanvas - 16);
        QTRY_VERIFY(known->property("text").toString().contains("cut off"));
        c.config()->setSetting("gen_length", exampleCanvas);
        QTRY_VERIFY(!known->property("text").toString().contains("cut off"));
        c.config()->setPrompt(c.config()->prompt() + " Show your work.");
        QCOMPARE(c.config()->exampleIndex(), -1);
        QVERIFY(c.config()->answerFor(c.config()->prompt()).isEmpty());
        QTRY_VERIFY(!known->isVisible());
        AppController::setInstance(nullptr);
    }

    // Every file dialog opens and closes in the real window (their Qt Quick implementation needs
    // QML modules of its own; a missing one crashed the app the moment a dialog opened).
    void fileDialogsOpenAndClose() {
        AppUnderTest app;
        AppController& c = app.c;
        Window& w = app.w;
        QVERIFY(w.window);
        for (const char* name : {"modelDialog", "connectDialog", "openTraceDialog", "saveTraceDialog", "exportDialog"}) {
            QObject* dialog = w.find<QObject>(name);
            QVERIFY2(dialog, name);
            QVERIFY2(QMetaObject::invokeMethod(dialog, "open"), name);
            QTRY_VERIFY2_WITH_TIMEOUT(dialog->property("visible").toBool(), name, 5000);
            QTest::qWait(200);
            QVERIFY2(QMetaObject::invokeMethod(dialog, "reject"), name);
            QTRY_VERIFY2_WITH_TIMEOUT(!dialog->property("visible").toBool(), name, 5000);
        }
        AppController::setInstance(nullptr);
    }

    // Inside a checkpoint folder (files, no subfolders) Qt's own folder dialog selected nothing and
    // greyed out Open: the checkpoint one is in is the one Open loads. It first opens beside the
    // loaded model.
    void modelDialogOpensTheFolderItIsIn() {
        AppUnderTest app;
        QVERIFY2(loadModel(app.c), qPrintable(app.c.errorString()));
        QObject* dialog = app.w.find<QObject>("modelDialog");
        QObject* button = app.w.find<QObject>("modelButton");
        QVERIFY(dialog && button);
        QVERIFY(QMetaObject::invokeMethod(button, "clicked"));
        QTRY_VERIFY_WITH_TIMEOUT(dialog->property("visible").toBool(), 5000);
        QCOMPARE(dialog->property("currentFolder").toUrl(), QUrl::fromLocalFile(QFileInfo(modelDir()).absolutePath()));
        // Go into the folder as a user does, in the dialog's own (Qt Quick) implementation.
        QObject* impl = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((impl = findPopup(app.w.window, "QQuickFolderDialogImpl")) != nullptr, 5000);
        QTemporaryDir tmp;
        QDir copy(tmp.path());
        for (const QString& f : QDir(modelDir()).entryList(QDir::Files)) QVERIFY(QFile::copy(modelDir() + "/" + f, copy.filePath(f)));
        const QUrl folder = QUrl::fromLocalFile(copy.absolutePath());
        impl->setProperty("currentFolder", folder);
        QTRY_COMPARE(dialog->property("currentFolder").toUrl(), folder);
        QTRY_COMPARE(dialog->property("selectedFolder").toUrl(), folder);
        QVERIFY(QMetaObject::invokeMethod(dialog, "accept"));
        QTRY_COMPARE_WITH_TIMEOUT(app.c.model()->dir(), copy.absolutePath(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(app.c.model()->loaded() && !app.c.model()->loading(), 60000);
    }

    // Save and export dialogs start from a file name made of the run's model and strategy, and
    // say what their button does.
    void saveDialogsSuggestAName() {
        AppUnderTest app;
        AppController& c = app.c;
        QVERIFY2(loadModel(c), qPrintable(c.errorString()));
        QVERIFY2(decode(c, {{"strategy", "surelock"}, {"surelock.unlock", "on"}, {"gen_length", "16"}, {"steps", "16"}}),
                 qPrintable(c.errorString()));
        auto offered = [&](const char* trigger, const char* dialogName) {
            QObject* source = app.w.find<QObject>(trigger);
            QObject* dialog = app.w.find<QObject>(dialogName);
            if (!source || !dialog) return QStringLiteral("missing %1 or %2").arg(trigger, dialogName);
            QMetaObject::invokeMethod(source, QByteArray(trigger).endsWith("Item") ? "triggered" : "clicked");
            if (!QTest::qWaitFor([&] { return dialog->property("visible").toBool(); }, 5000)) return QStringLiteral("not shown");
            const QString name = dialog->property("selectedFile").toUrl().fileName() + " / " + dialog->property("acceptLabel").toString();
            QMetaObject::invokeMethod(dialog, "reject");
            if (!QTest::qWaitFor([&] { return !dialog->property("visible").toBool(); }, 5000)) return QStringLiteral("not closed");
            return name;
        };
        QCOMPARE(offered("saveTraceButton", "saveTraceDialog"), QStringLiteral("tiny-mdlm-SureLock-unlocking.ndjson / Save"));
        QCOMPARE(offered("exportGridItem", "exportDialog"), QStringLiteral("tiny-mdlm-SureLock-unlocking-grid.png / Export"));
        QCOMPARE(offered("exportCsvItem", "exportDialog"), QStringLiteral("tiny-mdlm-SureLock-unlocking-steps.csv / Export"));
        // The animation's choices come first (the whole run, at the replay speed), then the file;
        // part of the run is named for its steps.
        QObject* choices = app.w.find<QObject>("animationDialog");
        QVERIFY(choices);
        auto animationOffered = [&](int from, int to) {
            QMetaObject::invokeMethod(app.w.find<QObject>("exportAnimationItem"), "triggered");
            if (!QTest::qWaitFor([&] { return choices->property("visible").toBool(); }, 5000)) return QStringLiteral("no choices");
            if (app.w.find<QObject>("animationFrom")->property("value").toInt() != 0 ||
                app.w.find<QObject>("animationTo")->property("value").toInt() != 16)
                return QStringLiteral("not the whole run");
            if (from >= 0) {
                app.w.find<QObject>("animationFrom")->setProperty("value", from);
                app.w.find<QObject>("animationTo")->setProperty("value", to);
            }
            const QString plan = app.w.find<QObject>("animationPlan")->property("text").toString();
            const int frames = from >= 0 ? to - from + 1 : 17;
            if (!plan.startsWith(QString("%1 frames, ").arg(frames))) return "plan: " + plan;
            return offered("animationChooseFile", "exportDialog");
        };
        QCOMPARE(animationOffered(-1, -1), QStringLiteral("tiny-mdlm-SureLock-unlocking-decode.png / Export"));
        QCOMPARE(animationOffered(2, 5), QStringLiteral("tiny-mdlm-SureLock-unlocking-decode-steps-2-5.png / Export"));
        // "Whole run" puts a range back to every step.
        QMetaObject::invokeMethod(app.w.find<QObject>("exportAnimationItem"), "triggered");
        QTRY_VERIFY(choices->property("visible").toBool());
        app.w.find<QObject>("animationFrom")->setProperty("value", 3);
        app.w.find<QObject>("animationTo")->setProperty("value", 7);
        QVERIFY(app.w.find<QObject>("animationWholeRun")->property("enabled").toBool());
        QMetaObject::invokeMethod(app.w.find<QObject>("animationWholeRun"), "clicked");
        QCOMPARE(app.w.find<QObject>("animationFrom")->property("value").toInt(), 0);
        QCOMPARE(app.w.find<QObject>("animationTo")->property("value").toInt(), 16);
        QVERIFY(!app.w.find<QObject>("animationWholeRun")->property("enabled").toBool());
        QMetaObject::invokeMethod(choices, "reject");
        QTRY_VERIFY(!choices->property("visible").toBool());
        QCOMPARE(app.w.find<QObject>("exportDialog")->property("animationOptions").toMap(),
                 (QVariantMap{{"from", 2}, {"to", 5}, {"stepsPerSecond", 20}, {"scale", 0}}));
        QCOMPARE(offered("exportHeatmapItem", "exportDialog"), QStringLiteral("tiny-mdlm-SureLock-unlocking-kl.png / Export"));
    }

    // At 1024 x 700 (a small laptop screen) every control and chart is within the window: the
    // toolbar's last button, the status line, the grid, and each of the six charts (the panel
    // scrolls rather than squeezing them). A geometry saved on a larger screen is pulled back
    // onto this one.
    void layoutFitsASmallScreen() {
        AppUnderTest app;
        AppController& c = app.c;
        QQuickWindow* win = app.w.window;
        QVERIFY(win);
        QVERIFY2(loadModel(c), qPrintable(c.errorString()));
        QVERIFY2(decode(c), qPrintable(c.errorString()));  // the word problem's seven-line answer
        c.reportError(QStringLiteral("a long error message that fills the banner"));
        win->resize(1024, 700);
        QTRY_COMPARE(win->width(), 1024);
        QTest::qWait(300);
        const QRectF window(0, 0, win->width(), win->height());
        auto rectOf = [&](QQuickItem* item) { return item->mapRectToScene(QRectF(0, 0, item->width(), item->height())); };
        for (const char* name : {"exportButton", "statusLabel", "runButton", "gridScroll", "promptEdit", "dismissButton"}) {
            auto* item = app.w.find<QQuickItem>(name);
            QVERIFY2(item, name);
            const QRectF r = rectOf(item);
            QVERIFY2(window.contains(r), qPrintable(QStringLiteral("%1 at %2,%3 %4x%5 is outside the window")
                                                    .arg(name).arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height())));
        }
        QVERIFY(app.w.find<QQuickItem>("denoiseGrid")->width() >= 300);
        // The grid keeps three rows of cells; the answer scrolls rather than take them.
        auto* gridScroll = app.w.find<QQuickItem>("gridScroll");
        auto* answerScroll = app.w.find<QQuickItem>("answerScroll");
        QVERIFY(gridScroll && answerScroll && answerScroll->isVisible());
        QVERIFY2(gridScroll->height() >= 3 * 22, qPrintable(QStringLiteral("the grid shows %1 px, the answer %2 px")
                                                            .arg(gridScroll->height()).arg(answerScroll->height())));
        auto* chartsScroll = app.w.find<QQuickItem>("chartsPanel");
        QVERIFY(chartsScroll);
        const QRectF panel = rectOf(chartsScroll);
        QVERIFY2(window.contains(panel), qPrintable(QStringLiteral("the charts panel at %1,%2 %3x%4 is outside the window")
                                                    .arg(panel.x()).arg(panel.y()).arg(panel.width()).arg(panel.height())));
        for (const char* name : {"flopsChart", "ratioChart", "rowsChart", "tpsChart", "wallChart", "eventsChart"}) {
            auto* chart = app.w.find<QQuickItem>(name);
            QVERIFY2(chart, name);
            QVERIFY2(chart->height() >= 150 && chart->width() >= 150,
                     qPrintable(QStringLiteral("%1 is %2x%3").arg(name).arg(chart->width()).arg(chart->height())));
            // Within the panel's width, and within its scrollable content height.
            const QRectF r = rectOf(chart);
            QVERIFY2(r.left() >= panel.left() - 1 && r.right() <= panel.right() + 1, name);
        }
        // The inspector opens below the banner: its Dismiss stays clickable.
        QMetaObject::invokeMethod(win, "openInspector", Q_ARG(QVariant, 3));
        auto* inspector = app.w.find<QQuickItem>("inspector");
        QTRY_VERIFY(inspector && inspector->isVisible());
        QVERIFY(!rectOf(inspector).intersects(rectOf(app.w.find<QQuickItem>("dismissButton"))));
        c.clearError();

        // A geometry from a larger screen is brought back onto this one.
        QVERIFY(QMetaObject::invokeMethod(win, "openInspector", Q_ARG(QVariant, -1)));
        win->setGeometry(5000, 4000, 3000, 2500);
        QVERIFY(QMetaObject::invokeMethod(win, "fitToScreen"));
        const QRect screen = win->screen()->availableGeometry();
        // On the screen: its top-left corner in reach, and no larger than the screen unless the
        // window's minimum size is (then it starts at the screen's corner).
        // (a few pixels of slack: a platform may offset the frame)
        const bool xs = win->x() >= 0 && (win->x() + win->width() <= screen.width() + 8 || win->x() <= 8);
        const bool ys = win->y() >= 0 && (win->y() + win->height() <= screen.height() + 8 || win->y() <= 8);
        QVERIFY2(xs && ys && win->width() <= std::max(screen.width(), win->minimumWidth()),
                 qPrintable(QStringLiteral("%1,%2 %3x%4 on a %5x%6 screen").arg(win->x()).arg(win->y())
                            .arg(win->width()).arg(win->height()).arg(screen.width()).arg(screen.height())));
        AppController::setInstance(nullptr);
    }

    // A control that cannot be used looks it: the app's palette no longer gives disabled buttons
    // the enabled text colour. The replay button draws its icons (no font glyph to go missing).
    void disabledControlsLookDisabled() {
        AppUnderTest app;
        QVERIFY(app.w.window);
        auto inkOf = [&](const char* name) {
            auto* button = app.w.find<QQuickItem>(name);
            auto* content = button ? button->property("contentItem").value<QQuickItem*>() : nullptr;
            return content ? content->property("color").value<QColor>() : QColor();
        };
        QVERIFY(!app.w.find<QQuickItem>("stopButton")->isEnabled());
        QVERIFY(app.w.find<QQuickItem>("modelButton")->isEnabled());
        QCOMPARE(inkOf("stopButton"), QColor("#4e5461"));
        QCOMPARE(inkOf("modelButton"), QColor("#e8eaee"));
        auto* play = app.w.find<QQuickItem>("playIcon");
        QVERIFY(play && play->isVisible() && play->width() > 0);
        QVERIFY(app.w.find<QQuickItem>("pauseIcon"));
        AppController::setInstance(nullptr);
    }

    // Names from outside (a server's model, a folder, generation_config values) reach tooltips and
    // the "Run B on …" box; those are plain text, so that "<b>" or "<img src=…>" in a name is
    // shown as written and nothing is fetched for it.
    void tooltipsAndModelNamesArePlainText() {
        AppUnderTest app;
        QVERIFY(app.w.window);
        auto qml = [&](const char* expression) {
            QQmlExpression e(qmlContext(app.w.window), app.w.window->contentItem(), QString::fromLatin1(expression));
            const QVariant v = e.evaluate();
            return e.hasError() || !v.isValid() ? -1 : v.toInt();
        };
        const int plain = qml("Text.PlainText");
        QVERIFY(plain >= 0 && plain != qml("Text.AutoText"));
        QCOMPARE(qml("ToolTip.toolTip.contentItem.textFormat"), plain);
        auto* onOther = app.w.find<QQuickItem>("compareOnOtherModel");
        QVERIFY(onOther);
        auto* label = onOther->property("contentItem").value<QQuickItem*>();
        QVERIFY(label);
        QCOMPARE(label->property("textFormat").toInt(), plain);
    }

    // The toolbar's Compare switch runs the pair (B no longer waits forever), and Run in compare
    // mode decodes the pair again instead of leaving the mode.
    void toolbarCompareRunsBothSides() {
        AppUnderTest app;
        AppController& c = app.c;
        Window& w = app.w;
        QVERIFY(w.window);
        QVERIFY2(loadModel(c), qPrintable(c.errorString()));
        c.config()->useExample(1);  // a short canvas
        QTRY_VERIFY_WITH_TIMEOUT(c.canRun(), 10000);
        QSignalSpy done(c.runs(), &RunController::runCompleted);
        c.runs()->toggleCompare(true);
        QVERIFY(c.runs()->compareMode());
        QVERIFY(done.wait(120000));
        QVERIFY2(c.errorString().isEmpty(), qPrintable(c.errorString()));
        QVERIFY2(c.runs()->run()->complete(), qPrintable(c.status()));
        QVERIFY2(c.runs()->compareRun()->complete(), qPrintable(c.status()));
        QVERIFY(!c.runs()->compareSummary().isEmpty());
        // The box names what B changed: B's preset, SureLock + unlocking, is A's SureLock with unlocking.
        QCOMPARE(c.runs()->compareRun()->strategyLabel(), QStringLiteral("SureLock + unlocking"));
        QCOMPARE(c.runs()->compareSummary().value("settingChanges").toString(), QStringLiteral("surelock.unlock off → on"));
        // Both take one step per position, so against the baseline run they cost what they cost
        // against dense steps; SureLock's locks make that less than 1.
        const QVariantMap sum = c.runs()->compareSummary();
        for (const char* side : {"A", "B"}) {
            const double toBaseline = sum.value(QStringLiteral("flopsToBaseline") + side).toDouble();
            QVERIFY(std::abs(toBaseline - sum.value(QStringLiteral("flopsRatio") + side).toDouble()) < 1e-9);
            QVERIFY2(toBaseline > 0 && toBaseline < 1, side);
        }
        // On a small screen both cards keep three rows of cells: the heatmap starts smaller in
        // compare mode, and the cards leave the answers to the box below them.
        w.window->resize(960, 640);
        QTRY_COMPARE(w.window->width(), 960);
        QTest::qWait(300);
        for (const char* side : {"gridA", "gridB"}) {
            auto* card = w.find<QQuickItem>(side);
            auto* scroll = card ? card->findChild<QQuickItem*>(QStringLiteral("gridScroll")) : nullptr;
            QVERIFY2(scroll, side);
            QVERIFY2(scroll->height() >= 3 * 22, qPrintable(QStringLiteral("%1 shows %2 px of its grid").arg(side).arg(scroll->height())));
        }
        w.window->grabWindow().save(outDir() + "/compare-960x640.png");
        c.runs()->toggleCompare(false);
        QVERIFY(!c.runs()->compareMode());
        AppController::setInstance(nullptr);
    }

    // FreeCache stops computing the blocks its window has left ("frozen" rows, their K/V cached):
    // the inspector keeps the candidates such a row last had and says from which step, and why.
    void frozenRowKeepsItsLastCandidates() {
        AppUnderTest app;
        QVERIFY2(app.w.window && loadModel(app.c), qPrintable(app.c.errorString()));
        RunController* runs = app.c.runs();
        app.c.config()->setSetting("strategy", "freecache");
        app.c.config()->setSetting("gen_length", "64");
        app.c.config()->setSetting("steps", "64");
        app.c.config()->setSetting("block_length", "16");
        QSignalSpy done(runs, &RunController::runCompleted);
        runs->runDecode();
        QVERIFY(done.wait(120000));
        QCOMPARE(done.at(0).at(0).toBool(), true);
        QCOMPARE(runs->run()->strategy(), QString("freecache"));
        const int last = runs->run()->stepCount() - 1;
        runs->setViewStep(last);
        int frozen = -1;
        for (const auto& p : runs->run()->history().step(last).positions)
            if (p.state == dlm::PosState::Frozen) {
                QVERIFY2(p.top.empty(), "a frozen row is not computed, so its step has no candidates");
                frozen = p.pos;
                break;
            }
        QVERIFY2(frozen >= 0, "FreeCache froze no row behind its window");
        QVERIFY(QMetaObject::invokeMethod(app.w.window, "openInspector", Q_ARG(QVariant, frozen)));
        QObject* heading = nullptr;
        QTRY_VERIFY((heading = app.w.find<QObject>("topkHeading")) != nullptr);
        const QVariantMap d = runs->run()->positionDetails(frozen);
        QCOMPARE(d.value("state").toString(), QString("frozen"));
        const QVariantMap current = d.value("current").toMap();
        const int shown = current.value("step").toInt();
        QVERIFY2(shown < last, qPrintable(QString("candidates of step %1, the last is %2").arg(shown).arg(last)));
        QVERIFY(!current.value("candidates").toList().isEmpty());
        QTRY_COMPARE(heading->property("text").toString(),
                     QString("Top-k at step %1 (not recomputed since: frozen)").arg(shown + 1));
    }

    // Guided Diffusion: the inspector says for every position whether the guider agreed with its
    // token, or agreed with nothing so that the diffusion model's own token went in, or whether it
    // is the fill after an end of text; the counts match the steps' counters. Other strategies say
    // nothing of a guider.
    void guidedInspectorSaysWhyATokenWentIn() {
        AppUnderTest app;
        QVERIFY2(app.w.window && loadModel(app.c), qPrintable(app.c.errorString()));
        app.c.config()->useExample(0);
        QVERIFY(decode(app.c, {{"strategy", "guided"}}));
        RunView* run = app.c.runs()->run();
        QVERIFY2(run->complete(), qPrintable(app.c.errorString()));
        const int last = run->stepCount() - 1;
        app.c.runs()->setViewStep(last);
        double agreed = 0, alone = 0, filled = 0;
        for (int i = 0; i <= last; ++i) {
            const auto& counters = run->history().step(i).counters;
            for (const char* key : {"guider_agreed_commits", "guider_no_agreement", "guider_end_fill"})
                QVERIFY2(counters.count(key), qPrintable(QString("step %1 has no counter %2").arg(i).arg(key)));
            agreed += counters.at("guider_agreed_commits");
            alone += counters.at("guider_no_agreement");
            filled += counters.at("guider_end_fill");
        }
        int n_agreed = 0, n_alone = 0, n_filled = 0, first_alone = -1;
        const int positions = run->history().positionCount();
        for (int pos = 0; pos < positions; ++pos) {
            const QString why = run->positionDetails(pos).value("guider").toString();
            if (why.startsWith("agreed")) ++n_agreed;
            else if (why.startsWith("rejected")) {
                if (first_alone < 0) first_alone = pos;
                ++n_alone;
            } else if (why.startsWith("end fill")) ++n_filled;
            else QFAIL(qPrintable(QString("position %1: '%2'").arg(pos).arg(why)));
        }
        QCOMPARE(double(n_agreed), agreed);
        QCOMPARE(double(n_alone), alone);
        QCOMPARE(double(n_filled), filled);
        QCOMPARE(n_agreed + n_alone + n_filled, positions);
        // The inspector shows it.
        const int shown = first_alone >= 0 ? first_alone : 0;
        QVERIFY(QMetaObject::invokeMethod(app.w.window, "openInspector", Q_ARG(QVariant, shown)));
        QPointer<QObject> label;
        QTRY_VERIFY((label = app.w.find<QObject>("guiderReason")) != nullptr);
        QTRY_VERIFY(label->property("visible").toBool());
        QCOMPARE(label->property("text").toString(), run->positionDetails(shown).value("guider").toString());
        // The baseline has no guider to speak of.
        QVERIFY(decode(app.c, {{"strategy", "baseline"}}));
        app.c.runs()->setViewStep(app.c.runs()->run()->stepCount() - 1);
        QVERIFY(!app.c.runs()->run()->positionDetails(0).contains("guider"));
        QTRY_VERIFY(!label || !label->property("visible").toBool());
    }

    // A parameter the chosen strategy does not know is an error shown before Run (it used to pass
    // validation and fail the run with a banner).
    void unknownParameterIsAnErrorBeforeRun() {
        AppController c(AppController::Options{false, false});
        AppController::setInstance(&c);
        QVERIFY2(loadModel(c), qPrintable(c.errorString()));
        c.config()->setSetting("strategy", "surelock");
        QTRY_VERIFY_WITH_TIMEOUT(c.canRun(), 10000);
        c.config()->setSetting("surelock.bogus", "3");
        auto mentions = [&] {
            for (const auto& v : c.config()->issues())
                if (v.toMap().value("severity") == "error" && v.toMap().value("message").toString().contains("bogus")) return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(mentions(), 10000);
        QVERIFY(!c.canRun());
        AppController::setInstance(nullptr);
    }

    void stopReturnsWithinOneStep() {
        AppController c(AppController::Options{false, false});
        QVERIFY2(loadModel(c), qPrintable(c.errorString()));
        c.config()->setSetting("steps", "64");
        c.config()->setSetting("gen_length", "64");
        QSignalSpy done(c.runs(), &RunController::runCompleted);
        c.runs()->runDecode();
        QTRY_VERIFY_WITH_TIMEOUT(c.runs()->run()->history().stepCount() >= 1, 60000);
        c.runs()->stop();
        QElapsedTimer sinceStop;
        sinceStop.start();
        QVERIFY(done.wait(30000));
        const qint64 stopMs = sinceStop.elapsed();
        QCOMPARE(done.at(0).at(0).toBool(), false);  // cancelled
        QVERIFY(!c.runs()->running());
        // Steps already queued to the GUI still arrive; the worker itself stops at the next step
        // boundary: the run ends within about one step's time (plus event-loop latency).
        double worstStepMs = 0;
        for (int i = 0; i < c.runs()->run()->stepCount(); ++i) worstStepMs = std::max(worstStepMs, c.runs()->run()->history().step(i).wall_ms);
        QVERIFY2(stopMs < 2 * worstStepMs + 1000,
                 qPrintable(QString("Stop took %1 ms; the slowest step took %2 ms").arg(stopMs).arg(worstStepMs)));
        QVERIFY(c.runs()->run()->stepCount() < 64);

        // Pause, step once, resume.
        done.clear();
        QSignalSpy begun(c.runs()->run(), &RunView::runReset);
        c.runs()->runDecode();
        QVERIFY(begun.wait(30000));  // the new run has replaced the stopped one
        QTRY_VERIFY_WITH_TIMEOUT(c.runs()->run()->history().stepCount() >= 1, 60000);
        c.runs()->pause();
        QTest::qWait(300);  // the step in flight (if any) arrives
        const int paused = c.runs()->run()->history().stepCount();
        QTest::qWait(400);
        QVERIFY2(c.runs()->run()->history().stepCount() == paused,
                 qPrintable(QString("%1 steps recorded while paused at %2").arg(c.runs()->run()->history().stepCount()).arg(paused)));
        c.runs()->stepOnce();
        QTRY_COMPARE_WITH_TIMEOUT(c.runs()->run()->history().stepCount(), paused + 1, 10000);
        QTest::qWait(300);
        QCOMPARE(c.runs()->run()->history().stepCount(), paused + 1);  // exactly one step
        c.runs()->resume();
        QVERIFY(done.wait(120000));
        QCOMPARE(done.at(0).at(0).toBool(), true);
    }

    void closeDuringDecode() {
        QElapsedTimer t;
        {
            auto c = std::make_unique<AppController>(AppController::Options{false, false});
            QVERIFY2(loadModel(*c), qPrintable(c->errorString()));
            c->runs()->runDecode();
            QTRY_VERIFY_WITH_TIMEOUT(c->runs()->run()->history().stepCount() >= 1, 60000);
            t.start();
        }  // destroyed mid-run: cancel, quit, wait
        QVERIFY2(t.elapsed() < 10000, "closing during a decode took too long");
    }

    // A saved trace replays with no model loaded, and scrubbing moves the grid.
    void openTraceWithoutModelAndScrub() {
        {  // a trace of known settings (not another test's: this one checks they are adopted)
            AppController rec(AppController::Options{false, false});
            QVERIFY2(loadModel(rec), qPrintable(rec.errorString()));
            rec.config()->applyPreset(1);  // not the default one: the opened trace must bring it
            rec.config()->setSetting("gen_length", "32");
            rec.config()->setSetting("steps", "32");
            QSignalSpy done(rec.runs(), &RunController::runCompleted);
            rec.runs()->runDecode();
            QVERIFY(done.wait(120000));
            trace_ = outDir() + "/e2e-replay.ndjson";
            QVERIFY2(rec.runs()->saveTrace(trace_), qPrintable(rec.errorString()));
        }
        AppController c(AppController::Options{false, false});
        AppController::setInstance(&c);
        Window w;
        QVERIFY(w.window);
        QVERIFY(!c.model()->loaded());
        c.config()->setPrompt(QStringLiteral("a prompt that is not the trace's"));
        c.config()->setSetting("gen_length", "48");
        QVERIFY2(c.runs()->openTrace(trace_), qPrintable(c.errorString()));
        // The left panel shows what the trace was decoded with.
        QCOMPARE(c.config()->prompt(), QString::fromStdString(c.runs()->run()->history().header()->prompt));
        QCOMPARE(c.config()->settings().value("gen_length").toString(), QStringLiteral("32"));
        QCOMPARE(c.config()->settings().value("steps").toString(), QStringLiteral("32"));
        // ...under its preset's name: the header's resolved values (sampler=llada for auto) match none.
        QCOMPARE(c.config()->presetIndex(), 1);
        const int steps = c.runs()->run()->stepCount();
        QVERIFY(steps > 1);
        QVERIFY(c.runs()->run()->complete());
        auto* grid = w.find<DenoiseGridItem>("denoiseGrid");
        QVERIFY(grid);
        QTest::qWait(200);
        const QImage end = grid->image();
        // Step moves a replay one step on: there is nothing past the last step to move to.
        auto* stepButton = w.find<QQuickItem>("stepButton");
        QVERIFY(stepButton);
        QVERIFY(!stepButton->isEnabled());
        c.runs()->setViewStep(steps - 2);
        QTRY_VERIFY(stepButton->isEnabled());
        c.runs()->setViewStep(0);
        QCOMPARE(c.runs()->run()->canvas()->shownStep(), 0);
        QTest::qWait(100);
        const QImage start = grid->image();
        QVERIFY(start != end);
        QVERIFY(countColour(start, cell_style::stateColor(dlm::PosState::Masked)) > countColour(end, cell_style::stateColor(dlm::PosState::Masked)));
        c.runs()->startReplay();
        QTRY_VERIFY_WITH_TIMEOUT(c.runs()->run()->viewStep() == steps - 1, 30000);
        QObject* chart = w.find<QObject>("flopsChart");
        QVERIFY(chart);
        QCOMPARE(chart->property("points").toInt(), steps);
        AppController::setInstance(nullptr);
    }

    // The backend selector moves the loaded model and keeps the run shown. Without a usable GPU,
    // asking for CUDA lands on the CPU with a note saying why; with one, on CUDA with no note.
    void switchBackendKeepsHistory() {
        AppController c(AppController::Options{false, false});
        AppController::setInstance(&c);
        Window w;
        QVERIFY(w.window);
        c.model()->setBackend(QStringLiteral("cpu"));
        QVERIFY2(loadModel(c), qPrintable(c.errorString()));
        QCOMPARE(c.model()->backendName(), QStringLiteral("cpu"));
        QVERIFY2(c.model()->backendNote().isEmpty(), qPrintable(c.model()->backendNote()));
        QVERIFY2(decode(c, {{"gen_length", "16"}, {"steps", "16"}, {"block_length", "16"}}), qPrintable(c.errorString()));
        const int steps = c.runs()->run()->stepCount();
        QVERIFY(steps > 0);
        const auto header = c.runs()->run()->history().header();

        QSignalSpy moved(c.model(), &ModelHost::modelChanged);
        c.model()->setBackend(QStringLiteral("cuda"));
        QCOMPARE(c.model()->backend(), QStringLiteral("cuda"));
        QVERIFY(c.model()->switchingBackend());
        QTRY_VERIFY_WITH_TIMEOUT(!c.model()->loading(), 60000);
        QVERIFY2(c.errorString().isEmpty(), qPrintable(c.errorString()));
        QVERIFY(c.model()->loaded());
        QVERIFY(moved.count() >= 1);
        if (c.model()->backendName() == QLatin1String("cuda")) {
            QVERIFY2(c.model()->backendNote().isEmpty(), qPrintable(c.model()->backendNote()));
        } else {
            QCOMPARE(c.model()->backendName(), QStringLiteral("cpu"));
            QVERIFY2(c.model()->backendNote().contains("CUDA") && c.model()->backendNote().contains("running on the CPU"),
                     qPrintable(c.model()->backendNote()));
            auto* note = w.find<QObject>("backendNote");
            QVERIFY(note);
            QTRY_VERIFY(note->property("visible").toBool());
            QCOMPARE(note->property("text").toString(), c.model()->backendNote());
        }
        // The run shown is the same run, and the model still decodes on the new backend.
        QCOMPARE(c.runs()->run()->stepCount(), steps);
        QVERIFY(c.runs()->run()->history().header() == header);
        QTRY_VERIFY_WITH_TIMEOUT(c.canRun(), 10000);
        QSignalSpy done(c.runs(), &RunController::runCompleted);
        c.runs()->runDecode();
        QVERIFY(done.wait(120000));
        QCOMPARE(done.at(0).at(0).toBool(), true);
        QCOMPARE(c.runs()->run()->history().header()->backend, c.model()->backendName().toStdString());

        // Back to the CPU by name: no note.
        c.model()->setBackend(QStringLiteral("cpu"));
        QTRY_VERIFY_WITH_TIMEOUT(!c.model()->loading(), 60000);
        QCOMPARE(c.model()->backendName(), QStringLiteral("cpu"));
        QVERIFY2(c.model()->backendNote().isEmpty(), qPrintable(c.model()->backendNote()));
        AppController::setInstance(nullptr);
    }

    // A published chat template the engine does not render exactly: the app says so where the
    // prompt is typed, the chat box cannot be ticked, and prompts go in raw. The embedded model's
    // own template is named under the box.
    void unrecognisedChatTemplateIsShown() {
        AppUnderTest app;
        QVERIFY(app.w.window);
        QVERIFY(loadModel(app.c));
        QVERIFY(app.c.model()->chatAvailable());
        QVERIFY2(app.c.model()->chatTemplateName().contains("dlmscope-tiny"), qPrintable(app.c.model()->chatTemplateName()));
        QVERIFY(app.c.model()->chatTemplateNote().isEmpty());
        QVERIFY(app.c.config()->chat());

        QTemporaryDir copy;
        for (const QString& f : QDir(modelDir()).entryList(QDir::Files)) QVERIFY(QFile::copy(modelDir() + "/" + f, copy.filePath(f)));
        QFile config(copy.filePath("tokenizer_config.json"));
        QVERIFY(config.open(QIODevice::ReadOnly));
        QJsonObject j = QJsonDocument::fromJson(config.readAll()).object();
        config.close();
        j["chat_template"] = QStringLiteral("{% for m in messages %}[{{ m.content }}]{% endfor %}");
        QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
        config.write(QJsonDocument(j).toJson());
        config.close();

        app.c.model()->load(copy.path());
        QTRY_VERIFY_WITH_TIMEOUT(!app.c.model()->loading(), 60000);
        QCOMPARE(app.c.model()->dir(), copy.path());
        QVERIFY(!app.c.model()->chatAvailable());
        QVERIFY(!app.c.config()->chat());
        QVERIFY2(app.c.model()->chatTemplateNote().contains("raw"), qPrintable(app.c.model()->chatTemplateNote()));
        auto* note = app.w.find<QQuickItem>("chatTemplateNote");
        QVERIFY(note);
        QTRY_VERIFY(note->isVisible());
        auto* box = app.w.find<QQuickItem>("chatCheck");
        QVERIFY(box);
        QVERIFY(!box->isEnabled());
    }

    // What a run warned of at its start stays in the status line when it is done: here Guided
    // Diffusion's guider, picked among the folders beside a model that has no tiny-ar.
    void aRunsWarningsStayInTheLastStatus() {
        AppController c(AppController::Options{false, false});
        AppController::setInstance(&c);
        QTemporaryDir models;
        for (const char* name : {"tiny-mdlm", "tiny-ar"}) {
            const QString from = QFileInfo(modelDir()).dir().filePath(name);
            const QString to = models.filePath(name == QStringLiteral("tiny-ar") ? "small-causal" : name);
            QVERIFY(QDir().mkpath(to));
            for (const QString& f : QDir(from).entryList(QDir::Files)) QVERIFY(QFile::copy(from + "/" + f, to + "/" + f));
        }
        c.model()->load(models.filePath("tiny-mdlm"));
        QTRY_VERIFY_WITH_TIMEOUT(!c.model()->loading(), 60000);
        QVERIFY2(c.model()->loaded(), qPrintable(c.errorString()));
        c.config()->useExample(1);  // a short canvas
        QVERIFY(decode(c, {{"strategy", "guided"}}));
        QVERIFY2(c.runs()->run()->complete(), qPrintable(c.errorString()));
        QVERIFY2(c.status().startsWith("Done: ") && c.status().contains("small-causal"), qPrintable(c.status()));
        AppController::setInstance(nullptr);
    }

    // A model's generation_config.json moves the defaults: settings still at the old default
    // follow, the user's own values stay, Defaults and the presets reset to the model's, the note
    // names them, and loading a model without the file moves them back.
    void modelDefaultsFromGenerationConfig() {
        AppUnderTest app;
        QVERIFY(app.w.window);
        QVERIFY(loadModel(app.c));
        QVERIFY(app.c.config()->modelDefaults().isEmpty());
        QVERIFY(app.c.config()->modelDefaultsNote().isEmpty());
        const QString schema_top_k = app.c.config()->settings().value("top_k").toString();
        app.c.config()->setSetting("top_p", "0.9");  // the user's: stays whatever the model says

        QTemporaryDir copy;
        for (const QString& f : QDir(modelDir()).entryList(QDir::Files)) QVERIFY(QFile::copy(modelDir() + "/" + f, copy.filePath(f)));
        QFile gen(copy.filePath("generation_config.json"));
        QVERIFY(gen.open(QIODevice::WriteOnly));
        gen.write(R"({"temperature": 0.5, "top_k": 7, "top_p": 0.8, "steps": 4096})");
        gen.close();
        app.c.model()->load(copy.path());
        QTRY_VERIFY_WITH_TIMEOUT(!app.c.model()->loading(), 60000);
        QCOMPARE(app.c.model()->dir(), copy.path());
        QCOMPARE(app.c.config()->settings().value("temperature").toString(), QStringLiteral("0.5"));
        QCOMPARE(app.c.config()->settings().value("top_k").toString(), QStringLiteral("7"));
        QCOMPARE(app.c.config()->settings().value("top_p").toString(), QStringLiteral("0.9"));
        QCOMPARE(app.c.config()->modelDefaults().value("top_p").toString(), QStringLiteral("0.8"));
        const QString note = app.c.config()->modelDefaultsNote();
        QVERIFY2(note.contains("temperature=0.5") && note.contains("top_k=7"), qPrintable(note));
        QVERIFY2(note.contains("steps=4096"), qPrintable(note));  // for a longer canvas: said, not used
        auto* label = app.w.find<QQuickItem>("modelDefaultsNote");
        QVERIFY(label);
        QTRY_VERIFY(label->isVisible());

        app.c.config()->setSetting("temperature", "1.5");
        app.c.config()->applyPreset(1);  // a preset resets what it does not name to the model's default
        QCOMPARE(app.c.config()->settings().value("temperature").toString(), QStringLiteral("0.5"));
        QCOMPARE(app.c.config()->presetIndex(), 1);
        app.c.config()->resetSettings();
        QCOMPARE(app.c.config()->settings().value("top_p").toString(), QStringLiteral("0.8"));

        QVERIFY(loadModel(app.c));  // back to a model without the file: back to the schema's
        QTRY_COMPARE_WITH_TIMEOUT(app.c.model()->dir(), modelDir(), 60000);
        QCOMPARE(app.c.config()->settings().value("top_k").toString(), schema_top_k);
        QVERIFY(app.c.config()->modelDefaultsNote().isEmpty());
    }

    void rejectsBadModelFolder() {
        AppController c(AppController::Options{false, false});
        QVERIFY(loadModel(c));
        // Invalid combinations are explained before Run, under the setting concerned.
        QTRY_VERIFY_WITH_TIMEOUT(c.canRun(), 10000);
        c.config()->setSetting("block_length", "7");  // the default canvas (160) is not a multiple of 7
        QTRY_VERIFY_WITH_TIMEOUT(!c.canRun(), 10000);
        QVERIFY2(c.config()->issueFor("block_length").contains("multiple"), qPrintable(c.config()->issueFor("block_length")));
        QCOMPARE(c.config()->issueSeverityFor("block_length"), QStringLiteral("error"));
        // Shown once, under its control: not again in the list of general problems.
        for (const auto& v : c.config()->generalIssues()) QVERIFY(v.toMap().value("key").toString() != "block_length");
        c.config()->setSetting("block_length", "32");
        QTRY_VERIFY_WITH_TIMEOUT(c.canRun(), 10000);
        // A warning reads as one (amber, "Warning:") and does not stop Run.
        c.config()->setSetting("temperature", "20");
        QTRY_COMPARE_WITH_TIMEOUT(c.config()->issueSeverityFor("temperature"), QStringLiteral("warning"), 10000);
        QVERIFY(c.canRun());
        c.config()->setSetting("temperature", "0");
        QTRY_VERIFY_WITH_TIMEOUT(c.config()->issueSeverityFor("temperature").isEmpty(), 10000);
        // An out-of-range value is kept and named as the error, and Defaults clears it.
        c.config()->setSetting("top_p", "2.5");
        QTRY_COMPARE_WITH_TIMEOUT(c.config()->issueSeverityFor("top_p"), QStringLiteral("error"), 10000);
        QCOMPARE(c.config()->settings().value("top_p").toString(), QStringLiteral("2.5"));
        QVERIFY(!c.canRun());
        c.config()->resetSettings();
        QTRY_VERIFY_WITH_TIMEOUT(c.canRun(), 10000);
        QVERIFY(c.config()->settings().value("top_p").toString() != QStringLiteral("2.5"));

        QTemporaryDir empty;
        c.model()->load(empty.path());
        QTRY_VERIFY_WITH_TIMEOUT(!c.model()->loading(), 30000);
        QVERIFY(!c.errorString().isEmpty());
        QVERIFY(c.model()->loaded());  // still on the previous model
        QCOMPARE(c.model()->name(), QStringLiteral("tiny-mdlm"));
    }

    // Connect to engine: a server's model behaves as the local one — the same run, step for step,
    // in the same window, with the connection shown.
    void remoteModelDecodesAsLocal() {
        AppUnderTest app;
        auto server = startServer();
        AppController& c = app.c;
        QVERIFY(loadModel(c));
        c.config()->useExample(1);
        QTRY_VERIFY_WITH_TIMEOUT(c.canRun(), 10000);
        QSignalSpy done(c.runs(), &RunController::runCompleted);
        c.runs()->runDecode();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 120000);
        const auto local = *c.runs()->run()->history().summary();
        const int localSteps = c.runs()->run()->stepCount();
        const QString localDir = c.model()->dir();
        QVERIFY(c.model()->otherModel().isEmpty());  // nothing else is held yet

        // As a user: Connect… opens the dialog; host and port typed, Connect, the list, Open.
        QObject* dialog = app.w.find<QObject>("connectDialog");
        QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
        QTRY_VERIFY(dialog->property("visible").toBool());
        app.w.find<QObject>("serverHost")->setProperty("text", "127.0.0.1");
        app.w.find<QObject>("serverPort")->setProperty("value", int(server->port()));
        QVERIFY(QMetaObject::invokeMethod(app.w.find<QObject>("serverConnect"), "clicked"));
        QTRY_VERIFY_WITH_TIMEOUT(!c.model()->connecting(), 10000);
        QVERIFY2(c.model()->serverError().isEmpty(), qPrintable(c.model()->serverError()));
        QCOMPARE(c.model()->serverModels(), QStringList{"tiny-mdlm"});
        QObject* modelBox = app.w.find<QObject>("serverModelBox");
        QTRY_COMPARE(modelBox->property("currentText").toString(), QStringLiteral("tiny-mdlm"));
        {  // the list names the server's models as written, in plain text
            QObject* popup = modelBox->property("popup").value<QObject*>();
            QVERIFY(QMetaObject::invokeMethod(popup, "open"));
            QTRY_VERIFY(popup->property("opened").toBool());
            QQuickItem* name = nullptr;
            QTRY_VERIFY((name = findItem(app.w.window->contentItem(), "serverModelName")));
            QCOMPARE(name->property("text").toString(), QStringLiteral("tiny-mdlm"));
            QCOMPARE(name->property("textFormat").toInt(), 0);  // Text.PlainText
            QVERIFY(QMetaObject::invokeMethod(popup, "close"));
            QTRY_VERIFY(!popup->property("visible").toBool());
        }
        // What the chosen model is, before it is opened: its summary and the server's backend.
        const QString detail = app.w.find<QObject>("serverModelDetail")->property("text").toString();
        QVERIFY2(detail.startsWith(QStringLiteral("llada · d=128")) && detail.endsWith(QStringLiteral(" · on cpu")), qPrintable(detail));
        QTest::qWait(200);
        app.w.window->grabWindow().save(outDir() + "/connect-dialog.png");
        QVERIFY(QMetaObject::invokeMethod(app.w.find<QObject>("serverOpen"), "clicked"));
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->property("visible").toBool(), 10000);  // closes once the model is open
        QTRY_VERIFY_WITH_TIMEOUT(!c.model()->loading(), 10000);
        QVERIFY(c.model()->loaded() && c.model()->remote());
        QCOMPARE(c.model()->dir(), QStringLiteral("ws://127.0.0.1:%1/tiny-mdlm").arg(server->port()));
        QVERIFY(app.w.find<QQuickItem>("connectionBadge")->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(c.canRun(), 10000);  // validated by the server
        c.runs()->runDecode();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 120000);
        QVERIFY2(done.last().first().toBool(), qPrintable(c.errorString()));
        const auto remote = *c.runs()->run()->history().summary();
        QCOMPARE(c.runs()->run()->stepCount(), localSteps);
        QCOMPARE(QString::fromStdString(remote.text), QString::fromStdString(local.text));
        QCOMPARE(remote.paper_flops, local.paper_flops);

        // Local against remote, side by side: the local folder is still held, so compare mode
        // can run B on it, with the same prompt, seed and settings.
        QCOMPARE(c.model()->otherModel(), localDir);
        QCOMPARE(c.model()->otherModelName(), QStringLiteral("tiny-mdlm (local)"));
        auto* onOther = app.w.find<QQuickItem>("compareOnOtherModel");
        QVERIFY(onOther->isVisible());
        onOther->setProperty("checked", true);
        QVERIFY(QMetaObject::invokeMethod(onOther, "toggled"));
        QVERIFY(c.runs()->compareOnOtherModel());
        c.config()->applyComparePreset(c.config()->presetIndex());
        c.runs()->runCompare();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 3, 120000);
        QVERIFY2(done.last().first().toBool(), qPrintable(c.errorString()));
        QCOMPARE(c.runs()->run()->source(), QStringLiteral("tiny-mdlm on ws://127.0.0.1:%1").arg(server->port()));
        QCOMPARE(c.runs()->compareRun()->source(), QStringLiteral("tiny-mdlm (local)"));
        QCOMPARE(c.runs()->compareRun()->stepCount(), localSteps);
        QCOMPARE(QString::fromStdString(c.runs()->compareRun()->history().summary()->text),
                 QString::fromStdString(local.text));
        QVERIFY(c.runs()->compareSummary().value("agree").toBool());
        QCOMPARE(c.runs()->compareSummary().value("settingChanges").toString(), QString());  // one preset, two sources
        QTest::qWait(300);
        app.w.window->grabWindow().save(outDir() + "/compare-local-remote.png");
        c.runs()->setCompareMode(false);

        // The server refuses what the engine refuses, before Run.
        c.config()->setSetting("surelock.no_such_parameter", "1");
        c.config()->setSetting("strategy", "surelock");
        QTRY_VERIFY_WITH_TIMEOUT(!c.canRun(), 10000);
    }

    // The server goes away mid-run: the steps received stay (and can be saved), the error says
    // what happened, and Reconnect is offered.
    void serverKilledMidRunKeepsTheSteps() {
        AppUnderTest app;
        auto server = startServer();
        AppController& c = app.c;
        c.model()->connectServer("127.0.0.1", server->port(), QString(), false);
        QTRY_VERIFY_WITH_TIMEOUT(!c.model()->serverModels().isEmpty(), 10000);
        c.model()->loadFromServer("tiny-mdlm");
        QTRY_VERIFY_WITH_TIMEOUT(c.model()->loaded(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(c.canRun(), 10000);
        c.config()->setSetting("gen_length", "256");
        c.config()->setSetting("steps", "256");
        c.runs()->runDecode();
        QTRY_VERIFY_WITH_TIMEOUT(c.runs()->run()->history().stepCount() >= 3, 60000);
        server.reset();  // killed
        QTRY_VERIFY_WITH_TIMEOUT(!c.runs()->running(), 10000);
        QVERIFY2(c.errorString().contains("lost the connection") || c.errorString().contains("server is gone"),
                 qPrintable(c.errorString()));
        QVERIFY(!c.model()->loaded());
        QVERIFY(c.model()->canReconnect());
        QTRY_VERIFY(app.w.find<QQuickItem>("reconnectButton")->isVisible());
        c.runs()->applyFrame();
        const int kept = c.runs()->run()->stepCount();
        QVERIFY(kept >= 3);
        const QString path = outDir() + "/partial-remote.ndjson";
        QVERIFY2(c.runs()->saveTrace(path), qPrintable(c.errorString()));
        QVERIFY(QFileInfo(path).size() > 0);
        QVERIFY(!c.canRun());
    }

    // Nothing listening at the address: the dialog says the connection was never made (not that
    // one was lost).
    void aServerThatIsNotThereIsSaidSo() {
        AppUnderTest app;
        QTcpServer probe;  // a port that was free a moment ago
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const quint16 port = probe.serverPort();
        probe.close();
        app.c.model()->connectServer("127.0.0.1", port, QString(), false);
        QTRY_VERIFY_WITH_TIMEOUT(!app.c.model()->connecting(), 10000);
        const QString error = app.c.model()->serverError();
        QVERIFY2(error.contains(QStringLiteral("could not connect to ws://127.0.0.1:%1").arg(port)), qPrintable(error));
        QVERIFY2(!error.contains("lost"), qPrintable(error));
        QVERIFY(app.c.model()->serverModels().isEmpty());
    }

    void wrongTokenIsRefusedWithTheReason() {
        AppUnderTest app;
        auto server = startServer(QStringLiteral("a-token-of-some-length"));
        app.c.model()->connectServer("127.0.0.1", server->port(), QStringLiteral("not-the-token-at-all"), false);
        QTRY_VERIFY_WITH_TIMEOUT(!app.c.model()->connecting(), 10000);
        QVERIFY2(app.c.model()->serverError().contains("token"), qPrintable(app.c.model()->serverError()));
        QVERIFY(app.c.model()->serverModels().isEmpty());
        app.c.model()->connectServer("127.0.0.1", server->port(), QStringLiteral("a-token-of-some-length"), false);
        QTRY_COMPARE_WITH_TIMEOUT(app.c.model()->serverModels(), QStringList{"tiny-mdlm"}, 10000);
    }

    // A server with its own self-signed certificate, made for another host name than the one
    // dialled: refused with the reason and the way out, then trusted once its certificate is
    // given, and a run decodes over wss://.
    void aSelfSignedServerIsTrustedByItsCertificate() {
        QTemporaryDir dir;
        const QString cert = dir.filePath("cert.pem"), key = dir.filePath("key.pem");
        const int rc = QProcess::execute("openssl", {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out",
                                                     cert, "-days", "1", "-subj", "/CN=gpu-box"});
        if (rc != 0) QSKIP("openssl could not make a test certificate (tools/dev.sh deps installs openssl)");
        const ServerOptions o = parseServerOptions({"dlmscope-server", "--model", modelDir(), "--tls-cert", cert, "--tls-key", key});
        QVERIFY2(o.error.isEmpty(), qPrintable(o.error));
        auto server = startServer({}, &o.security);
        AppUnderTest app;
        ModelHost* m = app.c.model();
        m->connectServer("127.0.0.1", server->port(), QString(), true);
        QTRY_VERIFY_WITH_TIMEOUT(!m->connecting(), 10000);
        QVERIFY2(m->serverError().contains("not trusted") && m->serverError().contains("Certificate"), qPrintable(m->serverError()));
        QVERIFY(m->serverModels().isEmpty());
        m->connectServer("127.0.0.1", server->port(), QString(), true, key);  // a key is no certificate
        QTRY_VERIFY_WITH_TIMEOUT(!m->connecting(), 10000);
        QVERIFY2(m->serverError().contains("no PEM certificate"), qPrintable(m->serverError()));
        m->connectServer("127.0.0.1", server->port(), QString(), true, cert);
        QTRY_COMPARE_WITH_TIMEOUT(m->serverModels(), QStringList{"tiny-mdlm"}, 10000);
        QCOMPARE(m->serverCertificate(), cert);
        m->loadFromServer(QStringLiteral("tiny-mdlm"));
        QTRY_VERIFY_WITH_TIMEOUT(m->loaded() && m->remote(), 10000);
        QVERIFY2(m->dir().startsWith("wss://"), qPrintable(m->dir()));
        QVERIFY2(decode(app.c, {{"gen_length", "16"}, {"steps", "16"}, {"block_length", "16"}}), qPrintable(app.c.errorString()));
        QVERIFY2(app.c.runs()->run()->complete() && app.c.errorString().isEmpty(), qPrintable(app.c.errorString()));
    }
};

int main(int argc, char** argv) {
    QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("dlmscope-tests"));  // Qt.labs.settings needs one
    QApplication::setApplicationName(QStringLiteral("dlmscope-tests"));
    AppE2ETest t;
    return QTest::qExec(&t, argc, argv);
}

#include "e2e_tests.moc"
