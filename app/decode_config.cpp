#include "decode_config.h"

#include <algorithm>
#include <limits>
#include <set>

#include <QFile>
#include <QRegularExpression>
#include <QSettings>

#include "decode/decode_settings.h"
#include "decode/generation_defaults.h"
#include "decode/settings_schema.h"
#include "decode/strategy.h"
#include "eval/eval_example.h"
#include "trace/step_trace.h"

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

// The worked examples, embedded in the app from resources/eval/examples.jsonl (the single copy).
QVariantList loadExamples() {
    QFile f(QStringLiteral(":/Dlmscope/examples.jsonl"));
    QVariantList out;
    if (!f.open(QIODevice::ReadOnly)) return out;
    try {
        for (const dlm::EvalExample& e : dlm::parse_eval_jsonl(f.readAll().toStdString(), "examples.jsonl")) {
            QString family = QString::fromStdString(e.family);
            QString label = QString::fromStdString(e.title);
            if (label.isEmpty()) {  // "word_problem" -> "Word problem"
                label = family;
                label.replace('_', ' ');
                label[0] = label[0].toUpper();
            }
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

// Blocks must tile the canvas (0, one block, stays 0).
void fitBlockLength(QVariantMap& s) {
    const int block = s.value("block_length").toInt();
    if (block <= 0) return;
    s.insert("block_length", QString::number(dlm::block_that_tiles(s.value("gen_length").toInt(), block)));
}

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
    if (!help.endsWith('.')) help += '.';  // the schema's help is one line without a full stop
    help += DecodeConfig::tr(" Default: %1; range %2.")
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

}  // namespace

DecodeConfig::DecodeConfig(DecodeEngine* engine, bool persist, bool restoreSaved, QObject* parent)
    : QObject(parent), engine_(engine), persist_(persist) {
    for (const auto& s : dlm::known_strategies()) strategies_ << QString::fromStdString(s);
    // The engine's presets and every setting and parameter of its schema, as controls.
    for (const auto& p : dlm::strategy_presets())
        presets_.push_back(QVariantMap{{"name", QString::fromStdString(p.name)},
                                       {"description", QString::fromStdString(p.description)},
                                       {"settings", fromStd(p.settings)}});
    compare_preset_index_ = presets_.size() > 1 ? 1 : 0;
    for (const auto& s : dlm::settings_schema()) parameters_.push_back(controlFor(s));

    examples_ = loadExamples();
    prompt_ = examples_.isEmpty() ? QString() : examples_.front().toMap().value("prompt").toString();
    settings_ = defaultSettings(examples_);
    defaults_ = settings_;
    applyPreset(preset_index_);
    compare_settings_ = settings_;
    applyComparePreset(compare_preset_index_);
    if (persist_ && restoreSaved) restore();

    validate_timer_.setSingleShot(true);
    validate_timer_.setInterval(120);
    connect(&validate_timer_, &QTimer::timeout, this, &DecodeConfig::requestValidation);
    connect(engine_, &DecodeEngine::validated, this, &DecodeConfig::onValidated);
    ready_ = true;
}

QString DecodeConfig::unknownKeyMessage(const QString& key) const {
    const std::string k = key.trimmed().toStdString();
    return dlm::find_setting_spec(k) ? QString() : QString::fromStdString(dlm::unknown_setting_message(k));
}

QString DecodeConfig::parameterInEffect(const QString& key) const {
    return QString::fromStdString(dlm::parameter_in_effect(toStd(settings_), key.toStdString()));
}

QVariantMap DecodeConfig::forItsStrategy(const QVariantMap& settings) {
    const std::set<std::string> read = dlm::namespaces_of(settings.value("strategy").toString().toStdString());
    QVariantMap out;
    for (auto it = settings.cbegin(); it != settings.cend(); ++it) {
        const std::string key = it.key().toStdString();
        const auto dot = key.find('.');
        // A key no strategy declares (typed in the parameter field) goes too: the engine refuses it.
        if (dot == std::string::npos || read.count(key.substr(0, dot)) || !dlm::find_setting_spec(key))
            out.insert(it.key(), it.value());
    }
    return out;
}

void DecodeConfig::save() const {
    if (!persist_ || !ready_) return;  // not while the constructor sets the defaults
    QSettings q;
    q.setValue("decode/prompt", prompt_);
    q.setValue("decode/chat", chat_);
    q.setValue("decode/settings", settings_);
    q.setValue("decode/compareSettings", compare_settings_);
    q.setValue("decode/defaults", defaults_);  // the loaded model's: what restore() need not keep
}

void DecodeConfig::restore() {
    QSettings q;
    prompt_ = q.value("decode/prompt", prompt_).toString();
    chat_ = q.value("decode/chat", chat_).toBool();
    // A key this version does not declare (saved by an older one) is dropped: it has no control
    // to clear it, and the engine refuses it. A value that was only the last model's default
    // (Dream's alg=maskgit_plus) is not a choice of the user's: it stays at the default, so that
    // the model loaded now gives its own instead of inheriting the other's.
    const QVariantMap saved_defaults = q.value("decode/defaults").toMap();
    const auto take = [&saved_defaults](QVariantMap& into, const QVariantMap& saved) {
        for (auto it = saved.cbegin(); it != saved.cend(); ++it) {
            if (!dlm::find_setting_spec(it.key().toStdString())) continue;
            const auto was_default = saved_defaults.constFind(it.key());
            if (was_default != saved_defaults.cend() && was_default->toString() == it.value().toString()) continue;
            into.insert(it.key(), it.value());
        }
    };
    take(settings_, q.value("decode/settings").toMap());
    take(compare_settings_, q.value("decode/compareSettings").toMap());
    compare_block_own_ = compare_settings_.value("block_length") != settings_.value("block_length");
    preset_index_ = matchPreset(settings_);
    compare_preset_index_ = matchPreset(compare_settings_);
}

void DecodeConfig::edited() {
    if (ready_) validate_timer_.start();
    save();
}

void DecodeConfig::setPrompt(const QString& p) {
    if (p == prompt_) return;
    prompt_ = p;
    Q_EMIT promptChanged();
    edited();
}

void DecodeConfig::setChat(bool c) {
    if (c == chat_) return;
    chat_ = c;
    Q_EMIT chatChanged();
    edited();
}

void DecodeConfig::setSetting(const QString& key, const QVariant& value) {
    const QString v = value.toString();
    // An emptied strategy parameter goes back to its default (the engine refuses an empty value).
    if (key.contains('.') && v.trimmed().isEmpty()) {
        if (!settings_.contains(key)) return;
        settings_.remove(key);
    } else {
        if (settings_.contains(key) && settings_.value(key).toString() == v) return;
        // Steps follow the canvas while they equal it (one token per step), as in the CLI, so a
        // new gen length does not leave a step count meant for another canvas.
        if (key == QLatin1String("gen_length") &&
            settings_.value("steps").toString() == settings_.value("gen_length").toString() && v.toInt() > 0)
            settings_.insert("steps", v);
        settings_.insert(key, v);
    }
    preset_index_ = matchPreset(settings_);
    Q_EMIT settingsChanged();
    edited();
}

void DecodeConfig::setCompareSetting(const QString& key, const QVariant& value) {
    compare_settings_.insert(key, value.toString());
    if (key == QLatin1String("block_length")) compare_block_own_ = true;
    compare_preset_index_ = matchPreset(compare_settings_);
    Q_EMIT settingsChanged();
    save();
}

// A preset matches when applying it would change nothing: its own settings, the schema's
// defaults for the rest, and no strategy parameter it does not name.
int DecodeConfig::matchPreset(const QVariantMap& s) const {
    const dlm::StrategyPreset* p = dlm::matching_preset(toStd(s), toStd(defaults_), family_);
    return p ? int(p - dlm::strategy_presets().data()) : -1;
}

void DecodeConfig::mergePreset(QVariantMap& s, int index) const {
    const auto& presets = dlm::strategy_presets();
    if (index < 0 || index >= int(presets.size())) return;
    s = fromStd(dlm::apply_preset(toStd(s), presets[size_t(index)], toStd(defaults_)));
}

QStringList DecodeConfig::differencesFrom(int index) const {
    QStringList keys;
    for (const std::string& k :
         dlm::preset_differences(toStd(settings_), dlm::strategy_presets()[size_t(index)], toStd(defaults_), family_))
        keys << QString::fromStdString(k);
    return keys;
}

// Settings from an opened trace were never a preset applied: the description names the preset
// they are closest to (the fewest keys apart), the last one applied when it is as close.
int DecodeConfig::basePresetIndex() const {
    const int n = int(dlm::strategy_presets().size());
    if (preset_index_ >= 0) return preset_index_;
    int best = base_preset_ >= 0 && base_preset_ < n ? base_preset_ : -1;
    qsizetype fewest = best >= 0 ? differencesFrom(best).size() : std::numeric_limits<qsizetype>::max();
    for (int i = 0; i < n; ++i)
        if (const qsizetype d = differencesFrom(i).size(); d < fewest) best = i, fewest = d;
    return best;
}

QStringList DecodeConfig::presetDifferences() const {
    const int base = basePresetIndex();
    if (preset_index_ >= 0 || base < 0) return {};
    return differencesFrom(base);
}

void DecodeConfig::applyPreset(int index) {
    mergePreset(settings_, index);
    base_preset_ = index;
    preset_index_ = matchPreset(settings_);
    Q_EMIT settingsChanged();
    edited();
}

void DecodeConfig::applyComparePreset(int index) {
    compare_settings_ = settings_;  // same prompt, seed and lengths: only the strategy differs
    mergePreset(compare_settings_, index);
    const auto& presets = dlm::strategy_presets();
    compare_block_own_ = index >= 0 && index < int(presets.size()) && presets[size_t(index)].settings.count("block_length");
    compare_preset_index_ = matchPreset(compare_settings_);
    Q_EMIT settingsChanged();
    save();
}

void DecodeConfig::resetSettings() {
    settings_ = defaults_;
    applyPreset(0);
    applyComparePreset(presets_.size() > 1 ? 1 : 0);
}

QVariantMap DecodeConfig::alignCompareToRun() {
    QVariantMap b = compare_settings_;
    for (const char* k : {"seed", "gen_length", "steps"}) b.insert(k, settings_.value(k));
    if (!compare_block_own_) b.insert("block_length", settings_.value("block_length"));
    fitBlockLength(b);  // B's own block length stays where it tiles A's canvas
    if (b != compare_settings_) {
        compare_settings_ = b;
        Q_EMIT settingsChanged();
        save();
    }
    return b;
}

int DecodeConfig::exampleIndex() const {
    for (int i = 0; i < examples_.size(); ++i)
        if (examples_[i].toMap().value("prompt").toString() == prompt_) return i;
    return -1;
}

QString DecodeConfig::answerFor(const QString& prompt) const {
    for (const auto& e : examples_) {
        const QVariantMap m = e.toMap();
        if (m.value("prompt").toString() == prompt.trimmed()) return m.value("answer").toString();
    }
    return {};
}

void DecodeConfig::useExample(int index) {
    if (index < 0 || index >= examples_.size()) return;
    const QVariantMap e = examples_[index].toMap();
    const int gen = e.value("genLength").toInt();
    // The whole answer must fit: the canvas follows the example (and steps, when they did).
    QVariantMap fitted = settings_;
    fitted.insert("gen_length", QString::number(gen));
    fitBlockLength(fitted);
    setSetting(QStringLiteral("gen_length"), gen);
    setSetting(QStringLiteral("block_length"), fitted.value("block_length"));
    setPrompt(e.value("prompt").toString());
}

void DecodeConfig::adoptModel(const ModelInfo& info, bool switched) {
    if (switched) return setModelReady(true);
    family_ = info.family.toStdString();
    setChat(info.chatTemplate);  // as in the CLI: through the template when there is one it renders
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
    save();
    setModelReady(true);
}

QVariantMap DecodeConfig::modelDefaults() const {
    QVariantMap out;
    const QVariantMap schema = defaultSettings(examples_);
    for (auto it = defaults_.cbegin(); it != defaults_.cend(); ++it)
        if (schema.value(it.key()).toString() != it.value().toString()) out.insert(it.key(), it.value());
    return out;
}

void DecodeConfig::adoptTrace(const dlm::TraceHeader& h, const dlm::TraceHeader* compare) {
    // As asked for, where the trace says: the resolved values ("sampler=llada" for auto) would match
    // no preset, and would pin a run under another model to this one's sampler. The trace's
    // settings replace the panel's, over the defaults: a parameter kept from before
    // (surelock.unlock=on under a fast-dllm trace) would make it another run.
    const auto take = [this](QVariantMap& into, int& preset, const dlm::TraceHeader& from) {
        const auto& given = from.settings_as_asked();
        if (given.empty()) return false;
        into = defaults_;
        for (const auto& [k, v] : given) into.insert(QString::fromStdString(k), QString::fromStdString(v));
        preset = matchPreset(into);
        return true;
    };
    if (!model_ready_) family_ = h.family;  // with a model loaded, Run decodes on that one
    bool changed = take(settings_, preset_index_, h);
    if (compare) changed |= take(compare_settings_, compare_preset_index_, *compare);
    compare_block_own_ = compare_settings_.value("block_length") != settings_.value("block_length");
    if (changed) Q_EMIT settingsChanged();
    const QString prompt = QString::fromStdString(h.prompt);
    if (!prompt.isEmpty() && prompt != prompt_) {
        prompt_ = prompt;
        Q_EMIT promptChanged();
    }
    edited();
}

// --- the engine's verdict -------------------------------------------------------------------

void DecodeConfig::setModelReady(bool ready) {
    model_ready_ = ready;
    if (ready) return requestValidation();
    ++validation_counter_;  // an answer about the closed model is stale
    if (!issues_.isEmpty()) {
        issues_.clear();
        Q_EMIT issuesChanged();
    }
}

void DecodeConfig::requestValidation() {
    if (!model_ready_) return;
    engine_->validate(++validation_counter_, prompt_, runSettings(), chat_);
}

void DecodeConfig::onValidated(quint64 requestId, const QVariantList& issues) {
    if (requestId != validation_counter_) return;  // a newer edit is already being checked
    issues_ = issues;
    Q_EMIT issuesChanged();
}

bool DecodeConfig::hasErrors() const {
    for (const auto& v : issues_)
        if (v.toMap().value("severity") == "error") return true;
    return false;
}

QString DecodeConfig::unreadReason(const QString& key) const {
    const dlm::SettingSpec* spec = dlm::find_setting_spec(key.toStdString());
    return spec ? QString::fromStdString(dlm::only_when_unmet(*spec, toStd(settings_))) : QString();
}

QString DecodeConfig::issueFor(const QString& key) const {
    for (const auto& v : issues_) {
        const auto m = v.toMap();
        if (m.value("key").toString() == key) return m.value("message").toString();
    }
    return {};
}

QString DecodeConfig::issueSeverityFor(const QString& key) const {
    for (const auto& v : issues_) {
        const auto m = v.toMap();
        if (m.value("key").toString() == key) return m.value("severity").toString();
    }
    return {};
}

QVariantList DecodeConfig::generalIssues() const {
    QVariantList out;
    for (const auto& v : issues_) {
        const QString key = v.toMap().value("key").toString();
        bool shown = false;
        for (const auto& p : parameters_) shown = shown || (!key.isEmpty() && p.toMap().value("key").toString() == key);
        if (!shown) out.push_back(v);
    }
    return out;
}
