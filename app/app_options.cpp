#include "app_options.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <cstdio>
#include <cstdlib>

#include "decode/settings_schema.h"
#include "decode_animation.h"
#include "model/embedded_models.h"
#include "local_path.h"

namespace {

// The options QGuiApplication and QApplication take out of the arguments themselves (as their
// documentation lists them, in the - and -- spellings). Options are parsed under a
// QCoreApplication, so that --help works without a display, and that one leaves them in: they
// are skipped here and reach the window system when the QApplication is made.
const QStringList kQtOptionsWithValue = {
    "platform", "platformpluginpath", "platformtheme", "plugin", "qwindowgeometry", "qwindowicon",
    "qwindowtitle", "session", "display", "geometry", "title", "icon", "style", "stylesheet"};
const QStringList kQtFlags = {"reverse", "nograb", "dograb", "sync", "widgetcount", "testability"};

QString qtOptionName(const QString& arg) {
    if (!arg.startsWith('-')) return {};
    return arg.mid(arg.startsWith(QLatin1String("--")) ? 2 : 1);
}

QString qtWindowSystemOptionsHelp() {
    return QStringLiteral(
        "Qt options (passed on to Qt's window system):\n"
        "  -platform <NAME>           Platform plugin: xcb, wayland, offscreen, ...\n"
        "                             (as QT_QPA_PLATFORM).\n"
        "  -qwindowgeometry <WxH+X+Y> Size and place of the main window.\n"
        "  -qwindowtitle <TITLE>      Title of the main window.\n"
        "  -display <DISPLAY>         X display to use (xcb).\n"
        "  -platformtheme <NAME>, -platformpluginpath <DIR>, -plugin <NAME>, -qwindowicon <FILE>,\n"
        "  -style <NAME>, -stylesheet <FILE>, -session <ID>, -reverse: as Qt documents them.\n");
}

}  // namespace

QStringList withoutQtWindowSystemOptions(const QStringList& arguments) {
    QStringList kept;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString name = i == 0 ? QString() : qtOptionName(arguments[i]);
        if (kQtOptionsWithValue.contains(name)) {
            ++i;  // and its value
            continue;
        }
        if (kQtFlags.contains(name) || name.startsWith(QLatin1String("qmljsdebugger="))) continue;
        kept << arguments[i];
    }
    return kept;
}

AppOptions parseAppOptions(const QStringList& arguments) {
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("dlmscope: watch masked diffusion language models decode"));
    p.addHelpOption();
    p.addVersionOption();
    const QCommandLineOption model({"m", "model"}, "Checkpoint folder to open.", "DIR");
    const QCommandLineOption prompt("prompt", "Prompt text.", "TEXT");
    const QCommandLineOption trace("trace", "Open a recorded NDJSON trace (replays without a model).", "FILE");
    const QCommandLineOption shot("screenshot", "Save a PNG of the window when the run completes.", "FILE");
    const QCommandLineOption saveTrace("save-trace", "Save the run's NDJSON trace when it completes.", "FILE");
    const QCommandLineOption saveAnimation("save-animation",
                                           "Write the decode as an animated PNG (at the replay speed) when "
                                           "the run completes.", "FILE");
    const QCommandLineOption animationSteps("animation-steps",
                                            "The steps --save-animation shows: FROM-TO, FROM- (to the end) or one "
                                            "step; 0 is the masked canvas (default: the whole run).",
                                            "FROM-TO");
    const QCommandLineOption animationSpeed("animation-speed", "Steps a second of --save-animation (0.5 to 240; default: the replay speed).", "N");
    const QCommandLineOption animationScale("animation-scale",
                                            "Pixels a point of --save-animation: 2 (sharp on a projector) or 1 "
                                            "(a quarter of the pixels); default: 2 up to 384 positions, else 1.",
                                            "1|2");
    const QCommandLineOption preset("preset",
                                    "Strategy preset as the preset box names it, e.g. \"SureLock + unlocking\" "
                                    "(dlmscope-cli settings --presets lists them); --set changes it further.",
                                    "NAME");
    const QCommandLineOption cpreset("compare-preset", "Strategy preset of compare run B.", "NAME");
    const QCommandLineOption set("set", "Decode setting for this launch (repeatable).", "KEY=VALUE");
    const QCommandLineOption cset("compare-set", "Setting of compare run B (repeatable).", "KEY=VALUE");
    const QCommandLineOption autorun("autorun", "Start decoding as soon as the model is loaded.");
    const QCommandLineOption compare("compare", "Run A then B on the same prompt and seed (compare mode).");
    const QCommandLineOption quit("quit-when-done", "Quit when the run (and screenshot) is done.");
    const QCommandLineOption inspect("inspect", "Open the inspector on a generated position (counted from 0).", "POS");
    const QCommandLineOption fresh("no-restore", "Ignore the settings saved by earlier sessions.");
    const QCommandLineOption showStep("show-step", "Scrub to step N (counted from 1, as the timeline counts) when the run completes.", "N");
    const QCommandLineOption backend("backend",
                                     "Compute backend: auto (CUDA when usable, else CPU), cpu or cuda. "
                                     "Without a usable GPU the CPU runs, and the app says why.",
                                     "NAME");
    p.addOptions({model, prompt, trace, shot, saveTrace, saveAnimation, animationSteps, animationSpeed, animationScale, preset, set, cpreset, cset, autorun, compare, quit, inspect,
                  fresh, showStep, backend});
    AppOptions o;
    for (const QString& arg : arguments.mid(1)) {
        const QString name = qtOptionName(arg);
        if (name == QLatin1String("qwindowgeometry") || name == QLatin1String("geometry")) o.windowGeometryGiven = true;
    }
    if (!p.parse(withoutQtWindowSystemOptions(arguments))) {
        o.error = p.errorText();
        return o;
    }
    if (p.isSet("help-all")) {
        // The parser's own --help-all lists the options of the application object it runs
        // under, here a QCoreApplication; the window-system ones are said here instead.
        std::fputs(qPrintable(p.helpText() + "\n" + qtWindowSystemOptionsHelp()), stdout);
        std::exit(0);
    }
    if (p.isSet("help")) p.showHelp(0);
    if (p.isSet("version")) p.showVersion();
    o.modelDir = p.value(model);
    o.prompt = p.value(prompt);
    o.tracePath = p.value(trace);
    o.screenshotPath = p.value(shot);
    o.saveTracePath = p.value(saveTrace);
    o.saveAnimationPath = p.value(saveAnimation);
    o.settings = p.values(set);
    o.compareSettings = p.values(cset);
    o.autorun = p.isSet(autorun);
    o.compare = p.isSet(compare);
    o.quitWhenDone = p.isSet(quit);
    o.fresh = p.isSet(fresh);
    if (p.isSet(backend)) {
        o.backend = p.value(backend);
        if (o.backend != "auto" && o.backend != "cpu" && o.backend != "cuda")
            o.error = QStringLiteral("--backend expects auto, cpu or cuda, got '%1'").arg(o.backend);
    }
    if (p.isSet(inspect)) {
        bool ok = false;
        o.inspect = p.value(inspect).toInt(&ok);
        if (!ok || o.inspect < 0) o.error = QStringLiteral("--inspect expects a position >= 0, got '%1'").arg(p.value(inspect));
    }
    if (p.isSet(animationSteps)) {
        static const QRegularExpression range(QStringLiteral("^(\\d{1,6})(-(\\d{0,6}))?$"));
        const QRegularExpressionMatch m = range.match(p.value(animationSteps));
        if (!m.hasMatch()) {
            o.error = QStringLiteral("--animation-steps expects FROM-TO, FROM- or a step (0 is the masked canvas), got '%1'")
                          .arg(p.value(animationSteps));
        } else {
            o.animationOptions["from"] = m.captured(1).toInt();
            if (!m.hasCaptured(2)) o.animationOptions["to"] = m.captured(1).toInt();
            else if (!m.captured(3).isEmpty()) o.animationOptions["to"] = m.captured(3).toInt();
            if (o.animationOptions.contains("to") && o.animationOptions["to"].toInt() < m.captured(1).toInt())
                o.error = QStringLiteral("--animation-steps %1: the last step comes before the first").arg(p.value(animationSteps));
        }
    }
    if (p.isSet(animationSpeed)) {
        bool ok = false;
        const double speed = p.value(animationSpeed).toDouble(&ok);
        if (!ok || !(speed >= DecodeAnimation::kMinStepsPerSecond && speed <= DecodeAnimation::kMaxStepsPerSecond))
            o.error = QStringLiteral("--animation-speed expects %1 to %2 steps a second, got '%3'")
                          .arg(DecodeAnimation::kMinStepsPerSecond).arg(DecodeAnimation::kMaxStepsPerSecond).arg(p.value(animationSpeed));
        else o.animationOptions["stepsPerSecond"] = speed;
    }
    if (p.isSet(animationScale)) {
        const QString scale = p.value(animationScale);
        if (scale != "1" && scale != "2") o.error = QStringLiteral("--animation-scale expects 1 or 2, got '%1'").arg(scale);
        else o.animationOptions["scale"] = scale.toInt();
    }
    if (!o.animationOptions.isEmpty() && o.saveAnimationPath.isEmpty() && o.error.isEmpty())
        o.error = QStringLiteral("--animation-steps, --animation-speed and --animation-scale go with --save-animation FILE");
    if (p.isSet(showStep)) {
        bool ok = false;
        o.showStep = p.value(showStep).toInt(&ok);
        if (!ok || o.showStep < 1) o.error = QStringLiteral("--show-step expects a step >= 1, got '%1'").arg(p.value(showStep));
    }
    // The CLI's --preset names, from the one table the preset box shows.
    auto presetIndex = [&](const QCommandLineOption& option, int& index) {
        if (!p.isSet(option)) return;
        const QString name = p.value(option);
        const dlm::StrategyPreset* found = dlm::find_strategy_preset(name.toStdString());
        if (!found) {
            o.error = QStringLiteral("--%1: no preset '%2' (presets: %3)")
                          .arg(option.names().constFirst(), name, QString::fromStdString(dlm::strategy_preset_names()));
            return;
        }
        index = int(found - dlm::strategy_presets().data());
    };
    presetIndex(preset, o.preset);
    presetIndex(cpreset, o.comparePreset);
    // A mistyped key would run with the default it meant to change, and be saved with the
    // settings; it is refused before the window opens, as the CLI refuses it.
    for (const auto& kv : o.settings + o.compareSettings) {
        if (!kv.contains('=')) {
            o.error = QStringLiteral("--set expects KEY=VALUE, got '%1'").arg(kv);
        } else {
            const std::string key = kv.left(kv.indexOf('=')).trimmed().toStdString();
            if (!dlm::find_setting_spec(key))
                o.error = QStringLiteral("--set %1: %2").arg(kv, QString::fromStdString(dlm::unknown_setting_message(key)));
        }
    }
    return o;
}

QString defaultModelDir(const QString& applicationDir) {
    return QString::fromStdString(dlm::embedded_model_dir(dlm::kDefaultEmbeddedModel, applicationDir.toStdString()).string());
}

StartupModel startupModel(const AppOptions& options, const QString& saved, const QString& embedded) {
    if (!options.modelDir.isEmpty()) return {options.modelDir, {}};
    const bool reopen = !options.fresh && !saved.isEmpty() && holdsCheckpoint(saved) &&
                        QDir::cleanPath(saved) != QDir::cleanPath(embedded);
    return reopen ? StartupModel{saved, embedded} : StartupModel{embedded, {}};
}
