// Unit tests of the app's C++ models and painters (no engine run, no QML).
#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <tuple>

#include <QLineSeries>

#include "apng_writer.h"
#include "canvas_model.h"
#include "cell_style.h"
#include "csv_export.h"
#include "decode_animation.h"
#include "denoise_grid_item.h"
#include "grid_painter.h"
#include "heatmap_item.h"
#include "heatmap_painter.h"
#include "run_history.h"
#include "run_view.h"
#include "series_feeder.h"
#include "step_stats_model.h"
#include "synthetic_run.h"
#include "text_diff.h"

namespace {

// A step with explicit states for exact-notification checks.
StepTracePtr makeStep(int step, const std::vector<dlm::PosState>& states, const std::vector<dlm::PosEvent>& events = {}) {
    auto s = std::make_shared<dlm::StepTrace>();
    s->step = step;
    for (size_t i = 0; i < states.size(); ++i) {
        dlm::PositionTrace p;
        p.pos = int(i);
        p.state = states[i];
        p.event = i < events.size() ? events[i] : dlm::PosEvent::None;
        p.token = states[i] == dlm::PosState::Masked ? 99 : int(i);
        p.text = "t" + std::to_string(i);
        p.confidence = 0.5f;
        s->positions.push_back(p);
    }
    return s;
}

bool hasColour(const QImage& img, const QColor& c, int tolerance = 0) {
    for (int y = 0; y < img.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(img.constScanLine(y));
        for (int x = 0; x < img.width(); ++x) {
            const QColor p = QColor::fromRgb(line[x]);
            if (std::abs(p.red() - c.red()) <= tolerance && std::abs(p.green() - c.green()) <= tolerance &&
                std::abs(p.blue() - c.blue()) <= tolerance)
                return true;
        }
    }
    return false;
}

// An APNG read back as a viewer plays it, written here from the format's description and sharing
// nothing with the writer: every chunk's CRC (bit by bit), one sequence for fcTL and fdAT, and each
// frame composed over the previous (blend source or over; the writer uses dispose none).
struct PlayedApng {
    int announced = -1, plays = -1;
    std::vector<QImage> frames;
    std::vector<int> delaysMs;
    QString error;
};

quint32 crcBitwise(const QByteArray& bytes) {
    quint32 c = 0xFFFFFFFFu;
    for (char ch : bytes) {
        c ^= quint8(ch);
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

quint32 be32(const QByteArray& b, qsizetype at) {
    return quint32(quint8(b[at])) << 24 | quint32(quint8(b[at + 1])) << 16 | quint32(quint8(b[at + 2])) << 8 | quint8(b[at + 3]);
}

QByteArray pngChunk(const char* type, const QByteArray& data) {
    QByteArray c;
    QDataStream(&c, QIODevice::WriteOnly) << quint32(data.size());
    const QByteArray body = QByteArray(type, 4) + data;
    c += body;
    QByteArray crc;
    QDataStream(&crc, QIODevice::WriteOnly) << crcBitwise(body);
    return c + crc;
}

PlayedApng playApng(const QByteArray& file) {
    PlayedApng out;
    if (!file.startsWith(QByteArray("\x89PNG\r\n\x1a\n", 8))) return out.error = "no PNG signature", out;
    QByteArray ihdr;
    QImage canvas;
    quint32 expectSeq = 0;
    struct Pending { int w = 0, h = 0, x = 0, y = 0, blend = 0; QByteArray data; bool open = false; } frame;
    auto compose = [&]() -> bool {
        if (!frame.open) return true;
        QByteArray hdr = ihdr;
        QDataStream(&hdr, QIODevice::WriteOnly) << quint32(frame.w) << quint32(frame.h);
        const QByteArray png = QByteArray("\x89PNG\r\n\x1a\n", 8) + pngChunk("IHDR", hdr) + pngChunk("IDAT", frame.data) + pngChunk("IEND", {});
        const QImage part = QImage::fromData(png, "PNG").convertToFormat(QImage::Format_ARGB32);
        if (part.isNull() || part.size() != QSize(frame.w, frame.h)) return out.error = "a frame does not decode", false;
        for (int y = 0; y < frame.h; ++y)
            for (int x = 0; x < frame.w; ++x) {
                const QRgb px = part.pixel(x, y);
                if (frame.blend == 1 && qAlpha(px) == 0) continue;
                if (qAlpha(px) != 255) return out.error = "a partly transparent pixel", false;
                canvas.setPixel(frame.x + x, frame.y + y, px);
            }
        out.frames.push_back(canvas.copy());
        frame.open = false;
        return true;
    };
    for (qsizetype at = 8; at < file.size();) {
        if (at + 12 > file.size()) return out.error = "a truncated chunk", out;
        const quint32 n = be32(file, at);
        const QByteArray type = file.mid(at + 4, 4), data = file.mid(at + 8, n);
        if (be32(file, at + 8 + n) != crcBitwise(type + data)) return out.error = "bad CRC in " + QString(type), out;
        at += 12 + n;
        if (type == "IHDR") {
            ihdr = data;
            canvas = QImage(int(be32(data, 0)), int(be32(data, 4)), QImage::Format_ARGB32);
            canvas.fill(Qt::transparent);
        } else if (type == "acTL") {
            out.announced = int(be32(data, 0));
            out.plays = int(be32(data, 4));
        } else if (type == "fcTL") {
            if (!compose()) return out;
            if (be32(data, 0) != expectSeq++) return out.error = "fcTL out of sequence", out;
            frame = {int(be32(data, 4)), int(be32(data, 8)), int(be32(data, 12)), int(be32(data, 16)), quint8(data[25]), {}, true};
            if (quint8(data[24]) != 0) return out.error = "a dispose op other than none", out;
            const int num = quint8(data[20]) << 8 | quint8(data[21]), den = quint8(data[22]) << 8 | quint8(data[23]);
            out.delaysMs.push_back(den == 0 ? num * 10 : num * 1000 / den);
        } else if (type == "IDAT") {
            frame.data += data;
        } else if (type == "fdAT") {
            if (be32(data, 0) != expectSeq++) return out.error = "fdAT out of sequence", out;
            frame.data += data.mid(4);
        } else if (type == "IEND") {
            compose();
        }
    }
    return out;
}

}  // namespace

class CanvasModelTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void emitsExactChangedRanges() {
        using S = dlm::PosState;
        using E = dlm::PosEvent;
        CanvasModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
        m.resetLayout(10, 5);
        QCOMPARE(reset.count(), 1);
        QCOMPARE(m.rowCount(), 10);
        QCOMPARE(m.data(m.index(7), CanvasModel::BlockRole).toInt(), 1);

        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        const std::vector<S> allMasked(10, S::Masked);
        m.show(makeStep(0, allMasked));
        QCOMPARE(changed.count(), 1);  // the first step: every row (now holding the mask id), one range
        QCOMPARE(changed.at(0).at(1).value<QModelIndex>().row(), 9);
        changed.clear();
        m.show(makeStep(1, allMasked));
        QCOMPARE(changed.count(), 0);  // nothing visible changed: nothing to repaint

        std::vector<S> s1 = allMasked;
        std::vector<E> e1(10, E::None);
        for (int i : {3, 4, 5, 9}) { s1[size_t(i)] = S::Active; e1[size_t(i)] = E::Unmask; }
        m.show(makeStep(1, s1, e1));
        QCOMPARE(changed.count(), 2);  // two contiguous runs: 3..5 and 9
        QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), 3);
        QCOMPARE(changed.at(0).at(1).value<QModelIndex>().row(), 5);
        QCOMPARE(changed.at(1).at(0).value<QModelIndex>().row(), 9);
        QCOMPARE(changed.at(1).at(1).value<QModelIndex>().row(), 9);
        QCOMPARE(m.data(m.index(4), CanvasModel::StateNameRole).toString(), QStringLiteral("active"));
        QCOMPARE(m.data(m.index(4), CanvasModel::EventNameRole).toString(), QStringLiteral("unmask"));
        QCOMPARE(m.data(m.index(4), CanvasModel::TextRole).toString(), QStringLiteral("t4"));
        QCOMPARE(m.data(m.index(0), CanvasModel::TextRole).toString(), QString());  // masked: no text

        // Same states, events cleared: those four rows change (the transient mark goes away).
        changed.clear();
        m.show(makeStep(2, s1));
        QCOMPARE(changed.count(), 2);
        // Going back to the same step pointer is a no-op.
        changed.clear();
        auto same = makeStep(3, s1);
        m.show(same);
        m.show(same);
        QCOMPARE(changed.count(), 0);
    }
};

class StepStatsModelTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void insertsInBatchesWithTotals() {
        auto run = makeSyntheticRun(32, 8);
        RunHistory h;
        h.reset(run.header);
        StepStatsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        QSignalSpy ranges(&m, &StepStatsModel::rangesChanged);
        for (int i = 0; i < 3; ++i) h.append(run.steps[size_t(i)]);
        m.syncTo(h);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(inserted.at(0).at(2).toInt(), 2);
        m.syncTo(h);  // nothing new: no notification
        QCOMPARE(inserted.count(), 1);
        for (int i = 3; i < 8; ++i) h.append(run.steps[size_t(i)]);
        m.syncTo(h);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(inserted.at(1).at(1).toInt(), 3);
        QCOMPARE(inserted.at(1).at(2).toInt(), 7);
        QCOMPARE(ranges.count(), 2);
        QCOMPARE(m.count(), 8);
        // Cumulative ratio = sum strategy / sum dense, recomputed here independently.
        double a = 0, d = 0;
        for (const auto& s : run.steps) { a += s->paper_flops; d += s->paper_flops_dense; }
        QVERIFY(std::abs(m.value(7, StepStatsModel::CumRatioRole) - a / d) < 1e-12);
        QVERIFY(m.value(7, StepStatsModel::CumRatioRole) < 1.0);  // locks skip rows
        // Against the baseline run: one dense forward per generated position (32 here), so after 8
        // of them the cost so far is a quarter of that run at most.
        const double baseline = run.steps[7]->paper_flops_dense * 32;
        QVERIFY(std::abs(m.value(7, StepStatsModel::CumBaselineRole) - a / baseline) < 1e-12);
        QVERIFY(m.value(7, StepStatsModel::CumBaselineRole) <= 8.0 / 32);
        const auto& s0 = *run.steps[0];
        QCOMPARE(m.value(0, StepStatsModel::TpsRole), s0.newly_unmasked / (s0.wall_ms / 1000.0));
        QCOMPARE(m.data(m.index(4), StepStatsModel::RemasksRole).toInt(), 1);  // step 4 remasks one
        const QString csv = stepCsvText(m);
        QCOMPARE(csv.count('\n'), 9);
        QVERIFY(csv.startsWith("step,block,paperFlops,"));
    }

    // Guided Diffusion pays for its few steps with the guider's forwards: the charts count them,
    // as eval and bench do, so its cost is not shown as the draft model's alone.
    void guiderForwardsCountAsTheStrategysCost() {
        auto run = makeSyntheticRun(32, 2);
        RunHistory h;
        h.reset(run.header);
        double spent = 0, dense = 0;
        for (const auto& s : run.steps) {
            auto guided = std::make_shared<dlm::StepTrace>(*s);
            guided->guider_flops = 3.0 * s->paper_flops_dense;
            spent += guided->paper_flops + guided->guider_flops;
            dense += guided->paper_flops_dense;
            h.append(guided);
        }
        StepStatsModel m;
        m.syncTo(h);
        const auto& s0 = h.step(0);
        QCOMPARE(m.value(0, StepStatsModel::PaperFlopsRole), s0.paper_flops + s0.guider_flops);
        QVERIFY(std::abs(m.value(1, StepStatsModel::CumRatioRole) - spent / dense) < 1e-12);
        QVERIFY(m.value(1, StepStatsModel::CumRatioRole) > 3.0);
        QVERIFY(std::abs(h.totals(1).paper_flops - spent) < 1e-6 * spent);
        // Two steps of a 32-position canvas: dearer than dense per step, a fraction of the baseline run.
        const double baseline = h.step(1).paper_flops_dense * 32;
        QVERIFY(std::abs(m.value(1, StepStatsModel::CumBaselineRole) - spent / baseline) < 1e-12);
        QVERIFY(m.value(1, StepStatsModel::CumBaselineRole) < 0.5);
        QCOMPARE(m.maxCumRatio(), m.value(1, StepStatsModel::CumRatioRole));
    }
};

class RunHistoryTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tracksRevealAndLockSteps() {
        auto run = makeSyntheticRun(16, 8);
        RunHistory h;
        h.reset(run.header);
        for (auto& s : run.steps) h.append(s);
        QCOMPARE(h.stepCount(), 8);
        for (int pos = 0; pos < 16; ++pos) QVERIFY2(h.revealStep(pos) >= 0, qPrintable(QString::number(pos)));
        int locked = 0;
        for (int pos = 0; pos < 16; ++pos) locked += h.lockStep(pos) >= 0;
        QVERIFY(locked > 0);
        QCOMPARE(h.revisions(4).remasks, 1LL);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, h.append(run.steps[2]));  // out of order
    }
};

class CellStyleTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void makesTokensVisible() {
        using cell_style::displayToken;
        QCOMPARE(displayToken(" the", false).text, QStringLiteral("·the"));
        QCOMPARE(displayToken("\n", false).text, QStringLiteral("↵"));
        QCOMPARE(displayToken("a\tb", false).text, QStringLiteral("a⇥b"));
        QCOMPARE(displayToken("", false).text, QStringLiteral("∅"));
        QCOMPARE(displayToken("é€", false).text, QStringLiteral("é€"));
        QCOMPARE(displayToken("\xe2\x96\x81word", false).text, QStringLiteral("·word"));  // ▁word
        QCOMPARE(displayToken("\xff", false).text, QString(QChar(0xFFFD)));
        const auto eot = displayToken("<|eot|>", true);
        QVERIFY(eot.special);
        QCOMPARE(eot.text, QStringLiteral("<|eot|>"));
        QVERIFY(cell_style::looksSpecial("<|endoftext|>"));
        // The grid's pill shows the name inside the delimiters (whole, not "<|end…").
        QCOMPARE(cell_style::specialName("<|endoftext|>"), QStringLiteral("endoftext"));
        QCOMPARE(cell_style::specialName("<s>"), QStringLiteral("s"));
        QCOMPARE(cell_style::specialName("[CLS]"), QStringLiteral("CLS"));
        QCOMPARE(cell_style::specialName("<>"), QStringLiteral("<>"));
        QVERIFY(!cell_style::looksSpecial("<"));
        // The six states are distinguishable.
        QSet<QRgb> colours;
        for (auto s : {dlm::PosState::Prompt, dlm::PosState::Masked, dlm::PosState::Active, dlm::PosState::Locked,
                       dlm::PosState::Frozen, dlm::PosState::Seed})
            colours.insert(cell_style::stateColor(s).rgb());
        QCOMPARE(colours.size(), 6);
    }
    void diffsWords() {
        const auto d = diffWords("Sam spends 18 dollars", "Sam spends 16 dollars");
        QCOMPARE(d.changedWords, 2);
        QVERIFY(!d.identical);
        QVERIFY(d.leftHtml.contains("18</span>"));
        QVERIFY(d.rightHtml.contains("16</span>"));
        QVERIFY(diffWords("a b", "a  b").identical);
        // Lines are kept: a word problem's working reads line by line on both sides.
        const auto lines = diffWords("3 * 04 = 012\n#### 18", "3 * 04 = 012\n\n#### 16");
        QCOMPARE(lines.leftHtml.left(lines.leftHtml.indexOf("<span")), QStringLiteral("3 * 04 = 012<br>#### "));
        QVERIFY(lines.rightHtml.startsWith(QStringLiteral("3 * 04 = 012<br>#### <span")));
    }
};

class GridTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rendersStateColours() {
        using S = dlm::PosState;
        CanvasModel m;
        m.resetLayout(6, 0);
        auto st = makeStep(0, {S::Masked, S::Active, S::Locked, S::Frozen, S::Seed, S::Masked});
        for (auto& p : const_cast<dlm::StepTrace&>(*st).positions) p.confidence = NAN;  // unshaded
        m.show(st);
        GridPainter painter;
        const auto geo = GridGeometry::fit(6, 600, 56, 22);
        const QImage img = painter.render(m, geo);
        for (auto s : {S::Masked, S::Active, S::Locked, S::Frozen, S::Seed})
            QVERIFY2(hasColour(img, cell_style::stateColor(s)), qPrintable(cell_style::stateLabel(s)));
        QCOMPARE(geo.cellAt(geo.cellRect(4).center()), 4);
        QCOMPARE(geo.cellAt(QPointF(-1, 3)), -1);
    }
    // The text under the grid is the answer so far: masks as '_', and nothing from the first
    // committed end token on (the padding a model writes after its answer is not text).
    void answerTextStopsAtTheFirstEndToken() {
        auto h = std::make_shared<dlm::TraceHeader>(*makeSyntheticRun(4, 1).header);
        h->gen_length = 5;
        h->end_ids = {2, 4};
        RunView view;
        view.begin(h);
        auto st = std::make_shared<dlm::StepTrace>();
        const std::vector<std::pair<int, std::string>> cells = {{7, "#"}, {99, ""}, {8, " 5"}, {4, "<|eot|>"}, {2, "<|endoftext|>"}};
        for (int i = 0; i < 5; ++i) {
            dlm::PositionTrace p;
            p.pos = i;
            p.token = cells[size_t(i)].first;
            p.text = cells[size_t(i)].second;
            p.state = p.token == 99 ? dlm::PosState::Masked : dlm::PosState::Active;
            st->positions.push_back(p);
        }
        view.record(st);
        view.flush();
        QCOMPARE(view.textAt(0), QStringLiteral("#_ 5"));
        h->end_ids.clear();  // a trace written before end tokens were recorded shows everything
        view.begin(h);
        view.record(st);
        view.flush();
        QCOMPARE(view.textAt(0), QStringLiteral("#_ 5<|eot|><|endoftext|>"));
    }

    // The grid repaints only what changed: O(changed cells) per step, measured at 1024 positions.
    void repaintsOnlyChangedCells() {
        const int n = 1024;
        auto run = makeSyntheticRun(n, 128, true);
        RunView view;
        view.begin(run.header);
        DenoiseGridItem item;
        item.setSize(QSizeF(1200, 800));
        QCOMPARE(GridGeometry::forCanvas(n, 1200).cellHeight, 18.0);  // the long canvas's smaller cells
        item.setCanvas(view.canvas());
        QElapsedTimer t;
        t.start();
        qint64 worst = 0;
        auto key = [](const dlm::PositionTrace* p) {
            return p ? std::make_tuple(int(p->state), int(p->event), p->token, CanvasModel::shadeBucket(p->state, p->confidence))
                     : std::make_tuple(int(dlm::PosState::Masked), 0, -1, -1);
        };
        for (int i = 0; i < 128; ++i) {
            int expected = 0;
            for (int pos = 0; pos < n; ++pos)
                expected += key(&run.steps[size_t(i)]->positions[size_t(pos)]) != key(i > 0 ? &run.steps[size_t(i - 1)]->positions[size_t(pos)] : nullptr);
            const qint64 before = item.cellsRepainted();
            QElapsedTimer one;
            one.start();
            view.record(run.steps[size_t(i)]);
            view.flush();
            worst = std::max(worst, one.nsecsElapsed());
            QCOMPARE(item.cellsRepainted() - before, qint64(expected));
            if (i > 0) QVERIFY(expected < n / 2);  // a step touches a small part of the grid
        }
        qInfo("1024 positions, 128 steps: %.2f ms total, worst step %.2f ms (record + flush + repaint)",
              t.nsecsElapsed() / 1e6, worst / 1e6);
    }
};

// A 600 x 300 heatmap of a synthetic run in `mode`, as saved (at 2x); the colour bar's pixels
// are at x = 2 * (600 - 52 + 6) (barRect(): x = width - 52, 12 wide, y from 8 to height - 14).
static QImage savedHeatmap(const QString& mode, int* plannedSteps = nullptr) {
    auto run = makeSyntheticRun(40, 20);
    RunView view;
    view.begin(run.header);
    for (auto& s : run.steps) view.record(s);
    view.flush();
    HeatmapItem item;
    item.setSize(QSizeF(600, 300));
    item.setRun(&view);
    item.setMode(mode);
    if (plannedSteps) *plannedSteps = view.plannedSteps();
    QTemporaryDir dir;
    const QString path = dir.filePath("heat.png");
    return item.saveImage(path) ? QImage(path) : QImage();
}
constexpr int kBarX = 2 * (600 - 52 + 6);

class HeatmapTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void klImageGrowsByRows() {
        auto run = makeSyntheticRun(40, 20);
        RunHistory h;
        h.reset(run.header);
        heatmap::KlImage img;
        img.reset(40);
        for (int i = 0; i < 20; ++i) {
            h.append(run.steps[size_t(i)]);
            img.appendSteps(h);
            QCOMPARE(img.rows(), i + 1);
        }
        QVERIFY(std::isnan(img.value(0, 0)));  // no KL at the first step
        QCOMPARE(img.value(3, 5), double(run.steps[5]->positions[3].kl));
        QVERIFY(heatmap::klToUnit(1e-3) > heatmap::klToUnit(1e-6));
        QCOMPARE(heatmap::klColor(NAN).alpha(), 0);
    }
    // A KL map with steps and no value says why it is blank: a one-step run, or KL not tracked.
    void aBlankKlMapSaysWhy() {
        auto run = makeSyntheticRun(40, 20);
        RunView view;
        HeatmapItem item;
        item.setSize(QSizeF(600, 300));
        item.setRun(&view);
        view.begin(run.header);
        QCOMPARE(item.blankReason(), QString());  // no steps yet: "no run yet" is not this
        view.record(run.steps[0]);
        view.flush();
        QVERIFY2(item.blankReason().contains("step 2"), qPrintable(item.blankReason()));
        view.record(run.steps[1]);
        view.flush();
        QCOMPARE(item.blankReason(), QString());  // step 2 measured KL
        item.setMode(QStringLiteral("reveal"));
        QCOMPARE(item.blankReason(), QString());

        auto untracked = std::make_shared<dlm::TraceHeader>(*run.header);
        untracked->settings["track_kl"] = "off";
        item.setMode(QStringLiteral("kl"));
        view.begin(untracked);
        for (int i = 0; i < 3; ++i) {
            auto step = std::make_shared<dlm::StepTrace>(*run.steps[size_t(i)]);
            for (auto& p : step->positions) p.kl = NAN;
            view.record(step);
        }
        view.flush();
        QVERIFY2(item.blankReason().contains("track KL is off"), qPrintable(item.blankReason()));
    }
    // Both axes are labelled at their ends: steps from 1 beside the plot (x 14..32, the plot from
    // x = 34, y = 8 to 286), positions from 0 below it.
    void axisEndsAreLabelled() {
        const QImage img = savedHeatmap(QStringLiteral("kl"));
        QVERIFY(!img.isNull());
        const QColor background = img.pixelColor(2, 2);
        auto inked = [&](int x0, int y0, int x1, int y1) {  // in item pixels; the image is at 2x
            for (int y = 2 * y0; y < 2 * y1; ++y)
                for (int x = 2 * x0; x < 2 * x1; ++x)
                    if (img.pixelColor(x, y) != background) return true;
            return false;
        };
        QVERIFY2(inked(14, 8, 33, 20), "no step 1 at the top of the step axis");
        QVERIFY2(inked(14, 274, 33, 286), "no last step at the bottom of the step axis");
        QVERIFY2(inked(34, 287, 46, 300), "no position 0 below the plot");
        QVERIFY2(inked(600 - 100 + 34 - 20, 287, 600 - 100 + 34, 300), "no last position below the plot");
    }
    // The KL colour bar shows the colour map (once hidden under the plot's fill brush).
    void colourBarShowsTheGradient() {
        const QImage img = savedHeatmap(QStringLiteral("kl"));
        QVERIFY(!img.isNull());
        const QColor top = img.pixelColor(kBarX, 2 * 14), bottom = img.pixelColor(kBarX, 2 * (300 - 22));
        const QColor plotFill(0x1e, 0x21, 0x28);
        QVERIFY2(top != plotFill && bottom != plotFill, "the colour bar is covered");
        QVERIFY2(top.lightness() > bottom.lightness() + 60,
                 qPrintable(QString("top %1, bottom %2").arg(top.name(), bottom.name())));
    }
    // The reveal map's bar runs over the colours its cells take: step 1 at the bottom, the last at the top.
    void revealColourBarMatchesTheStepColours() {
        int planned = 0;
        const QImage img = savedHeatmap(QStringLiteral("reveal"), &planned);
        QVERIFY(!img.isNull());
        auto near = [](QColor a, QColor b) {
            return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) < 30;
        };
        const QColor bottom = img.pixelColor(kBarX, 2 * (300 - 17)), top = img.pixelColor(kBarX, 2 * 11);
        QVERIFY2(near(bottom, heatmap::stepColor(0, planned)),
                 qPrintable(QString("bottom %1, step 1 %2").arg(bottom.name(), heatmap::stepColor(0, planned).name())));
        QVERIFY2(near(top, heatmap::stepColor(planned - 1, planned)),
                 qPrintable(QString("top %1, last step %2").arg(top.name(), heatmap::stepColor(planned - 1, planned).name())));
    }
    void revealImageScrubsBothWays() {
        auto run = makeSyntheticRun(30, 10);
        RunHistory h;
        h.reset(run.header);
        for (auto& s : run.steps) h.append(s);
        heatmap::RevealImage r;
        r.reset(30, 10);
        r.showUpTo(h, 9);
        std::vector<int> atEnd;
        for (int p = 0; p < 30; ++p) atEnd.push_back(r.revealStep(p));
        r.showUpTo(h, 2);
        for (int p = 0; p < 30; ++p) QVERIFY(r.revealStep(p) <= 2);
        r.showUpTo(h, 9);
        for (int p = 0; p < 30; ++p) QCOMPARE(r.revealStep(p), atEnd[size_t(p)]);
    }
};

// A chart line gets the points of a whole opened trace in one update: QXYSeries::append
// redraws the line once per point, which made opening a 20,000-step trace take minutes.
class SeriesFeederTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aWholeTraceIsOneUpdate() {
        auto run = makeSyntheticRun(16, 200);
        RunHistory h;
        h.reset(run.header);
        for (auto& s : run.steps) h.append(s);
        StepStatsModel m;
        QLineSeries series;
        QSignalSpy added(&series, &QXYSeries::pointAdded);
        QSignalSpy replaced(&series, &QXYSeries::pointsReplaced);
        SeriesFeeder feeder;
        feeder.setSeries(&series);
        feeder.setRole(QStringLiteral("wallMs"));
        feeder.setStats(&m);
        m.syncTo(h);
        QCOMPARE(series.count(), 200);
        QCOMPARE(added.count(), 0);
        QCOMPARE(replaced.count(), 1);
        QCOMPARE(series.at(0).x(), 1.0);  // steps are counted from 1
        // A live frame's few points are appended.
        auto more = makeSyntheticRun(16, 203);
        for (int i = 200; i < 203; ++i) h.append(more.steps[size_t(i)]);
        m.syncTo(h);
        QCOMPARE(series.count(), 203);
        QCOMPARE(added.count(), 3);
    }
};

class AnimationTest : public QObject {
    Q_OBJECT

    // `a` written and played back; `frames` progress calls counted up to it.
    static PlayedApng written(const DecodeAnimation& a, int frames) {
        QTemporaryDir dir;
        const QString path = dir.filePath("decode.png");
        int reported = 0;
        const QString error = writeDecodeAnimation(a, path, [&](int done, int total) { reported = total == frames ? done : -1; });
        QFile f(path);
        if (!error.isEmpty() || reported != frames || !f.open(QIODevice::ReadOnly)) return {0, 0, {}, {}, error + " (progress)"};
        return playApng(f.readAll());
    }

    // Panel `panel`'s grid in `frame` is what the painter draws for `step` (null: all masked).
    static bool gridShows(const QImage& frame, const DecodeAnimation& a, size_t panel, const StepTracePtr& step) {
        CanvasModel canvas;
        canvas.resetLayout(a.panels[panel].positions, a.panels[panel].blockLength);
        canvas.show(step);
        QImage grid = GridPainter().render(canvas, a.geometry(panel), a.pixelRatio()).convertToFormat(QImage::Format_ARGB32);
        grid.setDevicePixelRatio(1);
        return frame.copy(QRect((a.gridOrigin(panel) * a.pixelRatio()).toPoint(), grid.size())) == grid;
    }

private Q_SLOTS:
    // Frames come back exactly as given, however they differ: whole, not at all, one pixel, two
    // corners far apart.
    void apngFramesPlayBackAsGiven() {
        QImage a(40, 30, QImage::Format_RGB32);
        a.fill(QColor(20, 30, 40));
        QImage b = a.copy();
        b.setPixel(7, 9, qRgb(255, 0, 0));
        QImage c = b.copy();
        c.setPixel(0, 0, qRgb(1, 2, 3));
        c.setPixel(39, 29, qRgb(4, 5, 6));
        QImage d(40, 30, QImage::Format_RGB32);
        d.fill(QColor(200, 100, 0));
        const std::vector<QImage> given{a, b, b, c, d};
        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        ApngWriter writer(buffer, a.size(), int(given.size()));
        for (size_t i = 0; i < given.size(); ++i) QVERIFY2(writer.addFrame(given[i], 100 + int(i)), qPrintable(writer.error()));
        QVERIFY2(writer.finish(), qPrintable(writer.error()));
        const PlayedApng played = playApng(bytes);
        QVERIFY2(played.error.isEmpty(), qPrintable(played.error));
        QCOMPARE(played.announced, int(given.size()));
        QCOMPARE(played.plays, 0);
        QCOMPARE(played.frames.size(), given.size());
        for (size_t i = 0; i < given.size(); ++i) {
            QCOMPARE(played.frames[i], given[i].convertToFormat(QImage::Format_ARGB32));
            QCOMPARE(played.delaysMs[i], 100 + int(i));
        }
        // A viewer without APNG support shows the first frame.
        QCOMPARE(QImage::fromData(bytes, "PNG").convertToFormat(QImage::Format_ARGB32), given[0].convertToFormat(QImage::Format_ARGB32));
        // Fewer frames than announced is an error, not a short file passed off as whole.
        QBuffer other;
        other.open(QIODevice::WriteOnly);
        ApngWriter shortOne(other, a.size(), 3);
        QVERIFY(shortOne.addFrame(a, 10));
        QVERIFY(!shortOne.finish());
        QVERIFY(shortOne.error().contains("3 frames announced, 1 written"));
        QVERIFY(!shortOne.addFrame(b.scaled(10, 10), 10));
    }

    // Every frame's grid is the grid the app paints for that step (the masked canvas first), though
    // the animation repaints only the cells that changed; the timing follows the replay speed.
    void theAnimationShowsEachStepAsTheGridPaintsIt() {
        const SyntheticRun run = makeSyntheticRun(45, 14);
        DecodeAnimation a;
        a.panels.push_back({run.steps, 45, 0, "synthetic · SureLock", "✓ Correct: 5"});
        a.stepsPerSecond = 25;
        const PlayedApng played = written(a, 15);
        QVERIFY2(played.error.isEmpty(), qPrintable(played.error));
        QCOMPARE(played.frames.size(), size_t(15));
        QCOMPARE(played.delaysMs.front(), 500);
        QCOMPARE(played.delaysMs[7], 40);
        QCOMPARE(played.delaysMs.back(), 3000);
        for (size_t f = 0; f < played.frames.size(); ++f)
            QVERIFY2(gridShows(played.frames[f], a, 0, f == 0 ? StepTracePtr() : run.steps[f - 1]), qPrintable(QString::number(f)));

        // The legend under the grid names what the run shows (it locks, nothing is frozen) and
        // stays as it is.
        const int gridBottom = int((a.gridOrigin(0).y() + a.geometry(0).contentHeight()) * a.pixelRatio());
        const QRect legend(0, gridBottom, played.frames[0].width(), played.frames[0].height() - gridBottom);
        QCOMPARE(played.frames.front().copy(legend), played.frames.back().copy(legend));
        QVERIFY(hasColour(played.frames[0].copy(legend), cell_style::stateColor(dlm::PosState::Locked)));
        QVERIFY(!hasColour(played.frames[0].copy(legend), cell_style::stateColor(dlm::PosState::Frozen)));
        // The caption changes with the step (and the verdict at the end).
        const QRect caption(0, 0, played.frames[0].width(), int(a.gridOrigin(0).y() * a.pixelRatio()));
        QVERIFY(played.frames[1].copy(caption) != played.frames[2].copy(caption));
        QVERIFY(played.frames[13].copy(caption) != played.frames[14].copy(caption));
    }

    // Compare mode: A above B in one picture, in lock-step; B, done first, stays at its last step
    // while A goes on.
    void twoRunsPlayInLockStep() {
        const SyntheticRun longer = makeSyntheticRun(45, 14), shorter = makeSyntheticRun(30, 5, false);
        DecodeAnimation a;
        a.panels.push_back({longer.steps, 45, 0, "A · synthetic · SureLock", {}});
        a.panels.push_back({shorter.steps, 30, 0, "B · synthetic · baseline", "✓ Correct: 5"});
        const PlayedApng played = written(a, 15);
        QVERIFY2(played.error.isEmpty(), qPrintable(played.error));
        QCOMPARE(played.frames.size(), size_t(15));
        QVERIFY(a.gridOrigin(1).y() > a.gridOrigin(0).y() + a.geometry(0).contentHeight());
        for (size_t f = 0; f < played.frames.size(); ++f) {
            QVERIFY2(gridShows(played.frames[f], a, 0, f == 0 ? StepTracePtr() : longer.steps[f - 1]), qPrintable(QString::number(f)));
            QVERIFY2(gridShows(played.frames[f], a, 1, f == 0 ? StepTracePtr() : shorter.steps[std::min(f, size_t(5)) - 1]),
                     qPrintable(QString::number(f)));
        }
        // B's caption is drawn as it is when B is alone (its font is not the cells' above it).
        DecodeAnimation alone;
        alone.panels.push_back(a.panels[1]);
        const PlayedApng single = written(alone, 6);
        QVERIFY2(single.error.isEmpty(), qPrintable(single.error));
        const qreal dpr = a.pixelRatio();
        const int captionHeight = int(alone.gridOrigin(0).y() * dpr), captionTop = int(a.gridOrigin(1).y() * dpr) - captionHeight;
        for (size_t f : {size_t(0), size_t(5)})
            QCOMPARE(played.frames[f].copy(0, captionTop, single.frames[0].width(), captionHeight),
                     single.frames[f].copy(0, 0, single.frames[0].width(), captionHeight));
    }
    // Part of a run, at its own speed and size: frames from the first step asked to the last, the
    // captions counting as the run does, the legend naming only what those steps show; compare
    // mode's shorter run stays at its last step past its end.
    void aPartOfTheRunAtItsOwnSpeedAndSize() {
        const SyntheticRun longer = makeSyntheticRun(45, 14), shorter = makeSyntheticRun(30, 5, false);
        DecodeAnimation a;
        a.panels.push_back({longer.steps, 45, 0, "A · synthetic · SureLock", {}});
        a.panels.push_back({shorter.steps, 30, 0, "B · synthetic · baseline", "✓ Correct: 5"});
        a.firstStep = 3;
        a.lastStep = 9;
        a.stepsPerSecond = 4;
        a.scale = 1;
        QVERIFY2(a.problem().isEmpty(), qPrintable(a.problem()));
        QCOMPARE(a.frames(), 7);
        const PlayedApng played = written(a, 7);
        QVERIFY2(played.error.isEmpty(), qPrintable(played.error));
        QCOMPARE(played.frames.size(), size_t(7));
        QCOMPARE(played.frames[0].size(), a.pixelSize());
        QCOMPARE(played.delaysMs[0], 500);  // the first frame stays long enough to be seen
        QCOMPARE(played.delaysMs[1], 250);
        QCOMPARE(played.delaysMs.back(), 3000);
        for (size_t f = 0; f < played.frames.size(); ++f) {
            QVERIFY2(gridShows(played.frames[f], a, 0, longer.steps[f + 2]), qPrintable(QString::number(f)));
            QVERIFY2(gridShows(played.frames[f], a, 1, shorter.steps[std::min(f + 2, size_t(4))]), qPrintable(QString::number(f)));
        }
        // The same steps at 2 pixels a point: twice as wide and high.
        DecodeAnimation sharp = a;
        sharp.scale = 2;
        QCOMPARE(sharp.pixelSize(), a.pixelSize() * 2);
        QCOMPARE(sharp.lastStep, 9);
        // One frame is a still picture of that step.
        DecodeAnimation still = a;
        still.firstStep = still.lastStep = 0;
        const PlayedApng one = written(still, 1);
        QVERIFY2(one.error.isEmpty(), qPrintable(one.error));
        QVERIFY(gridShows(one.frames[0], still, 0, StepTracePtr()));
        // The masked canvas alone shows no locked cell, so its legend names none.
        const int gridBottom = int(a.gridOrigin(1).y() + a.geometry(1).contentHeight());  // scale 1: points are pixels
        const auto legendOf = [&](const QImage& frame) { return frame.copy(0, gridBottom, frame.width(), frame.height() - gridBottom); };
        QVERIFY(!hasColour(legendOf(one.frames[0]), cell_style::stateColor(dlm::PosState::Locked)));
        QVERIFY(hasColour(legendOf(played.frames[0]), cell_style::stateColor(dlm::PosState::Locked)));

        // Choices that make no picture say why.
        const std::vector<std::pair<std::function<void(DecodeAnimation&)>, QString>> wrong{
            {[](DecodeAnimation& x) { x.lastStep = 15; }, "from 0 (the masked canvas) to 14; there is no step 15"},
            {[](DecodeAnimation& x) { x.firstStep = -1; }, "there is no step -1"},
            {[](DecodeAnimation& x) { x.firstStep = 10; }, "the last step shown (9) comes before the first (10)"},
            {[](DecodeAnimation& x) { x.stepsPerSecond = 0; }, "0.5 to 240 steps a second"},
            {[](DecodeAnimation& x) { x.scale = 3; }, "1 or 2 pixels a point"},
        };
        QTemporaryDir dir;
        for (const auto& [spoil, says] : wrong) {
            DecodeAnimation x = a;
            spoil(x);
            QVERIFY2(x.problem().contains(says), qPrintable(x.problem()));
            QVERIFY(writeDecodeAnimation(x, dir.filePath("x.png")).contains(says));
            QVERIFY(!QFileInfo::exists(dir.filePath("x.png")));
        }
    }

    // A run's panel says the verdict as the grid pane's badge does (one wording), an answer the
    // model never gave included.
    void aPanelSaysTheVerdictAsTheBadge() {
        const SyntheticRun run = makeSyntheticRun(20, 4);
        RunView view;
        view.setAnswerLookup([](const QString&) { return QStringLiteral("5"); });
        const auto say = [&](const std::string& text) {
            view.begin(run.header);
            for (const auto& s : run.steps) view.record(s);
            auto summary = std::make_shared<dlm::TraceSummary>(*run.summary);
            summary->text = text;
            view.finish(summary);
            view.flush();
            return view.animationPanel().verdict == view.verdictText() ? view.verdictText() : QStringLiteral("(the panel differs)");
        };
        QCOMPARE(say("2 + 3 = 5\n#### 5"), QStringLiteral("✓ Correct: 5"));
        QCOMPARE(say("2 + 3 = 6\n#### 6"), QStringLiteral("✗ Wrong: answered “6”, the answer is 5"));
        QCOMPARE(say("2 + 3 ="), QStringLiteral("✗ Wrong: answered “(no #### answer)”, the answer is 5"));
        QCOMPARE(view.animationPanel().steps.size(), run.steps.size());
    }

    void aFileThatCannotBeWrittenOrAStoppedExportLeavesNothing() {
        DecodeAnimation a;
        const SyntheticRun run = makeSyntheticRun(20, 6);
        a.panels.push_back({run.steps, 20, 0, "synthetic", {}});
        QTemporaryDir dir;
        const QString missing = dir.filePath("no/such/folder/decode.png");
        QVERIFY(writeDecodeAnimation(a, missing).contains(missing));
        const QString path = dir.filePath("decode.png");
        std::atomic<bool> stop{false};
        const QString stopped = writeDecodeAnimation(a, path, [&](int done, int) { if (done == 3) stop = true; }, &stop);
        QVERIFY2(stopped.startsWith("Stopped"), qPrintable(stopped));
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY(writeDecodeAnimation(DecodeAnimation{}, path).contains("no steps"));
        QVERIFY(!QFileInfo::exists(path));
    }
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    int status = 0;
    // argv[1] may name one suite (one CTest per suite); the rest go to QTest.
    QString only;
    QStringList rest;
    for (int i = 0; i < argc; ++i) {
        const QString a = QString::fromLocal8Bit(argv[i]);
        if (i == 1 && a.startsWith("suite=")) only = a.mid(6);
        else rest << a;
    }
    auto run = [&](QObject&& t) {
        if (only.isEmpty() || only == t.metaObject()->className()) status |= QTest::qExec(&t, rest);
    };
    run(CanvasModelTest());
    run(StepStatsModelTest());
    run(RunHistoryTest());
    run(CellStyleTest());
    run(GridTest());
    run(HeatmapTest());
    run(SeriesFeederTest());
    run(AnimationTest());
    return status;
}

#include "model_tests.moc"
