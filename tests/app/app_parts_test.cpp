// The app's GUI objects (ModelHost, DecodeConfig, RunController) wired as the App singleton wires
// them, against a fake engine that answers when the test says so: load tickets, cancelling,
// backend switching, validation order and compare pairing, without a model or a thread.
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app_controller.h"
#include "app_options.h"
#include "automation.h"
#include "run_view.h"
#include "fake_decode_engine.h"
#include "synthetic_run.h"
#include "decode/settings_schema.h"
#include "trace/trace_io.h"

namespace {

TraceSummaryPtr summaryOf(int steps) {
    auto s = std::make_shared<dlm::TraceSummary>();
    s->steps = steps;
    s->text = "42";
    return s;
}

}  // namespace

class AppPartsTest : public QObject {
    Q_OBJECT

    // Loads a model through the app and answers the load.
    static void loadInto(AppController& app, FakeDecodeEngine& e, const QString& name) {
        app.model()->load("/models/" + name);
        QVERIFY(!e.loads.isEmpty());
        Q_EMIT e.modelLoaded(e.loads.last().ticket, FakeDecodeEngine::model(name, e.loads.last().backend));
    }

    // Plays a synthetic run as the engine would for run `id`.
    static void playRun(FakeDecodeEngine& e, quint64 id, bool cancelled = false) {
        const SyntheticRun r = makeSyntheticRun(16, 4);
        Q_EMIT e.runStarted(id, r.header, {});
        for (const auto& s : r.steps) Q_EMIT e.stepReady(id, s);
        Q_EMIT e.runFinished(id, summaryOf(int(r.steps.size())), cancelled);
    }

private Q_SLOTS:
    // Qt's window-system options reach the QApplication instead of failing the app's own
    // parser ("Unknown options: p, l, a, ..."), with their values, in both spellings.
    void qtWindowSystemOptionsPassThrough() {
        AppOptions o = parseAppOptions({"dlmscope", "-platform", "offscreen", "--qwindowgeometry", "1280x760+0+0",
                                        "-reverse", "--autorun", "-m", "/models/x", "-display", ":1"});
        QVERIFY2(o.error.isEmpty(), qPrintable(o.error));
        QVERIFY(o.autorun);
        QCOMPARE(o.modelDir, QStringLiteral("/models/x"));
        QVERIFY(o.windowGeometryGiven);  // the window keeps that size, even with --no-restore
        QVERIFY(!parseAppOptions({"dlmscope", "--autorun"}).windowGeometryGiven);
        QCOMPARE(withoutQtWindowSystemOptions({"dlmscope", "-platform", "xcb", "--prompt", "What is 2 + 2?", "-sync"}),
                 (QStringList{"dlmscope", "--prompt", "What is 2 + 2?"}));
        // The app's own mistakes are still mistakes.
        o = parseAppOptions({"dlmscope", "-platform", "offscreen", "--bogus"});
        QVERIFY2(o.error.contains("bogus"), qPrintable(o.error));
    }

    // --save-animation's choices become exportAnimation's options; nonsense is refused before the
    // window opens, saying what is expected.
    void animationChoicesFromTheCommandLine() {
        auto parsed = [](QStringList extra) {
            return parseAppOptions(QStringList{"dlmscope", "--save-animation", "d.png"} + extra);
        };
        AppOptions o = parsed({"--animation-steps", "20-60", "--animation-speed", "2.5", "--animation-scale", "1"});
        QVERIFY2(o.error.isEmpty(), qPrintable(o.error));
        QCOMPARE(o.animationOptions, (QVariantMap{{"from", 20}, {"to", 60}, {"stepsPerSecond", 2.5}, {"scale", 1}}));
        QCOMPARE(parsed({"--animation-steps", "7-"}).animationOptions, (QVariantMap{{"from", 7}}));  // to the end
        QCOMPARE(parsed({"--animation-steps", "0"}).animationOptions, (QVariantMap{{"from", 0}, {"to", 0}}));
        QVERIFY(parsed({}).animationOptions.isEmpty());
        const std::vector<std::pair<QStringList, QString>> refused{
            {{"--animation-steps", "60-20"}, "the last step comes before the first"},
            {{"--animation-steps", "-5"}, "expects FROM-TO"},
            {{"--animation-steps", "1-2-3"}, "expects FROM-TO"},
            {{"--animation-speed", "0"}, "0.5 to 240"},
            {{"--animation-speed", "fast"}, "0.5 to 240"},
            {{"--animation-scale", "3"}, "1 or 2"},
        };
        for (const auto& [args, says] : refused) {
            const QString error = parsed(args).error;
            QVERIFY2(error.contains(says), qPrintable(args.join(' ') + ": " + error));
        }
        const QString alone = parseAppOptions({"dlmscope", "--animation-steps", "2-4"}).error;
        QVERIFY2(alone.contains("go with --save-animation"), qPrintable(alone));
    }

    // --preset and --compare-preset take the names the preset box and the CLI's --preset take;
    // --set changes the preset further, and an unknown name is refused with the list.
    void aPresetByNameFromTheCommandLine() {
        AppOptions o = parseAppOptions({"dlmscope", "--preset", "surelock + UNLOCKING", "--set", "surelock.epsilon=1e-3",
                                        "--compare-preset", "Fast-dLLM dual cache"});
        QVERIFY2(o.error.isEmpty(), qPrintable(o.error));
        const auto& presets = dlm::strategy_presets();
        QCOMPARE(QString::fromStdString(presets[size_t(o.preset)].name), QStringLiteral("SureLock + unlocking"));
        QCOMPARE(QString::fromStdString(presets[size_t(o.comparePreset)].name), QStringLiteral("Fast-dLLM dual cache"));
        const AppOptions bad = parseAppOptions({"dlmscope", "--preset", "SureLok"});
        QVERIFY2(bad.error.contains("--preset: no preset 'SureLok'") && bad.error.contains("SureLock + unlocking"),
                 qPrintable(bad.error));

        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        Automation automation(&app, nullptr, o);
        automation.start(QStringLiteral("/models/tiny"));
        const QVariantMap a = app.config()->settings(), b = app.config()->compareSettings();
        QCOMPARE(a.value("strategy").toString(), QStringLiteral("surelock"));
        QCOMPARE(a.value("surelock.unlock").toString(), QStringLiteral("on"));
        QCOMPARE(a.value("surelock.epsilon").toString(), QStringLiteral("1e-3"));
        QCOMPARE(b.value("strategy").toString(), QStringLiteral("fast-dllm"));
        QCOMPARE(b.value("gen_length"), a.value("gen_length"));
        QVERIFY(!b.contains("surelock.unlock"));
        QCOMPARE(app.config()->comparePresetIndex(), o.comparePreset);
    }

    // A run's title names its preset as the preset box does; settings of no preset keep the
    // strategy with what differs from its defaults.
    void aRunOfAPresetIsTitledByItsName() {
        auto header = [](const std::map<std::string, std::string>& requested) {
            auto h = std::make_shared<dlm::TraceHeader>();
            h->model = "tiny-mdlm";
            h->family = "llada";
            h->strategy = requested.at("strategy");
            h->settings = h->requested = requested;
            return h;
        };
        const auto unlocking = dlm::apply_preset(dlm::default_settings(), *dlm::find_strategy_preset("SureLock + unlocking"));
        RunView run;
        run.begin(header(unlocking));
        QCOMPARE(run.strategyLabel(), QStringLiteral("SureLock + unlocking"));
        QCOMPARE(run.title(), QStringLiteral("tiny-mdlm · SureLock + unlocking"));
        auto tuned = unlocking;
        tuned["surelock.epsilon"] = "0.001";
        RunView custom;
        custom.begin(header(tuned));
        QCOMPARE(custom.strategyLabel(), QStringLiteral("SureLock + unlocking (epsilon=0.001)"));
        // On a model whose generation_config.json sets the sampling (Dream: temperature 0.2,
        // top-p 0.95) the preset box applies SureLock over those; the run is titled as the box names it.
        const std::map<std::string, std::string> dream = {{"temperature", "0.2"}, {"top_p", "0.95"}};
        auto onDream = header(dlm::apply_preset(dlm::default_settings(), *dlm::find_strategy_preset("SureLock"), dream));
        onDream->family = "dream";
        onDream->model_defaults = dream;
        RunView dreamRun;
        dreamRun.begin(onDream);
        QCOMPARE(dreamRun.strategyLabel(), QStringLiteral("SureLock"));
    }

    void aSupersededLoadIsIgnored() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        app.model()->load("/models/first");
        app.model()->load("/models/second");
        QCOMPARE(e.loads.size(), 2);
        // The first load answers after the second was asked for: it must not win.
        Q_EMIT e.modelLoaded(e.loads[0].ticket, FakeDecodeEngine::model("first"));
        QVERIFY(!app.model()->loaded());
        QVERIFY(app.model()->loading());
        Q_EMIT e.modelLoadFailed(e.loads[0].ticket, "late failure");
        QVERIFY(app.errorString().isEmpty());
        Q_EMIT e.modelLoaded(e.loads[1].ticket, FakeDecodeEngine::model("second"));
        QVERIFY(app.model()->loaded());
        QVERIFY(!app.model()->loading());
        QCOMPARE(app.model()->name(), QStringLiteral("second"));
        QVERIFY(app.canRun() || !e.validations.isEmpty());  // the settings go to the new model
    }

    void cancellingALoadKeepsTheModel() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "kept");
        app.model()->load("/models/slow");
        const quint64 slow = e.loads.last().ticket;
        QVERIFY(!app.canRun());  // nothing runs while a load is under way
        app.model()->cancelLoad();
        QCOMPARE(e.cancelledLoads, QVector<quint64>{slow});
        QVERIFY(!app.model()->loading());
        // The engine finished the load just before it saw the cancel: still stale.
        Q_EMIT e.modelLoaded(slow, FakeDecodeEngine::model("slow"));
        QCOMPARE(app.model()->name(), QStringLiteral("kept"));
        QVERIFY(app.status().contains("kept"));
    }

    void aFailedLoadKeepsTheModelAndSaysWhy() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "kept");
        app.model()->load("/models/broken");
        Q_EMIT e.modelLoadFailed(e.loads.last().ticket, "config.json: unknown architecture");
        QVERIFY(app.model()->loaded());
        QCOMPARE(app.model()->name(), QStringLiteral("kept"));
        QVERIFY2(app.errorString().contains("unknown architecture"), qPrintable(app.errorString()));
    }

    // The banner's message belongs to the part that put it there: a run clears the last run's
    // error, not why a model failed to open; a new load attempt clears that.
    void eachPartClearsOnlyItsOwnError() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "kept");
        Q_EMIT e.validated(e.validations.last(), {});
        app.model()->load("/models/broken");
        Q_EMIT e.modelLoadFailed(e.loads.last().ticket, "config.json: unknown architecture");
        app.runs()->runDecode();
        QCOMPARE(e.runs.size(), 1);
        QVERIFY2(app.errorString().contains("unknown architecture"), qPrintable(app.errorString()));
        Q_EMIT e.runFailed(e.runs.last().id, QStringLiteral("prompt too long"));
        QVERIFY2(app.errorString().contains("prompt too long"), qPrintable(app.errorString()));
        app.runs()->runDecode();  // the next run: the last run's error no longer applies
        QCOMPARE(app.errorString(), QString());
        app.model()->load("/models/broken");
        Q_EMIT e.modelLoadFailed(e.loads.last().ticket, "config.json: unknown architecture");
        QVERIFY(!app.errorString().isEmpty());
        app.model()->load("/models/other");  // a new attempt
        QCOMPARE(app.errorString(), QString());
        app.reportError(QStringLiteral("from the window"));
        app.clearError();  // Dismiss clears any
        QCOMPARE(app.errorString(), QString());
    }

    void switchingTheBackendMovesTheModel() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        app.model()->setBackend("cuda");
        loadInto(app, e, "m");
        QCOMPARE(e.loads.last().backend, QStringLiteral("cuda"));
        QCOMPARE(app.model()->backendName(), QStringLiteral("cuda"));
        // cuda -> auto on a GPU: the model already runs there, nothing moves.
        app.model()->setBackend("auto");
        QCOMPARE(e.loads.size(), 1);
        app.model()->setBackend("cpu");
        QCOMPARE(e.loads.size(), 2);
        QVERIFY(e.loads.last().switching);
        QVERIFY(app.model()->switchingBackend());
        app.model()->cancelLoad();  // a switch cannot be cancelled
        QVERIFY(e.cancelledLoads.isEmpty());
        Q_EMIT e.modelLoaded(e.loads.last().ticket, FakeDecodeEngine::model("m", "cpu"));
        QCOMPARE(app.model()->backendName(), QStringLiteral("cpu"));
        QVERIFY(app.status().contains("CPU"));
        // A switch that leaves no backend closes the model and says so.
        app.model()->setBackend("cuda");
        Q_EMIT e.modelLoadFailed(e.loads.last().ticket, "out of device memory (the model was closed)");
        QVERIFY(!app.model()->loaded());
        QVERIFY(!app.canRun());
        QVERIFY2(app.errorString().contains("CUDA"), qPrintable(app.errorString()));
        // An unknown choice is refused with the choices.
        app.model()->setBackend("tpu");
        QVERIFY(app.errorString().contains("auto, cpu and cuda"));
        QCOMPARE(app.model()->backend(), QStringLiteral("cuda"));
    }

    void changingTheBackendDuringALoadRestartsIt() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        app.model()->load("/models/m");
        app.model()->setBackend("cpu");
        QCOMPARE(e.loads.size(), 2);
        QCOMPARE(e.loads[1].dir, QStringLiteral("/models/m"));
        QCOMPARE(e.loads[1].backend, QStringLiteral("cpu"));
        QVERIFY(!e.loads[1].switching);
        Q_EMIT e.modelLoaded(e.loads[0].ticket, FakeDecodeEngine::model("m", "auto"));
        QVERIFY(!app.model()->loaded());
    }

    void onlyTheNewestValidationCounts() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        QVERIFY(!e.validations.isEmpty());
        const quint64 old = e.validations.last();
        app.config()->setSetting("gen_length", "4096");
        QTRY_VERIFY(e.validations.last() != old);  // a moment after the edit
        const quint64 now = e.validations.last();
        Q_EMIT e.validated(now, QVariantList{QVariantMap{{"severity", "error"}, {"key", "gen_length"}, {"message", "too long"}}});
        QVERIFY(!app.canRun());
        QCOMPARE(app.config()->issueFor("gen_length"), QStringLiteral("too long"));
        Q_EMIT e.validated(old, QVariantList{});  // stale: the old settings were fine
        QVERIFY(!app.canRun());
        Q_EMIT e.validated(now, QVariantList{});
        QVERIFY(app.canRun());
    }

    void stepsFollowTheCanvasWhileTheyEqualIt() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        DecodeConfig* c = app.config();
        c->setSetting("gen_length", "160");
        c->setSetting("steps", "160");
        c->setSetting("gen_length", "48");  // e.g. --set gen_length=48 at launch
        QCOMPARE(c->settings().value("steps").toString(), QStringLiteral("48"));
        c->setSetting("steps", "24");  // the user's own step count stays
        c->setSetting("gen_length", "96");
        QCOMPARE(c->settings().value("steps").toString(), QStringLiteral("24"));
        QCOMPARE(c->settings().value("gen_length").toString(), QStringLiteral("96"));
    }

    // Another strategy's parameters stay in the panel for when that strategy comes back, but a run
    // and its validation send only what the chosen strategy reads.
    void aRunSendsOnlyItsStrategysParameters() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        DecodeConfig* c = app.config();
        c->setSetting("strategy", "surelock");
        c->setSetting("surelock.epsilon", "1e-3");
        c->setSetting("strategy", "fast-dllm");
        c->setSetting("threshold.tau", "0.7");
        QCOMPARE(c->settings().value("surelock.epsilon").toString(), QStringLiteral("1e-3"));
        QTRY_COMPARE(e.lastValidated.value("threshold.tau").toString(), QStringLiteral("0.7"));
        QVERIFY(!e.lastValidated.contains("surelock.epsilon"));
        app.runs()->runDecode();
        QCOMPARE(e.runs.size(), 1);
        const QVariantMap sent = e.runs[0].settings;
        QCOMPARE(sent.value("strategy").toString(), QStringLiteral("fast-dllm"));
        QCOMPARE(sent.value("threshold.tau").toString(), QStringLiteral("0.7"));
        QVERIFY(!sent.contains("surelock.epsilon"));
        QCOMPARE(sent.value("gen_length"), c->settings().value("gen_length"));
        // A key no strategy declares is sent all the same, for the engine to refuse.
        c->setSetting("surelock.bogus", "3");
        QTRY_COMPARE(e.lastValidated.value("surelock.bogus").toString(), QStringLiteral("3"));
    }

    // The heatmaps' and the inspector's ε line: the ε the panel gives; else the shown run's, its
    // strategy's default when the run gave none (the default preset gives none); none where the
    // strategy does not lock.
    void theEpsilonLineFollowsTheStrategyThatLocks() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        DecodeConfig* c = app.config();
        c->setSetting("strategy", "surelock");
        QCOMPARE(app.runs()->epsilon(), 0.005);  // no run yet: the panel's default
        app.runs()->runDecode();
        playRun(e, e.runs.last().id);  // a SureLock run at 5e-4
        QCOMPARE(app.runs()->epsilon(), 5e-4);
        c->setSetting("surelock.epsilon", "1e-3");  // tuning by eye over the shown run
        QCOMPARE(app.runs()->epsilon(), 1e-3);
        c->setSetting("strategy", "fast-dllm");  // the panel does not lock: the run's
        QCOMPARE(app.runs()->epsilon(), 5e-4);
        c->setSetting("strategy", "surelock+selection");
        QCOMPARE(app.runs()->epsilon(), 1e-3);
    }

    // A trace the CLI wrote with `--strategy baseline` asked for sampler=auto: on a LLaDA model that
    // is the "LLaDA low-confidence" preset, and the panel says so rather than "Custom"; on a Dream
    // model the same request runs Dream's sampler, which is the "Dream entropy" preset.
    void anAutoSamplerTraceOpensUnderThePresetItDecodedAs() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        DecodeConfig* c = app.config();
        int lowConfidence = -1;
        for (int i = 0; i < c->presets().size(); ++i)
            if (c->presets()[i].toMap().value("name").toString() == QStringLiteral("LLaDA low-confidence")) lowConfidence = i;
        QVERIFY(lowConfidence >= 0);
        dlm::TraceHeader h;
        h.family = "llada";
        h.prompt = "What is 2 + 2?";
        h.requested = {{"strategy", "baseline"}, {"gen_length", "48"}, {"steps", "48"}};
        c->adoptTrace(h);  // no model loaded: the trace's family says what auto ran as
        QCOMPARE(c->presetIndex(), lowConfidence);
        QVERIFY(c->presetDifferences().isEmpty());

        loadInto(app, e, "m");  // a LLaDA model: the same
        c->adoptTrace(h);
        QCOMPARE(c->presetIndex(), lowConfidence);

        ModelInfo dream = FakeDecodeEngine::model("d");
        dream.family = "dream";
        app.model()->load("/models/d");
        Q_EMIT e.modelLoaded(e.loads.last().ticket, dream);
        c->adoptTrace(h);  // Run decodes it with Dream's own sampler, entropy first: that preset
        QCOMPARE(c->presets()[c->presetIndex()].toMap().value("name").toString(), QStringLiteral("Dream entropy"));
    }

    // Settings saved by another version keep what this one declares; a key it does not know has
    // no control to clear it and would be refused by the engine, so it is dropped.
    void restoredSettingsKeepOnlyDeclaredKeys() {
        QTemporaryDir dir;
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
        QSettings().setValue("decode/settings", QVariantMap{{"surelock.epsilon", "1e-3"},
                                                            {"surelock.retired_knob", "1"},
                                                            {"retired_setting", "2"}});
        FakeDecodeEngine e;
        AppController app({true, true}, &e);
        const QVariantMap s = app.config()->settings();
        QCOMPARE(s.value("surelock.epsilon").toString(), QStringLiteral("1e-3"));
        QVERIFY(!s.contains("surelock.retired_knob"));
        QVERIFY(!s.contains("retired_setting"));
        QSettings().clear();
    }

    // A launch without --model reopens the last session's local model, unless --no-restore; the
    // embedded one is the fallback when that folder no longer holds a checkpoint (or fails).
    void theLastModelIsReopenedUnlessNotRestoring() {
        QTemporaryDir dir, last;
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
        QFile config(last.filePath("config.json"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.close();
        QSettings().setValue("model/dir", last.path());
        QSettings().setValue("model/backend", "cpu");
        QSettings().setValue("server/port", 9999);
        QSettings().setValue("replay/speed", 7.0);
        FakeDecodeEngine e;
        {
            AppController app({true, true}, &e);
            QCOMPARE(app.model()->savedModelDir(), last.path());
            QCOMPARE(app.model()->backend(), QStringLiteral("cpu"));
            QCOMPARE(app.model()->serverPort(), 9999);
            QCOMPARE(app.runs()->replaySpeed(), 7.0);
        }
        {
            AppController fresh({true, false}, &e);  // --no-restore: nothing of the last session
            QVERIFY(fresh.model()->savedModelDir().isEmpty());
            QCOMPARE(fresh.model()->backend(), QStringLiteral("auto"));
            QVERIFY(fresh.model()->serverPort() != 9999);
            QVERIFY(fresh.runs()->replaySpeed() != 7.0);
        }
        {  // saved absolute: the next launch may start from another working directory
            AppController app({true, false}, &e);
            app.model()->load(QStringLiteral("models/relative"));
            ModelInfo relative = FakeDecodeEngine::model(QStringLiteral("relative"));
            relative.dir = QStringLiteral("models/relative");
            Q_EMIT e.modelLoaded(e.loads.last().ticket, relative);
            QTRY_VERIFY(app.model()->loaded());
            QCOMPARE(QSettings().value("model/dir").toString(), QDir::current().absoluteFilePath("models/relative"));
        }
        QSettings().clear();

        const QString embedded = QStringLiteral("/embedded/tiny-mdlm");
        AppOptions o;
        StartupModel m = startupModel(o, last.path(), embedded);
        QCOMPARE(m.dir, last.path());
        QCOMPARE(m.fallback, embedded);
        o.fresh = true;
        QCOMPARE(startupModel(o, last.path(), embedded).dir, embedded);
        o.fresh = false;
        o.modelDir = QStringLiteral("/given");
        m = startupModel(o, last.path(), embedded);
        QCOMPARE(m.dir, QStringLiteral("/given"));
        QVERIFY(m.fallback.isEmpty());
        o.modelDir.clear();
        QVERIFY(QFile::remove(last.filePath("config.json")));  // the folder is no checkpoint now
        m = startupModel(o, last.path(), embedded);
        QCOMPARE(m.dir, embedded);
        QVERIFY(m.fallback.isEmpty());
    }

    // The last session's model failing to open, the embedded one opens instead, once, with the
    // reason still in the banner; an automated launch goes on with it rather than ending.
    void aFailedLastModelFallsBackToTheEmbeddedOne() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        AppOptions o;
        o.quitWhenDone = true;
        Automation automation(&app, nullptr, o);
        automation.start(QStringLiteral("/models/gone"), QStringLiteral("/models/tiny"));
        QCOMPARE(e.loads.size(), 1);
        Q_EMIT e.modelLoadFailed(e.loads.last().ticket, QStringLiteral("config.json: no such file"));
        QCOMPARE(e.loads.size(), 2);
        QCOMPARE(e.loads.last().dir, QStringLiteral("/models/tiny"));
        QVERIFY2(app.errorString().contains("no such file"), qPrintable(app.errorString()));
        QVERIFY2(app.errorString().contains("/models/gone") && app.errorString().contains("tiny was opened instead"),
                 qPrintable(app.errorString()));
        Q_EMIT e.modelLoadFailed(e.loads.last().ticket, QStringLiteral("broken too"));
        QCOMPARE(e.loads.size(), 2);  // once
    }

    // An automatic run (--autorun) after the fallback keeps the banner saying why.
    void theFallbackReasonOutlivesTheFirstRun() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        AppOptions o;
        o.autorun = true;
        Automation automation(&app, nullptr, o);
        automation.start(QStringLiteral("/models/gone"), QStringLiteral("/models/tiny"));
        Q_EMIT e.modelLoadFailed(e.loads.last().ticket, QStringLiteral("config.json: no such file"));
        Q_EMIT e.modelLoaded(e.loads.last().ticket, FakeDecodeEngine::model("tiny"));
        QCOMPARE(e.runs.size(), 1);
        QVERIFY2(app.errorString().contains("no such file"), qPrintable(app.errorString()));
        QVERIFY2(app.errorString().contains("/models/gone"), qPrintable(app.errorString()));
    }

    // A load error that names the folder is not followed by the folder again.
    void theFallbackMessageNamesTheFolderOnce() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        Automation automation(&app, nullptr, AppOptions{});
        automation.start(QStringLiteral("/models/gone"), QStringLiteral("/models/tiny"));
        Q_EMIT e.modelLoadFailed(e.loads.last().ticket, QStringLiteral("/models/gone/config.json: no such file"));
        const QString shown = app.errorString();
        QCOMPARE(shown.count(QStringLiteral("/models/gone")), 1);
        QVERIFY2(shown.contains("the last session's model") && shown.contains("tiny was opened instead"), qPrintable(shown));
    }

    // A run of one step (Fast-dLLM may commit a short answer at once) is "1 step", not "1 steps".
    void aOneStepRunIsCountedInTheSingular() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        Q_EMIT e.validated(e.validations.last(), {});
        app.runs()->runDecode();
        QCOMPARE(e.runs.size(), 1);
        const SyntheticRun r = makeSyntheticRun(16, 1);
        Q_EMIT e.runStarted(e.runs[0].id, r.header, {});
        Q_EMIT e.stepReady(e.runs[0].id, r.steps[0]);
        Q_EMIT e.runFinished(e.runs[0].id, summaryOf(1), false);
        QVERIFY2(app.status().startsWith("Done: 1 step, "), qPrintable(app.status()));
    }

    // A connection that fails leaves the status line saying so, not "Connecting…".
    void aFailedConnectionEndsTheConnectingStatus() {
        FakeDecodeEngine e;  // answers every connection with a failure
        AppController app({false, false}, &e);
        loadInto(app, e, QStringLiteral("tiny"));
        app.model()->connectServer(QStringLiteral("127.0.0.1"), 8765, {}, false);
        QVERIFY(!app.model()->serverError().isEmpty());
        QCOMPARE(app.status(), QStringLiteral("Not connected; still on tiny"));
    }

    // A value saved while it was the loaded model's default (Dream's alg) is not restored as a
    // choice: the model loaded next gives its own; what the user set is kept.
    void aSavedModelDefaultIsNotRestoredAsAChoice() {
        QTemporaryDir dir;
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
        QSettings().setValue("decode/settings", QVariantMap{{"alg", "maskgit_plus"}, {"temperature", "0.7"}, {"strategy", "surelock"}});
        QSettings().setValue("decode/defaults", QVariantMap{{"alg", "maskgit_plus"}, {"temperature", "0"}});
        FakeDecodeEngine e;
        AppController app({true, true}, &e);
        QCOMPARE(app.config()->settings().value("alg").toString(), QStringLiteral("entropy"));
        QCOMPARE(app.config()->settings().value("temperature").toString(), QStringLiteral("0.7"));
        QSettings().clear();
    }

    // B differs from A in its strategy: A's block length edited after B's preset was picked is
    // B's too, unless B's preset names its own (Fast-dLLM's 32) or B was given one.
    void compareRunBFollowsABlockLengthUnlessItHasItsOwn() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        Q_EMIT e.validated(e.validations.last(), {});
        DecodeConfig* c = app.config();
        const auto presetNamed = [c](const QString& name) {
            for (int i = 0; i < c->presets().size(); ++i)
                if (c->presets()[i].toMap().value("name").toString() == name) return i;
            return -1;
        };
        c->setSetting("gen_length", "160");
        c->applyComparePreset(presetNamed("SureLock"));
        c->setSetting("block_length", "32");
        QCOMPARE(c->alignCompareToRun().value("block_length").toString(), QStringLiteral("32"));
        QCOMPARE(c->comparePresetIndex(), presetNamed("SureLock"));

        c->setSetting("block_length", "0");
        c->applyComparePreset(presetNamed("Fast-dLLM dual cache"));
        c->setSetting("block_length", "80");
        QCOMPARE(c->alignCompareToRun().value("block_length").toString(), QStringLiteral("32"));

        c->applyComparePreset(presetNamed("SureLock"));
        c->setCompareSetting("block_length", "40");
        c->setSetting("block_length", "16");
        QCOMPARE(c->alignCompareToRun().value("block_length").toString(), QStringLiteral("40"));
    }

    void aCompareRunsBAfterAWithTheSameSeedAndCanvas() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        Q_EMIT e.validated(e.validations.last(), {});
        app.config()->setSetting("seed", "7");
        app.config()->setCompareSetting("seed", "99");
        app.config()->setCompareSetting("block_length", "30");
        QSignalSpy done(app.runs(), &RunController::runCompleted);
        app.runs()->runCompare();
        QVERIFY(app.runs()->compareMode());
        QCOMPARE(e.runs.size(), 1);  // A first, alone
        const QVariantMap a = e.runs[0].settings;
        playRun(e, e.runs[0].id);
        QCOMPARE(done.count(), 0);  // the pair is not complete yet
        QCOMPARE(e.runs.size(), 2);
        const QVariantMap b = e.runs[1].settings;
        QCOMPARE(b.value("seed").toString(), QStringLiteral("7"));
        QCOMPARE(b.value("gen_length"), a.value("gen_length"));
        QCOMPARE(b.value("steps"), a.value("steps"));
        QVERIFY(a.value("gen_length").toInt() % b.value("block_length").toInt() == 0);  // B's blocks tile A's canvas
        QCOMPARE(b.value("strategy"), app.config()->compareSettings().value("strategy"));
        QCOMPARE(e.runs[1].prompt, e.runs[0].prompt);
        playRun(e, e.runs[1].id);
        QCOMPARE(done.count(), 1);
        QVERIFY(done.first().first().toBool());
        QVERIFY(!app.runs()->running());
        QVERIFY(app.runs()->run()->complete() && app.runs()->compareRun()->complete());
        QVERIFY(!app.runs()->compareSummary().isEmpty());

        // Saving keeps both sides: B beside A's file.
        QTemporaryDir out;
        QVERIFY(app.runs()->saveTrace(out.filePath("pair.ndjson")));
        QVERIFY(app.runs()->exportCsv(out.filePath("pair.csv")));
        for (const char* f : {"pair.ndjson", "pair-B.ndjson", "pair.csv", "pair-B.csv"})
            QVERIFY2(QFileInfo::exists(out.filePath(f)), f);
        QCOMPARE(app.status(), QStringLiteral("Exported the steps of A to %1 and B to %2").arg(out.filePath("pair.csv"), out.filePath("pair-B.csv")));

        // ...and open again as the pair; B's file alone, or A's without a readable B, as one run.
        AppController later({false, false}, &e);
        later.config()->setCompareSetting("strategy", "wino");  // B's panel takes B's trace...
        later.config()->setCompareSetting("surelock.unlock", "on");  // ...whole: nothing kept from before
        QVERIFY(later.runs()->openTrace(out.filePath("pair.ndjson")));
        QVERIFY(later.runs()->compareMode());
        QCOMPARE(later.config()->compareSettings().value("strategy").toString(),
                 QString::fromStdString(later.runs()->compareRun()->history().header()->strategy));
        QVERIFY(!later.config()->compareSettings().contains("surelock.unlock"));
        QVERIFY(later.runs()->compareRun()->complete());
        QCOMPARE(later.runs()->compareRun()->stepCount(), app.runs()->compareRun()->stepCount());
        QVERIFY(!later.runs()->compareSummary().isEmpty());
        QVERIFY(later.runs()->openTrace(out.filePath("pair-B.ndjson")));
        QVERIFY(!later.runs()->compareMode());
        QFile broken(out.filePath("pair-B.ndjson"));
        QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
        broken.write("{not a trace");
        broken.close();
        QVERIFY(later.runs()->openTrace(out.filePath("pair.ndjson")));
        QVERIFY(!later.runs()->compareMode());
        QVERIFY2(later.errorString().contains("pair-B.ndjson"), qPrintable(later.errorString()));
    }

    void bRunsOnTheOtherModelWhenAsked() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        Q_EMIT e.validated(e.validations.last(), {});
        app.runs()->setCompareOnOtherModel(true);
        // No other model held: B runs where A does.
        app.runs()->runCompare();
        playRun(e, e.runs[0].id);
        QCOMPARE(e.runs.size(), 2);
        QVERIFY(!e.runs[1].onOtherModel);
        playRun(e, e.runs[1].id);
        // The engine holds a server model too: B goes there, A stays on the loaded model.
        Q_EMIT e.otherModelChanged("ws://gpu-box:8765/m2");
        QCOMPARE(app.model()->otherModelName(), QStringLiteral("m2 on ws://gpu-box:8765"));
        app.runs()->runCompare();
        QVERIFY(!e.runs[2].onOtherModel);
        QCOMPARE(app.runs()->run()->source(), QStringLiteral("m (local)"));
        playRun(e, e.runs[2].id);
        QCOMPARE(e.runs.size(), 4);
        QVERIFY(e.runs[3].onOtherModel);
        QCOMPARE(e.runs[3].settings.value("seed"), e.runs[2].settings.value("seed"));
        QCOMPARE(app.runs()->compareRun()->source(), QStringLiteral("m2 on ws://gpu-box:8765"));
        QVERIFY(app.status().contains("m2 on ws://gpu-box:8765"));
        playRun(e, e.runs[3].id);
        // Unticked, B is back on the loaded model.
        app.runs()->setCompareOnOtherModel(false);
        app.runs()->runCompare();
        playRun(e, e.runs[4].id);
        QVERIFY(!e.runs[5].onOtherModel);
        // Models named after their Hugging Face repository keep the whole id, served or local.
        Q_EMIT e.otherModelChanged("ws://gpu-box:8765/GSAI-ML/LLaDA-8B-Instruct");
        QCOMPARE(app.model()->otherModelName(), QStringLiteral("GSAI-ML/LLaDA-8B-Instruct on ws://gpu-box:8765"));
        Q_EMIT e.otherModelChanged("/hub/models--GSAI-ML--LLaDA-8B-Instruct/snapshots/08b83a6");
        QCOMPARE(app.model()->otherModelName(), QStringLiteral("GSAI-ML/LLaDA-8B-Instruct (local)"));
        // The other model went away (its server closed): nothing to offer.
        Q_EMIT e.otherModelChanged(QString());
        QVERIFY(app.model()->otherModelName().isEmpty());
    }

    void stoppingAStopsThePair() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        app.runs()->runCompare();
        app.runs()->stop();
        QCOMPARE(e.cancels, 1);
        playRun(e, e.runs[0].id, /*cancelled=*/true);
        QCOMPARE(e.runs.size(), 1);  // no B after a stopped A
        QVERIFY(!app.runs()->running());
        QVERIFY(app.status().startsWith("Stopped"));
    }

    void aFailedRunEndsThePairWithItsError() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        QSignalSpy done(app.runs(), &RunController::runCompleted);
        app.runs()->runCompare();
        Q_EMIT e.runFailed(e.runs[0].id, "prompt too long");
        QCOMPARE(e.runs.size(), 1);
        QCOMPARE(done.count(), 1);
        QVERIFY(!done.first().first().toBool());
        QCOMPARE(app.errorString(), QStringLiteral("prompt too long"));
        QVERIFY(!app.runs()->running());
    }

    void answersForARunNoLongerShownAreDropped() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        app.runs()->runDecode();
        const quint64 first = e.runs.last().id;
        app.runs()->runDecode();  // Run again before the first answered
        const SyntheticRun r = makeSyntheticRun(16, 4);
        Q_EMIT e.runStarted(first, r.header, {});
        Q_EMIT e.stepReady(first, r.steps[0]);
        Q_EMIT e.runFinished(first, summaryOf(1), false);
        playRun(e, e.runs.last().id);
        app.runs()->applyFrame();
        QCOMPARE(app.runs()->run()->stepCount(), int(r.steps.size()));
    }

    // A run that ends with positions still masked (the strategy's step limit came first) says so;
    // one that decoded everything, or that the user stopped, does not.
    void aRunEndedByItsStepLimitIsMarkedUnfinished() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        const SyntheticRun r = makeSyntheticRun(16, 4);
        auto last = std::make_shared<dlm::StepTrace>(*r.steps.back());
        for (int pos : {3, 9}) last->positions[size_t(pos)].state = dlm::PosState::Masked;
        auto play = [&](bool capped, bool cancelled) {
            app.runs()->runDecode();
            const quint64 id = e.runs.last().id;
            Q_EMIT e.runStarted(id, r.header, {});
            for (size_t i = 0; i + 1 < r.steps.size(); ++i) Q_EMIT e.stepReady(id, r.steps[i]);
            Q_EMIT e.stepReady(id, capped ? StepTracePtr(last) : r.steps.back());
            Q_EMIT e.runFinished(id, summaryOf(int(r.steps.size())), cancelled);
            app.runs()->applyFrame();
        };
        play(/*capped=*/true, /*cancelled=*/false);
        QCOMPARE(app.runs()->run()->unfinishedPositions(), 2);
        QVERIFY2(app.status().contains("step limit") && app.status().contains("2 positions still masked"),
                 qPrintable(app.status()));
        play(/*capped=*/false, /*cancelled=*/false);
        QCOMPARE(app.runs()->run()->unfinishedPositions(), 0);
        QVERIFY2(app.status().startsWith("Done"), qPrintable(app.status()));
        play(/*capped=*/true, /*cancelled=*/true);
        QCOMPARE(app.runs()->run()->unfinishedPositions(), 0);  // stopped by the user, not by the limit
        QVERIFY2(app.status().startsWith("Stopped"), qPrintable(app.status()));
        // Saved, the stopped run is cut short (no summary line), so reopening it cannot mistake the
        // stop for the step limit; a run that ended on its own keeps its summary.
        QTemporaryDir dir;
        const QString stopped = dir.filePath("stopped.jsonl"), capped = dir.filePath("capped.jsonl");
        QVERIFY(app.runs()->saveTrace(stopped));
        QVERIFY(!dlm::read_trace(stopped.toStdString()).summary);
        play(/*capped=*/true, /*cancelled=*/false);
        QVERIFY(app.runs()->saveTrace(capped));
        QVERIFY(dlm::read_trace(capped.toStdString()).summary);
    }

    // The charts' x range is plannedSteps: it follows a run that goes on past its steps setting
    // (a revision strategy's step limit is beyond it), and says so when it grows.
    void plannedStepsFollowARunPastItsStepsSetting() {
        RunView v;
        const SyntheticRun r = makeSyntheticRun(16, 4);
        v.begin(r.header);
        QSignalSpy grew(&v, &RunView::plannedStepsChanged);
        for (const auto& s : r.steps) v.record(s);
        v.flush();
        QCOMPARE(v.plannedSteps(), 4);
        QCOMPARE(grew.count(), 0);
        for (int i = 4; i < 7; ++i) {
            auto more = std::make_shared<dlm::StepTrace>(*r.steps.back());
            more->step = i;
            v.record(more);
        }
        QCOMPARE(v.plannedSteps(), 4);  // recorded, not shown yet
        v.flush();
        QCOMPARE(v.plannedSteps(), 7);
        QCOMPARE(grew.count(), 1);
    }

    // A run that ends long before its steps setting (threshold, guided) is drawn over the steps it
    // took once it is finished, not over the setting.
    void plannedStepsShrinkToTheStepsAFinishedRunTook() {
        RunView v;
        const SyntheticRun r = makeSyntheticRun(16, 2);
        auto header = std::make_shared<dlm::TraceHeader>(*r.header);
        header->steps = 160;
        v.begin(header);
        for (const auto& s : r.steps) v.record(s);
        v.flush();
        QCOMPARE(v.plannedSteps(), 160);  // still running: the setting
        QSignalSpy shrank(&v, &RunView::plannedStepsChanged);
        v.finish(r.summary);
        QCOMPARE(v.plannedSteps(), 2);
        QCOMPARE(shrank.count(), 1);
    }

    void pauseStepAndResumeReachTheEngine() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        loadInto(app, e, "m");
        app.runs()->runDecode();
        app.runs()->stepOnce();  // pauses first
        QVERIFY(app.runs()->paused());
        QCOMPARE(e.pauses, 1);
        QCOMPARE(e.singleSteps, 1);
        app.runs()->resume();
        QVERIFY(!app.runs()->paused());
        QCOMPARE(e.resumes, 1);
        // Loading another model ends the run first.
        app.model()->load("/models/other");
        QCOMPARE(e.cancels, 1);
    }

    void aNewModelsGenerationDefaultsApplyWhereTheUserChangedNothing() {
        FakeDecodeEngine e;
        AppController app({false, false}, &e);
        app.config()->setSetting("top_p", "0.9");  // the user's own
        app.model()->load("/models/dream");
        ModelInfo info = FakeDecodeEngine::model("dream");
        info.chatTemplate = true;
        info.generation.settings = {{"temperature", "0.2"}, {"top_p", "0.95"}};
        Q_EMIT e.modelLoaded(e.loads.last().ticket, info);
        QCOMPARE(app.config()->settings().value("temperature").toString(), QStringLiteral("0.2"));
        QCOMPARE(app.config()->settings().value("top_p").toString(), QStringLiteral("0.9"));
        QCOMPARE(app.config()->modelDefaults().value("top_p").toString(), QStringLiteral("0.95"));
        QVERIFY(app.config()->modelDefaultsNote().contains("generation_config.json"));
        QVERIFY(app.config()->chat());
    }
};

QTEST_MAIN(AppPartsTest)
#include "app_parts_test.moc"
