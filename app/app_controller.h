#pragma once
// The application's state and actions as QML sees them (singleton `App`). Owns the worker thread
// (DecodeWorker moved to it; queued calls only; quit()+wait() on destruction), the two RunViews
// (the run, and run B of compare mode), the decode settings with their live validation, the
// trace file I/O and the settings persistence. Steps are recorded on arrival and applied to the
// views by a frame timer, so a burst of fast steps costs one repaint.
#include <QObject>
#include <QThread>
#include <QTimer>
#include <QVariantList>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

#include "decode_worker.h"
#include "run_view.h"

class QQmlEngine;
class QJSEngine;

class AppController : public QObject {
    Q_OBJECT
    QML_NAMED_ELEMENT(App)
    QML_SINGLETON
    Q_PROPERTY(RunView* run READ run CONSTANT)
    Q_PROPERTY(RunView* compareRun READ compareRun CONSTANT)
    Q_PROPERTY(QString modelName READ modelName NOTIFY modelChanged)
    Q_PROPERTY(QString modelSummary READ modelSummary NOTIFY modelChanged)
    Q_PROPERTY(QString modelDir READ modelDir NOTIFY modelChanged)
    Q_PROPERTY(bool modelLoaded READ modelLoaded NOTIFY modelChanged)
    Q_PROPERTY(bool loading READ loading NOTIFY loadingChanged)
    Q_PROPERTY(QString loadingWhat READ loadingWhat NOTIFY loadingChanged)
    Q_PROPERTY(bool switchingBackend READ switchingBackend NOTIFY loadingChanged)
    // The compute backend: `backend` is the user's choice ("auto", "cpu", "cuda"; saved);
    // `backendName` is what runs the loaded model and `backendNote` why that differs from the
    // choice (no CUDA in this build, no usable GPU, not enough device memory), empty otherwise.
    Q_PROPERTY(QString backend READ backend WRITE setBackend NOTIFY backendChanged)
    Q_PROPERTY(QStringList backendChoices READ backendChoices CONSTANT)
    Q_PROPERTY(QString backendName READ backendName NOTIFY modelChanged)
    Q_PROPERTY(QString backendNote READ backendNote NOTIFY modelChanged)
    // The loaded model's chat template: whether prompts can go through it, which one it is, and
    // for a published template the engine does not render exactly, why prompts go in raw.
    Q_PROPERTY(bool chatAvailable READ chatAvailable NOTIFY modelChanged)
    Q_PROPERTY(QString chatTemplateName READ chatTemplateName NOTIFY modelChanged)
    Q_PROPERTY(QString chatTemplateNote READ chatTemplateNote NOTIFY modelChanged)
    // The loaded model's generation_config.json: the settings whose default it changes (key ->
    // value) and one line saying so, with what it publishes that is not used. A setting still at
    // its old default follows a newly loaded model's; one the user changed stays.
    Q_PROPERTY(QVariantMap modelDefaults READ modelDefaults NOTIFY modelChanged)
    Q_PROPERTY(QString modelDefaultsNote READ modelDefaultsNote NOTIFY modelChanged)
    Q_PROPERTY(bool cudaBuilt READ cudaBuilt CONSTANT)
    Q_PROPERTY(bool running READ running NOTIFY runningChanged)
    Q_PROPERTY(bool paused READ paused NOTIFY runningChanged)
    Q_PROPERTY(QString status READ status NOTIFY statusChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorChanged)
    Q_PROPERTY(QString prompt READ prompt WRITE setPrompt NOTIFY promptChanged)
    Q_PROPERTY(bool chat READ chat WRITE setChat NOTIFY chatChanged)
    Q_PROPERTY(QVariantMap settings READ settings NOTIFY settingsChanged)
    Q_PROPERTY(QVariantMap compareSettings READ compareSettings NOTIFY settingsChanged)
    Q_PROPERTY(QVariantList issues READ issues NOTIFY issuesChanged)
    Q_PROPERTY(bool canRun READ canRun NOTIFY issuesChanged)
    Q_PROPERTY(QVariantList presets READ presets CONSTANT)
    Q_PROPERTY(int presetIndex READ presetIndex NOTIFY settingsChanged)
    // With custom settings: the preset last chosen, and the settings that now differ from it.
    Q_PROPERTY(int basePresetIndex READ basePresetIndex NOTIFY settingsChanged)
    // False with --no-restore: the window also starts at its default size.
    Q_PROPERTY(bool restoresSettings READ restoresSettings CONSTANT)
    Q_PROPERTY(QStringList presetDifferences READ presetDifferences NOTIFY settingsChanged)
    Q_PROPERTY(int comparePresetIndex READ comparePresetIndex NOTIFY settingsChanged)
    Q_PROPERTY(QStringList strategies READ strategies CONSTANT)
    Q_PROPERTY(QVariantList parameters READ parameters CONSTANT)
    Q_PROPERTY(double epsilon READ epsilon NOTIFY settingsChanged)
    Q_PROPERTY(bool compareMode READ compareMode WRITE setCompareMode NOTIFY compareModeChanged)
    Q_PROPERTY(QVariantMap compareSummary READ compareSummary NOTIFY compareSummaryChanged)
    Q_PROPERTY(bool replaying READ replaying NOTIFY replayingChanged)
    Q_PROPERTY(double replaySpeed READ replaySpeed WRITE setReplaySpeed NOTIFY replaySpeedChanged)
    Q_PROPERTY(QVariantList legend READ legend CONSTANT)
    Q_PROPERTY(int framesApplied READ framesApplied NOTIFY framesAppliedChanged)
    // Worked examples, one per task family of the embedded model (resources/eval/examples.jsonl):
    // {family, label, prompt, answer, genLength}. The first is the default prompt.
    Q_PROPERTY(QVariantList examples READ examples CONSTANT)
    // The example the current prompt is, or -1 when it was edited into something else.
    Q_PROPERTY(int exampleIndex READ exampleIndex NOTIFY promptChanged)

public:
    struct Options {
        bool persist = true;  // read/write QSettings (tests turn it off)
        bool restore = true;  // start from the saved settings
    };
    // Deliberately not default-constructible: Qt 6.4 prefers a default constructor over create()
    // for QML singletons, and the QML `App` must be the instance main() (or a test) made.
    explicit AppController(Options options, QObject* parent = nullptr);
    ~AppController() override;

    // The QML singleton is the instance main() (or a test) created.
    static AppController* create(QQmlEngine*, QJSEngine*);
    static void setInstance(AppController* c);

    RunView* run() { return &run_; }
    RunView* compareRun() { return &compare_; }
    QString modelName() const { return model_.name; }
    QString modelSummary() const { return model_.summary; }
    QString modelDir() const { return model_.dir; }
    bool modelLoaded() const { return model_loaded_; }
    bool loading() const { return loading_; }
    QString loadingWhat() const { return loading_what_; }
    bool switchingBackend() const { return loading_ && switching_backend_; }
    QString backend() const { return backend_choice_; }
    // Moves the loaded model (if any) to the chosen backend; the runs shown are kept.
    void setBackend(const QString& choice);
    QStringList backendChoices() const { return {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")}; }
    QString backendName() const { return model_loaded_ ? model_.backend : QString(); }
    QString backendNote() const { return model_loaded_ ? model_.backendNote : QString(); }
    bool chatAvailable() const { return model_loaded_ && model_.chatTemplate; }
    QString chatTemplateName() const { return model_loaded_ ? model_.chatTemplateName : QString(); }
    QString chatTemplateNote() const { return model_loaded_ ? model_.chatTemplateNote : QString(); }
    QVariantMap modelDefaults() const;
    QString modelDefaultsNote() const { return model_defaults_note_; }
    bool cudaBuilt() const;
    bool running() const { return running_; }
    bool paused() const { return paused_; }
    QString status() const { return status_; }
    QString errorString() const { return error_; }
    QString prompt() const { return prompt_; }
    void setPrompt(const QString& p);
    bool chat() const { return chat_; }
    void setChat(bool c);
    QVariantMap settings() const { return settings_; }
    QVariantMap compareSettings() const { return compare_settings_; }
    QVariantList issues() const { return issues_; }
    bool canRun() const;
    QVariantList presets() const { return presets_; }
    int presetIndex() const { return preset_index_; }
    int basePresetIndex() const { return base_preset_; }
    bool restoresSettings() const { return options_.persist && options_.restore; }
    QStringList presetDifferences() const;
    int comparePresetIndex() const { return compare_preset_index_; }
    QStringList strategies() const { return strategies_; }
    QVariantList parameters() const { return parameters_; }
    double epsilon() const;
    bool compareMode() const { return compare_mode_; }
    void setCompareMode(bool c);
    QVariantMap compareSummary() const { return compare_summary_; }
    bool replaying() const { return replay_timer_.isActive(); }
    double replaySpeed() const { return replay_speed_; }
    void setReplaySpeed(double s);
    QVariantList legend() const;
    int framesApplied() const { return frames_applied_; }
    QVariantList examples() const { return examples_; }
    int exampleIndex() const;
    // The known answer of a prompt that is one of the worked examples; "" otherwise.
    QString answerFor(const QString& prompt) const;

    // Actions (all return at once; results arrive as property changes).
    Q_INVOKABLE void loadModel(const QString& dirOrUrl);
    Q_INVOKABLE void cancelLoad();
    Q_INVOKABLE void runDecode();    // Run: a fresh run with the current prompt and settings
    Q_INVOKABLE void rerun();        // Re-run: same prompt, same seed, one action
    Q_INVOKABLE void runCompare();   // A (settings) then B (compare settings), same prompt and seed
    Q_INVOKABLE void pause();
    Q_INVOKABLE void resume();
    Q_INVOKABLE void stepOnce();     // one decode step while paused; else one replay step
    Q_INVOKABLE void stop();
    // The toolbar's Compare switch: on starts the A/B pair when a run can start (else only shows
    // the two panes, B waiting for Run); off returns to the single view.
    Q_INVOKABLE void toggleCompare(bool on);
    // Puts a worked example in the prompt and sizes the canvas for its whole answer.
    Q_INVOKABLE void useExample(int index);
    Q_INVOKABLE void setSetting(const QString& key, const QVariant& value);
    Q_INVOKABLE void setCompareSetting(const QString& key, const QVariant& value);
    Q_INVOKABLE void applyPreset(int index);
    Q_INVOKABLE void applyComparePreset(int index);
    Q_INVOKABLE void resetSettings();
    Q_INVOKABLE bool openTrace(const QString& pathOrUrl);
    Q_INVOKABLE bool saveTrace(const QString& pathOrUrl);
    Q_INVOKABLE bool exportCsv(const QString& pathOrUrl);
    Q_INVOKABLE void startReplay();
    Q_INVOKABLE void stopReplay();
    Q_INVOKABLE void setViewStep(int step);  // both runs in lock-step
    Q_INVOKABLE void clearError();
    Q_INVOKABLE QString toLocalPath(const QString& pathOrUrl) const;
    Q_INVOKABLE QString issueFor(const QString& key) const;  // the first issue naming `key`
    // "error", "warning" or "" (none) for the first issue naming `key`: how the control shows it.
    Q_INVOKABLE QString issueSeverityFor(const QString& key) const;
    // The issues no parameter control shows: those naming no setting, or one without a control.
    Q_INVOKABLE QVariantList generalIssues() const;
    Q_INVOKABLE void reportError(const QString& message) { setError(message); }
    Q_INVOKABLE void reportStatus(const QString& message) { setStatus(message); }

    void applyFrame();  // the frame tick (public for tests)

Q_SIGNALS:
    void modelChanged();
    void loadingChanged();
    void backendChanged();
    void runningChanged();
    void statusChanged();
    void errorChanged();
    void promptChanged();
    void chatChanged();
    void settingsChanged();
    void issuesChanged();
    void compareModeChanged();
    void compareSummaryChanged();
    void replayingChanged();
    void replaySpeedChanged();
    void framesAppliedChanged();
    // A run (or compare pair, or an opened trace) is complete and shown: automation hooks here.
    void runCompleted(bool ok);

private:
    void onModelLoaded(quint64 ticket, const ModelInfo& info);
    void onModelLoadFailed(quint64 ticket, const QString& error);
    void onRunStarted(quint64 runId, const TraceHeaderPtr& header, const QStringList& warnings);
    void onStepReady(quint64 runId, const StepTracePtr& step);
    void onRunFinished(quint64 runId, const TraceSummaryPtr& summary, bool cancelled);
    void onRunFailed(quint64 runId, const QString& error);
    void onValidated(quint64 requestId, const QVariantList& issues);
    void startRunInto(RunView* view, const QVariantMap& settings);
    void requestValidation();
    void updateCompareSummary();
    void replayTick();
    void setStatus(const QString& s);
    void setError(const QString& e);
    void adoptTraceSettings(const dlm::TraceHeader& h);
    void setRunning(bool running, bool paused);
    void saveSettings() const;
    void loadSettings();
    void buildCatalogue();
    int matchPreset(const QVariantMap& s) const;
    void mergePreset(QVariantMap& s, int index) const;
    void adoptModelDefaults(const ModelInfo& info);

    Options options_;
    QThread thread_;
    DecodeWorker* worker_ = nullptr;
    RunView run_, compare_;
    QVariantList examples_;
    ModelInfo model_;
    bool model_loaded_ = false, loading_ = false;
    bool switching_backend_ = false;  // the current load moves the model to another backend
    QString loading_what_, loading_dir_;
    QString backend_choice_ = QStringLiteral("auto");
    quint64 load_ticket_ = 0, run_counter_ = 0, validation_counter_ = 0;
    QHash<quint64, RunView*> run_targets_;
    quint64 compare_b_pending_ = 0;  // run A of a compare pair; B starts when it finishes
    bool running_ = false, paused_ = false;
    QString status_, error_, prompt_;
    bool chat_ = true;
    QVariantMap settings_, compare_settings_;
    // What Defaults and the presets reset to: the schema's defaults on the first worked example's
    // canvas, under the loaded model's generation_config.json.
    QVariantMap defaults_;
    QString model_defaults_note_;
    QVariantList issues_;
    QVariantList presets_, parameters_;
    QStringList strategies_;
    int preset_index_ = 0, compare_preset_index_ = 1;
    int base_preset_ = 0;
    bool compare_mode_ = false;
    QVariantMap compare_summary_;
    QTimer frame_timer_, validate_timer_, replay_timer_;
    double replay_speed_ = 20;
    int frames_applied_ = 0;
};
