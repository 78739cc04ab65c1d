#include "run_view.h"

#include <algorithm>
#include <cmath>

#include "cell_style.h"
#include "decode/guided_unmask.h"
#include "decode/settings_schema.h"
#include "eval/eval_example.h"

RunView::RunView(QObject* parent) : QObject(parent) {}

int RunView::plannedStepsAt(int shown_steps) const {
    const auto& h = history_.header();
    if (!h) return shown_steps;
    // A finished run spans the steps it took: a threshold or guided decode ends long before its
    // steps setting, and its charts would otherwise squeeze it into the first few pixels.
    if (complete()) return std::max(1, history_.stepCount());
    return std::max(h->steps, shown_steps);
}

int RunView::blockLength() const {
    const auto& h = history_.header();
    return h ? h->block_length : 0;
}

void RunView::begin(TraceHeaderPtr header) {
    history_.reset(std::move(header));
    expected_answer_ = answer_lookup_ && history_.header() ? answer_lookup_(promptText()) : QString();
    flushed_ = 0;
    view_step_ = -1;
    stats_.clear();
    canvas_.resetLayout(history_.positionCount(), blockLength());
    setFollowing(true);
    Q_EMIT runReset();
    Q_EMIT plannedStepsChanged();
    Q_EMIT stepCountChanged();
    Q_EMIT viewStepChanged();
    Q_EMIT summaryChanged();
}

void RunView::clear() { begin(nullptr); }

void RunView::record(StepTracePtr step) {
    if (!history_.header()) {  // a trace without a header line is refused by the reader; be safe
        auto h = std::make_shared<dlm::TraceHeader>();
        h->gen_length = int(step->positions.size());
        begin(h);
    }
    history_.append(std::move(step));
    Q_EMIT stepsRecorded();
}

void RunView::finish(TraceSummaryPtr summary, bool cancelled) {
    const int planned_before = plannedSteps();
    history_.setSummary(std::move(summary), cancelled);
    Q_EMIT summaryChanged();
    if (plannedSteps() != planned_before) Q_EMIT plannedStepsChanged();
    Q_EMIT viewStepChanged();  // the answer text switches to the decoded summary text
}

void RunView::flush() {
    if (flushed_ == history_.stepCount()) return;
    if (history_.positionCount() != canvas_.rowCount()) canvas_.resetLayout(history_.positionCount(), blockLength());
    stats_.syncTo(history_);
    const int planned_before = plannedStepsAt(flushed_);
    flushed_ = history_.stepCount();
    Q_EMIT stepCountChanged();
    if (plannedStepsAt(flushed_) != planned_before) Q_EMIT plannedStepsChanged();
    if (following_) {
        view_step_ = flushed_ - 1;
        canvas_.show(history_.stepPtr(view_step_));
        Q_EMIT viewStepChanged();
    }
}

void RunView::setViewStep(int step) {
    step = std::clamp(step, -1, flushed_ - 1);
    if (step == view_step_) return;
    view_step_ = step;
    canvas_.show(step >= 0 ? history_.stepPtr(step) : nullptr);
    setFollowing(step == flushed_ - 1 && !complete());
    Q_EMIT viewStepChanged();
}

void RunView::setFollowing(bool f) {
    if (f == following_) return;
    following_ = f;
    Q_EMIT followingChanged();
    if (f && flushed_ > 0 && view_step_ != flushed_ - 1) {
        view_step_ = flushed_ - 1;
        canvas_.show(history_.stepPtr(view_step_));
        Q_EMIT viewStepChanged();
    }
}

QString RunView::title() const {
    if (!history_.header()) return {};
    return modelName() + " · " + strategyLabel();
}

QString RunView::modelName() const {
    const auto& h = history_.header();
    if (!h) return {};
    return QString::fromStdString(h->model.empty() ? std::string("trace") : h->model);
}

QString RunView::strategyLabel() const {
    const auto& h = history_.header();
    if (!h) return {};
    // The settings as asked for (sampler=auto, as the preset box holds it), on the model's defaults.
    return QString::fromStdString(dlm::run_label(*h));
}

QString RunView::strategy() const {
    const auto& h = history_.header();
    return h ? QString::fromStdString(h->strategy) : QString();
}

QString RunView::promptText() const {
    const auto& h = history_.header();
    return h ? QString::fromStdString(h->prompt) : QString();
}

QVariantList RunView::promptPieces() const {
    QVariantList out;
    const auto& h = history_.header();
    if (!h) return out;
    for (const auto& p : h->prompt_pieces) {
        const bool special = cell_style::looksSpecial(p);
        out.push_back(QVariantMap{{"text", cell_style::displayToken(p, special).text}, {"special", special}});
    }
    return out;
}

QString RunView::settingsText() const {
    const auto& h = history_.header();
    if (!h) return {};
    QStringList parts;
    for (const auto& [k, v] : h->settings) parts << QString::fromStdString(k + "=" + v);
    return parts.join(QStringLiteral("  "));
}

QString RunView::textAt(int step) const {
    if (step < 0 || step >= history_.stepCount()) return {};
    // As the summary's text: up to the first committed end token (not the padding after it).
    static const std::vector<int32_t> none;
    const auto& ends = history_.header() ? history_.header()->end_ids : none;
    std::string text;
    for (const auto& p : history_.step(step).positions) {
        if (p.state == dlm::PosState::Masked) {
            text += '_';
            continue;
        }
        if (std::find(ends.begin(), ends.end(), p.token) != ends.end()) break;
        text += p.text;
    }
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

QString RunView::answerText() const {
    if (complete() && view_step_ == history_.stepCount() - 1) return QString::fromStdString(history_.summary()->text);
    return textAt(view_step_);
}

QString RunView::predictedAnswer() const {
    if (!complete()) return {};
    return QString::fromStdString(dlm::extract_answer(history_.summary()->text));
}

QString RunView::verdict() const {
    if (!complete() || expected_answer_.isEmpty()) return {};
    return dlm::answer_matches(predictedAnswer().toStdString(), expected_answer_.toStdString()) ? QStringLiteral("correct")
                                                                                              : QStringLiteral("wrong");
}

QString RunView::verdictText() const {
    const QString v = verdict();
    if (v == QLatin1String("correct")) return tr("✓ Correct: %1").arg(expected_answer_);
    if (v != QLatin1String("wrong")) return {};
    const QString given = predictedAnswer();
    return tr("✗ Wrong: answered “%1”, the answer is %2").arg(given.isEmpty() ? tr("(no #### answer)") : given, expected_answer_);
}

DecodePanel RunView::animationPanel() const {
    DecodePanel a;
    for (int i = 0; i < history_.stepCount(); ++i) a.steps.push_back(history_.stepPtr(i));
    a.positions = history_.positionCount();
    a.blockLength = blockLength();
    a.title = title();
    a.verdict = verdictText();
    return a;
}

int RunView::unfinishedPositions() const {
    if (!complete() || history_.stopped() || history_.empty()) return 0;
    int masked = 0;
    for (const auto& p : history_.step(history_.stepCount() - 1).positions) masked += p.state == dlm::PosState::Masked;
    return masked;
}

QVariantMap RunView::totals() const {
    QVariantMap m;
    if (view_step_ < 0) return m;
    const auto& t = history_.totals(view_step_);
    const auto& s = history_.step(view_step_);
    m["step"] = view_step_;
    m["block"] = s.block;
    m["paperFlops"] = t.paper_flops;
    m["denseFlops"] = t.paper_flops_dense;
    m["flopsRatio"] = t.flops_ratio();
    m["wallMs"] = t.wall_ms;
    m["unmasked"] = double(t.unmasked);
    m["e2eTps"] = t.e2e_tps();
    m["rows"] = s.rows_computed;
    m["rowsTotal"] = s.rows_total;
    m["stepWallMs"] = s.wall_ms;
    return m;
}

// Guided Diffusion: why the step that unmasked `pos` put its token there (the step's counters and
// the position's place among that step's unmasks); empty for other strategies.
QString RunView::guidedCommitText(int pos, int reveal_step) const {
    if (reveal_step < 0 || reveal_step >= history_.stepCount()) return {};
    const auto& s = history_.step(reveal_step);
    int index = 0;
    for (const auto& q : s.positions)
        if (q.event == dlm::PosEvent::Unmask && q.pos < pos) ++index;
    const auto reason = dlm::guided_commit_reason(s.counters, index);
    if (!reason) return {};
    auto count = [&](const char* key) {
        const auto it = s.counters.find(key);
        return it == s.counters.end() ? 0 : int(it->second);
    };
    switch (*reason) {
    case dlm::GuidedCommitReason::Agreed:
        return tr("agreed: one of the %1 draft tokens the guider accepted in a row (of %2 drafted)")
            .arg(count("guider_agreed_commits"))
            .arg(count("guider_drafted"));
    case dlm::GuidedCommitReason::NoAgreement:
        return tr("rejected: the guider agreed with none of the %1 drafted, so the diffusion model's own token "
                  "went in, alone")
            .arg(count("guider_drafted"));
    case dlm::GuidedCommitReason::EndFill:
        return tr("end fill: the step committed an end of text before it");
    }
    return {};
}

QVariantMap RunView::positionDetails(int pos) const {
    QVariantMap m;
    if (pos < 0 || pos >= history_.positionCount() || view_step_ < 0) return m;
    QVariantList conf, ent, kl, events, tops;
    const dlm::PositionTrace* last = nullptr;
    for (int i = 0; i <= view_step_; ++i) {
        const auto& s = history_.step(i);
        const dlm::PositionTrace* p = nullptr;
        if (pos < int(s.positions.size()) && s.positions[size_t(pos)].pos == pos) p = &s.positions[size_t(pos)];
        else
            for (const auto& q : s.positions)
                if (q.pos == pos) { p = &q; break; }
        if (!p) continue;
        last = p;
        auto num = [](float v) { return std::isnan(v) ? QVariant() : QVariant(double(v)); };
        conf.push_back(QVariantMap{{"step", i}, {"value", num(p->confidence)}});
        ent.push_back(QVariantMap{{"step", i}, {"value", num(p->entropy)}});
        kl.push_back(QVariantMap{{"step", i}, {"value", num(p->kl)}});
        if (p->event != dlm::PosEvent::None)
            events.push_back(QVariantMap{{"step", i}, {"event", cell_style::eventLabel(p->event)},
                                         {"text", cell_style::displayToken(p->text, cell_style::looksSpecial(p->text)).text}});
        // A locked row is not recomputed, so its step has no candidates: the inspector keeps
        // showing the last distribution that was computed, and says from which step it is.
        if (p->top.empty()) continue;
        QVariantList cands;
        for (const auto& c : p->top)
            cands.push_back(QVariantMap{{"id", c.id}, {"p", double(c.p)},
                                        {"text", cell_style::displayToken(c.text, cell_style::looksSpecial(c.text)).text}});
        tops.push_back(QVariantMap{{"step", i}, {"candidates", cands}});
    }
    m["pos"] = pos;
    m["block"] = blockLength() > 0 ? pos / blockLength() : 0;
    m["confidence"] = conf;
    m["entropy"] = ent;
    m["kl"] = kl;
    m["events"] = events;
    m["topk"] = tops;
    // As of the viewed step, not the end of the run.
    m["revealStep"] = history_.timeline().reveal_step(pos, view_step_);
    m["lockStep"] = history_.timeline().lock_step(pos, view_step_);
    const QString guider = guidedCommitText(pos, m["revealStep"].toInt());
    if (!guider.isEmpty()) m["guider"] = guider;
    if (last) {
        m["text"] = cell_style::displayToken(last->text, cell_style::looksSpecial(last->text)).text;
        m["token"] = last->token;
        m["state"] = cell_style::stateLabel(last->state);
        m["current"] = tops.isEmpty() ? QVariant() : tops.back();
    }
    return m;
}
