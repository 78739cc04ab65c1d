#pragma once
// What the next run decodes (`App.config` in QML): the prompt, the settings of run A and of run B
// (compare mode), the presets, the worked examples, and the engine's verdict on them. Every
// control comes from the engine's settings schema (decode/settings_schema.h); the defaults are
// the schema's under the loaded model's generation_config.json. Edits are checked by the engine a
// moment after the last keystroke (the newest request wins) and saved.
#include <string>

#include <QObject>
#include <QtQml/qqmlregistration.h>
#include <QTimer>
#include <QVariantList>
#include <QVariantMap>

#include "decode_engine.h"

namespace dlm {
struct TraceHeader;
}

class DecodeConfig : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("DecodeConfig is owned by the App singleton (App.config)")
    Q_PROPERTY(QString prompt READ prompt WRITE setPrompt NOTIFY promptChanged)
    Q_PROPERTY(bool chat READ chat WRITE setChat NOTIFY chatChanged)
    Q_PROPERTY(QVariantMap settings READ settings NOTIFY settingsChanged)
    Q_PROPERTY(QVariantMap compareSettings READ compareSettings NOTIFY settingsChanged)
    Q_PROPERTY(QVariantList presets READ presets CONSTANT)
    Q_PROPERTY(int presetIndex READ presetIndex NOTIFY settingsChanged)
    // With custom settings: the preset last chosen, and the settings that now differ from it.
    Q_PROPERTY(int basePresetIndex READ basePresetIndex NOTIFY settingsChanged)
    Q_PROPERTY(QStringList presetDifferences READ presetDifferences NOTIFY settingsChanged)
    Q_PROPERTY(int comparePresetIndex READ comparePresetIndex NOTIFY settingsChanged)
    Q_PROPERTY(QStringList strategies READ strategies CONSTANT)
    // One control per schema entry: {key, label, kind, min, max, help, options, default,
    // placeholder, for (a pattern of the strategies that read it)}.
    Q_PROPERTY(QVariantList parameters READ parameters CONSTANT)
    // The engine's issues with the current prompt and settings: {severity, key, message}.
    Q_PROPERTY(QVariantList issues READ issues NOTIFY issuesChanged)
    // The loaded model's generation_config.json: the settings whose default it changes (key ->
    // value) and one line saying so, with what it publishes that is not used. A setting still at
    // its old default follows a newly loaded model's; one the user changed stays.
    Q_PROPERTY(QVariantMap modelDefaults READ modelDefaults NOTIFY settingsChanged)
    Q_PROPERTY(QString modelDefaultsNote READ modelDefaultsNote NOTIFY settingsChanged)
    // Worked examples, one per task family of the embedded model (resources/eval/examples.jsonl):
    // {family, label, prompt, answer, genLength}. The first is the default prompt.
    Q_PROPERTY(QVariantList examples READ examples CONSTANT)
    // The example the current prompt is, or -1 when it was edited into something else.
    Q_PROPERTY(int exampleIndex READ exampleIndex NOTIFY promptChanged)

public:
    // persist: write edits to QSettings; restore: start from what was saved.
    DecodeConfig(DecodeEngine* engine, bool persist, bool restore, QObject* parent = nullptr);

    QString prompt() const { return prompt_; }
    void setPrompt(const QString& p);
    bool chat() const { return chat_; }
    void setChat(bool c);
    QVariantMap settings() const { return settings_; }
    QVariantMap compareSettings() const { return compare_settings_; }
    // What a run of A (of B) sends to the engine: the decode settings and the parameters of the
    // chosen strategy. Other strategies' parameters stay here, their controls hidden, for when
    // that strategy is chosen again; sent, they would only draw "ignored" warnings. A key no
    // strategy declares is sent, for the engine to refuse.
    QVariantMap runSettings() const { return forItsStrategy(settings_); }
    QVariantMap compareRunSettings() const { return forItsStrategy(compare_settings_); }
    // Why `key` cannot be set ("" when the schema declares it): the engine's message, with the key
    // probably meant. The parameter field keeps such a key instead of storing one no control clears.
    Q_INVOKABLE QString unknownKeyMessage(const QString& key) const;
    // The value run A would use for strategy parameter `key`: the one given, else its default;
    // empty when A's strategy does not read it.
    QString parameterInEffect(const QString& key) const;
    QVariantList presets() const { return presets_; }
    int presetIndex() const { return preset_index_; }
    int basePresetIndex() const;  // the preset the settings are closest to
    QStringList presetDifferences() const;
    int comparePresetIndex() const { return compare_preset_index_; }
    QStringList strategies() const { return strategies_; }
    QVariantList parameters() const { return parameters_; }
    QVariantList issues() const { return issues_; }
    bool hasErrors() const;
    QVariantMap modelDefaults() const;
    QString modelDefaultsNote() const { return model_defaults_note_; }
    QVariantList examples() const { return examples_; }
    int exampleIndex() const;
    // The known answer of a prompt that is one of the worked examples; "" otherwise.
    QString answerFor(const QString& prompt) const;

    Q_INVOKABLE void setSetting(const QString& key, const QVariant& value);
    Q_INVOKABLE void setCompareSetting(const QString& key, const QVariant& value);
    Q_INVOKABLE void applyPreset(int index);
    // Run B starts from run A's settings with the preset's strategy.
    Q_INVOKABLE void applyComparePreset(int index);
    Q_INVOKABLE void resetSettings();
    // Puts a worked example in the prompt and sizes the canvas for its whole answer.
    Q_INVOKABLE void useExample(int index);
    Q_INVOKABLE QString issueFor(const QString& key) const;  // the first issue naming `key`
    // Why run A does not read `key` under its settings ("read only while surelock.unlock=on"), or
    // "" (the engine's only_when_unmet): its control is dimmed and says so.
    Q_INVOKABLE QString unreadReason(const QString& key) const;
    // "error", "warning" or "" (none) for the first issue naming `key`: how the control shows it.
    Q_INVOKABLE QString issueSeverityFor(const QString& key) const;
    // The issues no parameter control shows: those naming no setting, or one without a control.
    Q_INVOKABLE QVariantList generalIssues() const;

    // Run B shares run A's prompt, seed and lengths (its block length too, unless B has its own);
    // returns B's settings so aligned.
    QVariantMap alignCompareToRun();
    // A model was loaded (its chat template and generation defaults apply) or moved to another
    // backend (nothing changes but the check against it).
    void adoptModel(const ModelInfo& info, bool switched);
    // Validation needs a model: off until one is loaded, and off again when it is closed.
    void setModelReady(bool ready);
    // An opened trace: the panel shows what it was decoded with, so Run decodes the same.
    void adoptTrace(const dlm::TraceHeader& header, const dlm::TraceHeader* compare = nullptr);  // compare: run B's

Q_SIGNALS:
    void promptChanged();
    void chatChanged();
    void settingsChanged();
    void issuesChanged();

private:
    void requestValidation();
    void onValidated(quint64 requestId, const QVariantList& issues);
    void edited();  // validate soon and save
    static QVariantMap forItsStrategy(const QVariantMap& settings);
    void save() const;
    void restore();
    int matchPreset(const QVariantMap& s) const;
    QStringList differencesFrom(int presetIndex) const;  // keys A's settings change from that preset
    void mergePreset(QVariantMap& s, int index) const;

    DecodeEngine* engine_;
    bool persist_, ready_ = false, model_ready_ = false;
    QString prompt_;
    bool chat_ = true;
    QVariantMap settings_, compare_settings_;
    // What Defaults and the presets reset to: the schema's defaults on the first worked example's
    // canvas, under the loaded model's generation_config.json.
    QVariantMap defaults_;
    QString model_defaults_note_;
    // The loaded model's family ("llada", "dream"), or an opened trace's while none is loaded: what
    // sampler=auto decodes as, when the panel names the preset a run is.
    std::string family_;
    QVariantList issues_, presets_, parameters_, examples_;
    QStringList strategies_;
    int preset_index_ = 0, compare_preset_index_ = 1, base_preset_ = 0;
    // B's block length is its own (its preset names one, or it was set for B) rather than A's,
    // which B otherwise follows: a compare changes the strategy, not the blocks, unless asked to.
    bool compare_block_own_ = false;
    quint64 validation_counter_ = 0;
    QTimer validate_timer_;
};
