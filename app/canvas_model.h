#pragma once
// One row per generated position as it stood after the shown step. show() emits dataChanged
// only for the rows whose state, event, token or confidence shade changed, in contiguous ranges, so
// a view repaints O(changed cells) per step (send changes, not the canvas).
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include "trace_ptr.h"

class CanvasModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("CanvasModel belongs to a RunView")
    Q_PROPERTY(int shownStep READ shownStep NOTIFY shownStepChanged)
    Q_PROPERTY(int blockLength READ blockLength NOTIFY layoutReset)

public:
    enum Role {
        TextRole = Qt::UserRole + 1,  // display text (visible whitespace)
        RawTextRole,
        SpecialRole,
        StateRole,       // int (dlm::PosState)
        StateNameRole,   // "masked", ...
        EventRole,       // int (dlm::PosEvent)
        EventNameRole,
        TokenRole,
        ConfidenceRole,  // NaN where not computed
        EntropyRole,
        KlRole,
        BlockRole,
    };
    Q_ENUM(Role)

    explicit CanvasModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // A new run: `positions` masked cells, blocks of `blockLength` (0 = one block).
    void resetLayout(int positions, int blockLength);
    // Shows a step's state; null clears back to all-masked. Emits dataChanged for changed rows.
    void show(const StepTracePtr& step);

    int shownStep() const { return step_ ? step_->step : -1; }
    int blockLength() const { return block_length_; }
    const dlm::PositionTrace* position(int row) const;
    dlm::PosState state(int row) const;
    dlm::PosEvent event(int row) const;
    // The confidence shade a cell is drawn with (16 levels; -1 = unshaded). Rows notify only
    // when their visible shade changes, so drifting confidences don't repaint the whole grid.
    static int shadeBucket(dlm::PosState state, float confidence);
    // What a cell shows: a cell is repainted when this changes (here, and in the decode animation).
    struct CellKey {
        dlm::PosState state = dlm::PosState::Masked;
        dlm::PosEvent event = dlm::PosEvent::None;
        int32_t token = -1;
        int shade = -1;
        bool operator==(const CellKey&) const = default;
    };
    static CellKey cellKey(const dlm::PositionTrace* p);  // null: a masked cell

Q_SIGNALS:
    void shownStepChanged();
    void layoutReset();

private:
    int positions_ = 0;
    int block_length_ = 0;
    StepTracePtr step_;
    std::vector<CellKey> keys_;
    std::vector<int> row_of_pos_;  // trace index per position (positions may arrive unordered)
};
