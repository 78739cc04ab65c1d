#include "app_controller.h"

#include <algorithm>

#include <QColor>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJSEngine>
#include <QRegularExpression>
#include <QSettings>
#include <QUrl>

#include "cell_style.h"
#include "backends/backend_factory.h"
#include "csv_export.h"
#include "decode/decode_settings.h"
#include "decode/generation_defaults.h"
#include "decode/settings_schema.h"
#include "decode/strategy.h"
#include "eval/eval_example.h"
#include "text_diff.h"
#include "trace/trace_io.h"

namespace {

std::map<std::string, std::string> toStd(const QVariantMap& m) {
    std::map<std::string, std::string> out;
    for (auto it = m.cbegin(); it != m.cend(); ++it) out[it.key().toStdString()] = it.value().toString().toStdString();
    return out;
}

QVariantMap fromStd(const std::map<std::string, std::string>& m) {
    QVariantMap out;
    for (const auto& [k, v] : m) out.insert(QString::fromStdString(k), QString::fromStdString(v));
    return out;
}


AppController* g_instance = nullptr;

// The worked examples, embedded in the app from resources/eval/examples.jsonl (the single copy).
QVariantList loadExamples() {
    QFile f(QStringLiteral(":/Dlmscope/examples.jsonl"));
    QVariantList out;
    if (!f.open(QIODevice::ReadOnly)) return out;
    try {
        for (const dlm::EvalExample& e : dlm::parse_eval_jsonl(f.readAll().toStdString(), "examples.jsonl")) {
            QString family = QString::fromStdString(e.family);
            QString label = family;
            label.replace('_', ' ');
            label[0] = label[0].toUpper();
            out.push_back(QVariantMap{{"family", family},
                                      {"label", label},
                                      {"prompt", QString::fromStdString(e.prompt)},
                                      {"answer", QString::fromStdString(e.answer)},
                                      {"genLength", e.gen_length > 0 ? e.gen_length : 64}});
        }
    } catch (const std::exception&) {
        // A broken embedded file is a build error caught by the tests; the app still starts.
    }
    return out;
}

// Blocks must tile the canvas: the largest block length not above the current one that divides
// gen_length (0, one block, stays 0).
void fitBlockLength(QVariantMap& s) {
    const int gen = s.value("gen_length").toInt();
    int block = s.value("block_length").toInt();
    if (block <= 0 || gen <= 0) return;
    block = std::min(block, gen);
    while (block > 1 && gen % block != 0) --block;
    s.insert("block_length", QString::number(block));
}

// The app's starting point: the engine's defaults with a canvas that holds the whole answer of
// the default example (the first worked example), in blocks of 32.
// The schema's defaults, on the canvas of the first worked example when there is one.
QVariantMap defaultSettings(const QVariantList& examples) {
    auto m = dlm::default_settings();
    if (!examples.isEmpty()) {
        const std::string gen = std::to_string(examples.front().toMap().value("genLength").toInt());
        m["gen_length"] = gen;
        m["steps"] = gen;
    }
    return fromStd(m);
}

// A control for one schema entry: its kind, range, choices and help, and (for a strategy
// parameter) a pattern of the strategies that read it, so it shows only while one is chosen.
QVariantMap controlFor(const dlm::SettingSpec& s) {
    QString kind;
    switch (s.type) {
        case dlm::SettingType::Integer: kind = "int"; break;
        case dlm::SettingType::Real: kind = s.log_scale ? "logreal" : "real"; break;
        case dlm::SettingType::Choice:
        case dlm::SettingType::Flag: kind = "enum"; break;
        case dlm::SettingType::Text: kind = "text"; break;
    }
    double lo = s.min, hi = s.max;
    if (s.log_scale) lo = s.typical_min, hi = s.typical_max;  // a slider's decades; typed values may go past
    if (kind == "int") hi = std::min(hi, 2147483647.0);      // SpinBox holds an int
    // A default computed from other settings: an empty field that says so, not a number.
    if (s.default_value.empty() && (kind == "int" || kind == "real")) kind = "computed";
    QStringList options;
    for (const auto& c : s.choices) options << QString::fromStdString(c);
    QString help = QString::fromStdString(s.help);
    help += AppController::tr(" Default: %1; range %2.")
                .arg(QString::fromStdString(s.default_value.empty() ? s.computed_default : s.default_value),
                     QString::fromStdString(dlm::setting_range_text(s)));
    QString readers;
    for (const auto& r : s.strategies)
        readers += (readers.isEmpty() ? "" : "|") + QRegularExpression::escape(QString::fromStdString(r));
    return QVariantMap{{"key", QString::fromStdString(s.key)},
                       {"label", QString::fromStdString(s.label)},
                       {"kind", kind},
                       {"min", lo},
                       {"max", hi},
                       {"help", help},
                       {"options", options},
                       {"default", QString::fromStdString(s.default_value)},
                       {"placeholder", QString::fromStdString(s.computed_default)},
                       {"for", readers.isEmpty() ? QString() : "^(" + readers + ")$"}};
}


// "CPU" / "CUDA" for messages; the choice "auto" reads as what it does.
QString backendLabel(const QString& name) {
    if (name == QLatin1String("cpu")) return QStringLiteral("CPU");
    if (name == QLatin1String("cuda")) return QStringLiteral("CUDA");
    return AppController::tr("automatically chosen");
}

// A strategy parameter: shown only while a strategy matching `strategies` (a regex) is chosen.
QVariantMap strategyParam(const QString& strategies, QVariantMap p) {
    p.insert("for", strategies);
    return p;
}

}  // namespace

AppController* AppController::create(QQmlEngine*, QJSEngine*) {
    // The instance belongs to main() / the test, never to the QML engine.
    if (g_instance) QJSEngine::setObjectOwnership(g_instance, QJSEngine::CppOwnership);
    return g_instance;
}

void AppController::setInstance(AppController* c) { g_instance = c; }

AppController::AppController(Options options, QObject* parent) : QObject(parent), options_(options) {
    qRegisterMetaType<StepTracePtr>();
    qRegisterMetaType<TraceHeaderPtr>();
    qRegisterMetaType<TraceSummaryPtr>();
    qRegisterMetaType<ModelInfo>();
    buildCatalogue();
    examples_ = loadExamples();
    prompt_ = examples_.isEmpty() ? QString() : examples_.front().toMap().value("prompt").toString();
    settings_ = defaultSettings(examples_);
    defaults_ = settings_;
    for (RunView* v : {&run_, &compare_})
        v->setAnswerLookup([this](const QString& prompt) { return answerFor(prompt); });
    applyPreset(preset_index_);
    compare_settings_ = settings_;
    applyComparePreset(compare_preset_index_);
    if (options_.persist && options_.restore) loadSettings();

    worker_ = new DecodeWorker;
    worker_->moveToThread(&thread_);
    connect(worker_, &DecodeWorker::modelLoaded, this, &AppController::onModelLoaded);
    connect(worker_, &DecodeWorker::modelLoadFailed, this, &AppController::onModelLoadFailed);
    connect(worker_, &DecodeWorker::runStarted, this, &AppController::onRunStarted);
    connect(worker_, &DecodeWorker::stepReady, this, &AppController::onStepReady);
    connect(worker_, &DecodeWorker::runFinished, this, &AppController::onRunFinished);
    connect(worker_, &DecodeWorker::runFailed, this, &AppController::onRunFailed);
    connect(worker_, &DecodeWorker::validated, this, &AppController::onValidated);
    thread_.setObjectName(QStringLiteral("dlmscope-decode"));
    thread_.start();

    frame_timer_.setSingleShot(true);
    frame_timer_.setInterval(16);  // ~ one display frame: bursts of steps coalesce into one repaint
    connect(&frame_timer_, &QTimer::timeout, this, &AppController::applyFrame);
    validate_timer_.setSingleShot(true);
    validate_timer_.setInterval(120);
    connect(&validate_timer_, &QTimer::timeout, this, &AppController::requestValidation);
    connect(&replay_timer_, &QTimer::timeout, this, &AppController::replayTick);
    connect(&compare_, &RunView::summaryChanged, this, &AppController::updateCompareSummary);
    connect(&run_, &RunView::summaryChanged, this, &AppController::updateCompareSummary);
}

AppController::~AppController() {
    // Closing during a decode: the current step finishes, the session is dropped, the thread ends.
    worker_->requestCancel();
    thread_.quit();
    thread_.wait();
    delete worker_;
    if (g_instance == this) g_instance = nullptr;
}

void AppController::buildCatalogue() {
    for (const auto& s : dlm::known_strategies()) strategies_ << QString::fromStdString(s);
    // The engine's presets and every setting and parameter of its schema, as controls.
    for (const auto& p : dlm::strategy_presets())
        presets_.push_back(QVariantMap{{"name", QString::fromStdString(p.name)},
                                       {"description", QString::fromStdString(p.description)},
                                       {"settings", fromStd(p.settings)}});
    preset_index_ = 0;
    compare_preset_index_ = presets_.size() > 1 ? 1 : 0;
    for (const auto& s : dlm::settings_schema()) parameters_.push_back(controlFor(s));
}

QVariantList AppController::legend() const {
    QVariantList out;
    using dlm::PosEvent;
    using dlm::PosState;
    for (auto s : {PosState::Prompt, PosState::Masked, PosState::Active, PosState::Locked, PosState::Frozen, PosState::Seed})
        out.push_back(QVariantMap{{"kind", "state"}, {"name", cell_style::stateLabel(s)}, {"color", cell_style::stateColor(s)}, {"glyph", QString()}});
    for (auto e : {PosEvent::Unmask, PosEvent::Remask, PosEvent::Replace, PosEvent::FlipFlop, PosEvent::Lock, PosEvent::Unlock, PosEvent::Keep})
        out.push_back(QVariantMap{{"kind", "event"}, {"name", cell_style::eventLabel(e)}, {"color", cell_style::eventColor(e)}, {"glyph", cell_style::eventGlyph(e)}});
    return out;
}

// --- settings ------------------------------------------------------------------------------

void AppController::setPrompt(const QString& p) {
    if (p == prompt_) return;
    prompt_ = p;
    Q_EMIT promptChanged();
    validate_timer_.start();
    saveSettings();
}

void AppController::setChat(bool c) {
    if (c == chat_) return;
    chat_ = c;
    Q_EMIT chatChanged();
    validate_timer_.start();
    saveSettings();
}

void AppController::setSetting(const QString& key, const QVariant& value) {
    const QString v = value.toString();
    // An emptied strategy parameter goes back to its default (the engine refuses an empty value).
    if (key.contains('.') && v.trimmed().isEmpty()) {
        if (!settings_.contains(key)) return;
        settings_.remove(key);
    } else {
        if (settings_.contains(key) && settings_.value(key).toString() == v) return;
        settings_.insert(key, v);
    }
    preset_index_ = matchPreset(settings_);
    Q_EMIT settingsChanged();
    validate_timer_.start();
    saveSettings();
}

void AppController::setCompareSetting(const QString& key, const QVariant& value) {
    compare_settings_.insert(key, value.toString());
    compare_preset_index_ = matchPreset(compare_settings_);
    Q_EMIT settingsChanged();
    saveSettings();
}

// A preset matches when applying it would change nothing: its own settings, the schema's
// defaults for the rest, and no strategy parameter it does not name.
int AppController::matchPreset(const QVariantMap& s) const {
    const auto& presets = dlm::strategy_presets();
    const auto current = toStd(s);
    const auto defaults = toStd(defaults_);
    for (int i = 0; i < int(presets.size()); ++i)
        if (dlm::apply_preset(current, presets[size_t(i)], defaults) == current) return i;
    return -1;
}

void AppController::mergePreset(QVariantMap& s, int index) const {
    const auto& presets = dlm::strategy_presets();
    if (index < 0 || index >= int(presets.size())) return;
    s = fromStd(dlm::apply_preset(toStd(s), presets[size_t(index)], toStd(defaults_)));
}

QStringList AppController::presetDifferences() const {
    const auto& presets = dlm::strategy_presets();
    if (preset_index_ >= 0 || base_preset_ < 0 || base_preset_ >= int(presets.size())) return {};
    const auto current = toStd(settings_);
    const auto wanted = dlm::apply_preset(current, presets[size_t(base_preset_)], toStd(defaults_));
    QStringList keys;
    for (const auto& [k, v] : wanted) {
        auto it = current.find(k);
        if (it == current.end() || it->second != v) keys << QString::fromStdString(k);
    }
    for (const auto& [k, v] : current)
        if (!wanted.count(k)) keys << QString::fromStdString(k);
    return keys;
}

void AppController::applyPreset(int index) {
    mergePreset(settings_, index);
    base_preset_ = index;
    preset_index_ = matchPreset(settings_);
    Q_EMIT settingsChanged();
    validate_timer_.start();
    saveSettings();
}

void AppController::applyComparePreset(int index) {
    compare_settings_ = settings_;  // same prompt, seed and lengths: only the strategy differs
    mergePreset(compare_settings_, index);
    compare_preset_index_ = matchPreset(compare_settings_);
    Q_EMIT settingsChanged();
    saveSettings();
}

int AppController::exampleIndex() const {
    for (int i = 0; i < examples_.size(); ++i)
        if (examples_[i].toMap().value("prompt").toString() == prompt_) return i;
    return -1;
}

QString AppController::answerFor(const QString& prompt) const {
    for (const auto& e : examples_) {
        const QVariantMap m = e.toMap();
        if (m.value("prompt").toString() == prompt.trimmed()) return m.value("answer").toString();
    }
    return {};
}

void AppController::useExample(int index) {
    if (index < 0 || index >= examples_.size()) return;
    const QVariantMap e = examples_[index].toMap();
    const int gen = e.value("genLength").toInt();
    // The whole answer must fit: the canvas follows the example; steps follow when they did.
    const bool steps_followed = settings_.value("steps").toInt() == settings_.value("gen_length").toInt();
    QVariantMap fitted = settings_;
    fitted.insert("gen_length", QString::number(gen));
    fitBlockLength(fitted);
    setSetting(QStringLiteral("gen_length"), gen);
    setSetting(QStringLiteral("block_length"), fitted.value("block_length"));
    if (steps_followed) setSetting(QStringLiteral("steps"), gen);
    setPrompt(e.value("prompt").toString());
}

void AppController::resetSettings() {
    settings_ = defaults_;
    applyPreset(0);
    applyComparePreset(presets_.size() > 1 ? 1 : 0);
}

double AppController::epsilon() const {
    bool ok = false;
    double e = settings_.value("surelock.epsilon").toDouble(&ok);
    if (!ok && run_.hasRun()) {
        const auto& h = run_.history().header();
        auto it = h->settings.find("surelock.epsilon");
        if (it != h->settings.end()) e = QString::fromStdString(it->second).toDouble(&ok);
    }
    return ok ? e : 0.0;
}

QString AppController::issueFor(const QString& key) const {
    for (const auto& v : issues_) {
        const auto m = v.toMap();
        if (m.value("key").toString() == key) return m.value("message").toString();
    }
    return {};
}

QString AppController::issueSeverityFor(const QString& key) const {
    for (const auto& v : issues_) {
        const auto m = v.toMap();
        if (m.value("key").toString() == key) return m.value("severity").toString();
    }
    return {};
}

QVariantList AppController::generalIssues() const {
    QVariantList out;
    for (const auto& v : issues_) {
        const QString key = v.toMap().value("key").toString();
        bool shown = false;
        for (const auto& p : parameters_) shown = shown || (!key.isEmpty() && p.toMap().value("key").toString() == key);
        if (!shown) out.push_back(v);
    }
    return out;
}

bool AppController::canRun() const {
    if (!model_loaded_ || loading_) return false;
    for (const auto& v : issues_)
        if (v.toMap().value("severity") == "error") return false;
    return true;
}

void AppController::requestValidation() {
    if (!model_loaded_) return;
    QMetaObject::invokeMethod(worker_, [w = worker_, id = ++validation_counter_, p = prompt_, s = settings_, c = chat_] {
        w->validate(id, p, s, c);
    }, Qt::QueuedConnection);
}

void AppController::onValidated(quint64 requestId, const QVariantList& issues) {
    if (requestId != validation_counter_) return;  // a newer edit is already being checked
    issues_ = issues;
    Q_EMIT issuesChanged();
}

void AppController::saveSettings() const {
    if (!options_.persist || !worker_) return;  // not while the constructor sets the defaults
    QSettings q;
    q.setValue("decode/prompt", prompt_);
    q.setValue("decode/chat", chat_);
    q.setValue("decode/settings", settings_);
    q.setValue("decode/compareSettings", compare_settings_);
    q.setValue("replay/speed", replay_speed_);
    q.setValue("model/backend", backend_choice_);
    if (model_loaded_) q.setValue("model/dir", model_.dir);
}

void AppController::loadSettings() {
    QSettings q;
    prompt_ = q.value("decode/prompt", prompt_).toString();
    chat_ = q.value("decode/chat", chat_).toBool();
    const auto saved = q.value("decode/settings").toMap();
    for (auto it = saved.cbegin(); it != saved.cend(); ++it) settings_.insert(it.key(), it.value());
    const auto savedB = q.value("decode/compareSettings").toMap();
    for (auto it = savedB.cbegin(); it != savedB.cend(); ++it) compare_settings_.insert(it.key(), it.value());
    replay_speed_ = q.value("replay/speed", replay_speed_).toDouble();
    const QString backend = q.value("model/backend", backend_choice_).toString();
    if (backendChoices().contains(backend)) backend_choice_ = backend;
    preset_index_ = matchPreset(settings_);
    compare_preset_index_ = matchPreset(compare_settings_);
}

// --- model ---------------------------------------------------------------------------------

QString AppController::toLocalPath(const QString& s) const {
    const QUrl u(s);
    return u.isLocalFile() ? u.toLocalFile() : s;
}

void AppController::loadModel(const QString& dirOrUrl) {
    const QString dir = toLocalPath(dirOrUrl);
    if (running_) stop();
    stopReplay();
    loading_ = true;
    switching_backend_ = false;
    loading_what_ = QFileInfo(dir).fileName();
    loading_dir_ = dir;
    Q_EMIT loadingChanged();
    Q_EMIT issuesChanged();
    setStatus(tr("Loading %1…").arg(dir));
    QMetaObject::invokeMethod(worker_, [w = worker_, t = ++load_ticket_, dir, b = backend_choice_] { w->loadModel(t, dir, b); },
                              Qt::QueuedConnection);
}

bool AppController::cudaBuilt() const { return dlm::cuda_backend_built(); }

void AppController::setBackend(const QString& choice) {
    if (!backendChoices().contains(choice))
        return setError(tr("Unknown backend '%1': the choices are auto, cpu and cuda").arg(choice));
    if (choice == backend_choice_) return;
    backend_choice_ = choice;
    Q_EMIT backendChanged();
    saveSettings();
    if (loading_ && !switching_backend_) return loadModel(loading_dir_);  // the load under way starts over
    if (!model_loaded_) return;  // applies to the next model opened
    if (!switching_backend_ && (choice == QLatin1String("cpu")) == (model_.backend == QLatin1String("cpu"))) {
        // The model already runs where this choice leads (cuda <-> auto on a GPU, or cpu): no move.
        model_.backendChoice = choice;
        model_.backendNote.clear();
        Q_EMIT modelChanged();
        return;
    }
    // A switch moves the loaded model; the runs shown (and their history) stay as they are.
    if (running_) stop();
    stopReplay();
    loading_ = true;
    switching_backend_ = true;
    loading_what_ = tr("%1 to the %2 backend").arg(model_.name, backendLabel(choice));
    Q_EMIT loadingChanged();
    Q_EMIT issuesChanged();
    setStatus(tr("Moving %1…").arg(loading_what_));
    QMetaObject::invokeMethod(worker_, [w = worker_, t = ++load_ticket_, choice] { w->switchBackend(t, choice); },
                              Qt::QueuedConnection);
}

void AppController::cancelLoad() {
    // A backend switch has already released the old backend: it runs to its end.
    if (!loading_ || switching_backend_) return;
    worker_->cancelLoad(load_ticket_);
    loading_ = false;
    Q_EMIT loadingChanged();
    Q_EMIT issuesChanged();
    // The model kept is on the backend it was loaded with: the selector says so again.
    if (model_loaded_ && !model_.backendChoice.isEmpty() && backend_choice_ != model_.backendChoice) {
        backend_choice_ = model_.backendChoice;
        Q_EMIT backendChanged();
        saveSettings();
    }
    setStatus(model_loaded_ ? tr("Load cancelled; still on %1").arg(model_.name) : tr("Load cancelled"));
}

void AppController::onModelLoaded(quint64 ticket, const ModelInfo& info) {
    if (ticket != load_ticket_) return;
    const bool switched = switching_backend_;
    model_ = info;
    model_loaded_ = true;
    loading_ = false;
    switching_backend_ = false;
    setChat(info.chatTemplate);  // as in the CLI: through the template when there is one it renders
    if (!switched) adoptModelDefaults(info);
    Q_EMIT modelChanged();
    Q_EMIT loadingChanged();
    if (switched) setStatus(tr("%1 now runs on the %2 backend").arg(info.name, backendLabel(info.backend)));
    else setStatus(tr("Loaded %1 (%2) on the %3 backend").arg(info.name, info.summary, backendLabel(info.backend)));
    saveSettings();
    requestValidation();
}

void AppController::adoptModelDefaults(const ModelInfo& info) {
    std::vector<std::string> notes = info.generation.notes;
    const QVariantMap next =
        fromStd(dlm::model_default_settings(toStd(defaultSettings(examples_)), info.generation, &notes));
    for (QVariantMap* s : {&settings_, &compare_settings_}) {
        bool canvas_moved = false;
        for (auto it = next.cbegin(); it != next.cend(); ++it) {
            const QString now = s->value(it.key()).toString();
            if (now == defaults_.value(it.key()).toString() && now != it.value().toString()) {
                s->insert(it.key(), it.value());
                canvas_moved |= it.key() == QLatin1String("gen_length");
            }
        }
        if (canvas_moved) fitBlockLength(*s);
    }
    defaults_ = next;
    QStringList given;
    const QVariantMap changed = modelDefaults();
    for (auto it = changed.cbegin(); it != changed.cend(); ++it) given << it.key() + "=" + it.value().toString();
    model_defaults_note_.clear();
    if (!given.isEmpty()) model_defaults_note_ = tr("Model defaults (generation_config.json): %1.").arg(given.join(", "));
    for (const std::string& n : notes)
        model_defaults_note_ += (model_defaults_note_.isEmpty() ? QString() : QStringLiteral(" ")) +
                                tr("Not used: %1.").arg(QString::fromStdString(n));
    preset_index_ = matchPreset(settings_);
    compare_preset_index_ = matchPreset(compare_settings_);
    Q_EMIT settingsChanged();
    validate_timer_.start();
}

QVariantMap AppController::modelDefaults() const {
    QVariantMap out;
    const QVariantMap schema = defaultSettings(examples_);
    for (auto it = defaults_.cbegin(); it != defaults_.cend(); ++it)
        if (schema.value(it.key()).toString() != it.value().toString()) out.insert(it.key(), it.value());
    return out;
}

void AppController::onModelLoadFailed(quint64 ticket, const QString& error) {
    if (ticket != load_ticket_) return;
    const bool switched = switching_backend_;
    loading_ = false;
    switching_backend_ = false;
    if (switched) {
        // The worker closed the model: it had no backend left to run on.
        model_loaded_ = false;
        Q_EMIT modelChanged();
    }
    Q_EMIT loadingChanged();
    Q_EMIT issuesChanged();
    setError(switched ? tr("Could not move the model to the %1 backend: %2").arg(backendLabel(backend_choice_), error)
                      : tr("Could not open the model: %1").arg(error));
    setStatus(model_loaded_ ? tr("Still on %1").arg(model_.name) : tr("No model loaded"));
}

// --- runs ----------------------------------------------------------------------------------

void AppController::startRunInto(RunView* view, const QVariantMap& settings) {
    const quint64 id = ++run_counter_;
    run_targets_.insert(id, view);
    setRunning(true, false);
    worker_->setPaused(false);
    QMetaObject::invokeMethod(worker_, [w = worker_, id, p = prompt_, settings, c = chat_] { w->startRun(id, p, settings, c); },
                              Qt::QueuedConnection);
}

void AppController::runDecode() {
    if (!model_loaded_) return setError(tr("No model is loaded: open a checkpoint folder (Model…) or a trace."));
    clearError();
    stopReplay();
    compare_b_pending_ = 0;
    if (compare_mode_) setCompareMode(false);
    compare_.clear();
    setStatus(tr("Decoding…"));
    startRunInto(&run_, settings_);
}

void AppController::rerun() { compare_mode_ ? runCompare() : runDecode(); }

void AppController::runCompare() {
    if (!model_loaded_) return setError(tr("No model is loaded: compare needs a model."));
    clearError();
    stopReplay();
    // Run B shares the prompt, seed and lengths of A.
    QVariantMap b = compare_settings_;
    for (const char* k : {"seed", "gen_length", "steps"}) b.insert(k, settings_.value(k));
    fitBlockLength(b);  // B keeps its own block length where it tiles A's canvas
    compare_settings_ = b;
    Q_EMIT settingsChanged();
    if (!compare_mode_) {
        compare_mode_ = true;
        Q_EMIT compareModeChanged();
    }
    compare_.clear();
    setStatus(tr("Compare: decoding A…"));
    startRunInto(&run_, settings_);
    compare_b_pending_ = run_counter_;
}

void AppController::pause() {
    if (!running_ || paused_) return;
    worker_->setPaused(true);
    setRunning(true, true);
    setStatus(tr("Paused"));
}

void AppController::resume() {
    if (!running_) return startReplay();
    worker_->setPaused(false);
    QMetaObject::invokeMethod(worker_, &DecodeWorker::resume, Qt::QueuedConnection);
    setRunning(true, false);
    setStatus(tr("Decoding…"));
}

void AppController::stepOnce() {
    if (running_) {
        if (!paused_) pause();
        QMetaObject::invokeMethod(worker_, &DecodeWorker::stepOnce, Qt::QueuedConnection);
        return;
    }
    stopReplay();
    setViewStep(run_.viewStep() + 1);
}

void AppController::stop() {
    if (!running_) return stopReplay();
    compare_b_pending_ = 0;
    worker_->requestCancel();
    worker_->setPaused(false);
    QMetaObject::invokeMethod(worker_, &DecodeWorker::resume, Qt::QueuedConnection);  // wakes a paused run
    setStatus(tr("Stopping…"));
}

void AppController::onRunStarted(quint64 runId, const TraceHeaderPtr& header, const QStringList& warnings) {
    RunView* v = run_targets_.value(runId);
    if (!v) return;
    v->begin(header);
    Q_EMIT settingsChanged();  // ε may come from the header
    if (!warnings.isEmpty()) setStatus(tr("Decoding… (%1)").arg(warnings.join("; ")));
}

void AppController::onStepReady(quint64 runId, const StepTracePtr& step) {
    RunView* v = run_targets_.value(runId);
    if (!v) return;
    try {
        v->record(step);
    } catch (const std::exception& e) {
        setError(QString::fromUtf8(e.what()));
        return;
    }
    if (!frame_timer_.isActive()) frame_timer_.start();
}

void AppController::applyFrame() {
    run_.flush();
    compare_.flush();
    ++frames_applied_;
    Q_EMIT framesAppliedChanged();
}

void AppController::onRunFinished(quint64 runId, const TraceSummaryPtr& summary, bool cancelled) {
    RunView* v = run_targets_.take(runId);
    if (!v) return;
    frame_timer_.stop();
    applyFrame();
    v->finish(summary);
    if (!cancelled && runId == compare_b_pending_) {
        compare_b_pending_ = 0;
        setStatus(tr("Compare: decoding B…"));
        startRunInto(&compare_, compare_settings_);
        return;
    }
    setRunning(false, false);
    setStatus(cancelled ? tr("Stopped after %1 steps").arg(v->stepCount())
                        : tr("Done: %1 steps, %2 s").arg(summary->steps).arg(summary->wall_s, 0, 'f', 2));
    Q_EMIT runCompleted(!cancelled);
}

void AppController::onRunFailed(quint64 runId, const QString& error) {
    if (!run_targets_.remove(runId)) return;
    compare_b_pending_ = 0;
    frame_timer_.stop();
    applyFrame();
    setRunning(false, false);
    setError(error);
    setStatus(tr("Run failed"));
    Q_EMIT runCompleted(false);
}

void AppController::setRunning(bool running, bool paused) {
    if (running == running_ && paused == paused_) return;
    running_ = running;
    paused_ = paused;
    Q_EMIT runningChanged();
}

// --- compare -------------------------------------------------------------------------------

void AppController::toggleCompare(bool on) {
    if (on && canRun() && !running_) return runCompare();
    setCompareMode(on);
}

void AppController::setCompareMode(bool c) {
    if (c == compare_mode_) return;
    compare_mode_ = c;
    Q_EMIT compareModeChanged();
}

void AppController::updateCompareSummary() {
    compare_summary_.clear();
    if (run_.complete() && compare_.complete()) {
        const auto& a = *run_.history().summary();
        const auto& b = *compare_.history().summary();
        const auto d = diffWords(QString::fromStdString(a.text), QString::fromStdString(b.text));
        compare_summary_ = QVariantMap{
            {"flopsRatioA", a.flops_ratio()}, {"flopsRatioB", b.flops_ratio()},
            {"flopsAoverB", b.paper_flops > 0 ? a.paper_flops / b.paper_flops : 0.0},
            {"speedupAoverB", a.wall_s > 0 ? b.wall_s / a.wall_s : 0.0},
            {"wallA", a.wall_s}, {"wallB", b.wall_s}, {"stepsA", a.steps}, {"stepsB", b.steps},
            {"tpsA", a.e2e_tps()}, {"tpsB", b.e2e_tps()},
            {"agree", d.identical}, {"changedWords", d.changedWords},
            {"textA", d.leftHtml}, {"textB", d.rightHtml}};
    }
    Q_EMIT compareSummaryChanged();
}

// --- replay, files ---------------------------------------------------------------------------

void AppController::setViewStep(int step) {
    run_.setViewStep(step);
    if (compare_mode_) compare_.setViewStep(step);
}

void AppController::setReplaySpeed(double s) {
    s = std::clamp(s, 0.5, 240.0);
    if (qFuzzyCompare(s, replay_speed_)) return;
    replay_speed_ = s;
    if (replay_timer_.isActive()) replay_timer_.setInterval(int(1000 / replay_speed_));
    Q_EMIT replaySpeedChanged();
    saveSettings();
}

void AppController::startReplay() {
    if (running_ || run_.stepCount() == 0) return;
    if (run_.viewStep() >= run_.stepCount() - 1) setViewStep(0);
    replay_timer_.start(int(1000 / replay_speed_));
    Q_EMIT replayingChanged();
}

void AppController::stopReplay() {
    if (!replay_timer_.isActive()) return;
    replay_timer_.stop();
    Q_EMIT replayingChanged();
}

void AppController::replayTick() {
    const int last = std::max(run_.stepCount(), compare_mode_ ? compare_.stepCount() : 0) - 1;
    if (run_.viewStep() >= last) return stopReplay();
    setViewStep(run_.viewStep() + 1);
}

bool AppController::openTrace(const QString& pathOrUrl) {
    const QString path = toLocalPath(pathOrUrl);
    try {
        auto file = dlm::read_trace(std::filesystem::path(path.toStdString()));
        if (running_) stop();
        stopReplay();
        setCompareMode(false);
        compare_.clear();
        adoptTraceSettings(file.header);
        run_.begin(std::make_shared<const dlm::TraceHeader>(std::move(file.header)));
        for (auto& s : file.steps) run_.record(std::make_shared<const dlm::StepTrace>(std::move(s)));
        run_.flush();
        if (file.summary) run_.finish(std::make_shared<const dlm::TraceSummary>(*file.summary));
        setViewStep(run_.stepCount() - 1);
        Q_EMIT settingsChanged();
        setStatus(tr("Opened trace %1 (%2 steps)").arg(QFileInfo(path).fileName()).arg(run_.stepCount()));
        Q_EMIT runCompleted(true);
        return true;
    } catch (const std::exception& e) {
        setError(tr("Could not open the trace: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
}

// The left panel shows what the trace was decoded with, so that Run (with a model loaded)
// decodes the same prompt with the same settings instead of whatever was there before.
void AppController::adoptTraceSettings(const dlm::TraceHeader& h) {
    if (!h.settings.empty()) {
        for (const auto& [k, v] : h.settings) settings_.insert(QString::fromStdString(k), QString::fromStdString(v));
        preset_index_ = matchPreset(settings_);
        Q_EMIT settingsChanged();
    }
    const QString prompt = QString::fromStdString(h.prompt);
    if (!prompt.isEmpty() && prompt != prompt_) {
        prompt_ = prompt;
        Q_EMIT promptChanged();
    }
    validate_timer_.start();
    saveSettings();
}

bool AppController::saveTrace(const QString& pathOrUrl) {
    const QString path = toLocalPath(pathOrUrl);
    const auto& h = run_.history();
    if (!h.header()) {
        setError(tr("Nothing to save: run a decode or open a trace first."));
        return false;
    }
    try {
        dlm::TraceWriter w(std::filesystem::path(path.toStdString()));
        w.write_header(*h.header());
        for (int i = 0; i < h.stepCount(); ++i) w.write_step(h.step(i));
        if (h.summary()) w.write_summary(*h.summary());
        w.flush();
        setStatus(tr("Saved trace %1").arg(path));
        return true;
    } catch (const std::exception& e) {
        setError(tr("Could not save the trace: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
}

bool AppController::exportCsv(const QString& pathOrUrl) {
    const QString err = writeStepCsv(*run_.stats(), toLocalPath(pathOrUrl));
    if (!err.isEmpty()) {
        setError(err);
        return false;
    }
    setStatus(tr("Exported %1 steps to %2").arg(run_.stats()->count()).arg(toLocalPath(pathOrUrl)));
    return true;
}

void AppController::setStatus(const QString& s) {
    if (s == status_) return;
    status_ = s;
    Q_EMIT statusChanged();
}

void AppController::setError(const QString& e) {
    if (e == error_) return;
    error_ = e;
    Q_EMIT errorChanged();
}

void AppController::clearError() { setError({}); }
