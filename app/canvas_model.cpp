#include "canvas_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cell_style.h"

CanvasModel::CanvasModel(QObject* parent) : QAbstractListModel(parent) {}

int CanvasModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : positions_; }

QHash<int, QByteArray> CanvasModel::roleNames() const {
    return {{TextRole, "text"},       {RawTextRole, "rawText"},       {SpecialRole, "special"},
            {StateRole, "cellState"}, {StateNameRole, "stateName"},   {EventRole, "cellEvent"},
            {EventNameRole, "eventName"}, {TokenRole, "token"},       {ConfidenceRole, "confidence"},
            {EntropyRole, "entropy"}, {KlRole, "kl"},                 {BlockRole, "block"}};
}

const dlm::PositionTrace* CanvasModel::position(int row) const {
    if (!step_ || row < 0 || row >= int(row_of_pos_.size())) return nullptr;
    const int i = row_of_pos_[size_t(row)];
    return i < 0 ? nullptr : &step_->positions[size_t(i)];
}

dlm::PosState CanvasModel::state(int row) const {
    const auto* p = position(row);
    return p ? p->state : dlm::PosState::Masked;
}

dlm::PosEvent CanvasModel::event(int row) const {
    const auto* p = position(row);
    return p ? p->event : dlm::PosEvent::None;
}

QVariant CanvasModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const int row = index.row();
    const auto* p = position(row);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    switch (role) {
    case Qt::DisplayRole:
    case TextRole: {
        if (!p || p->state == dlm::PosState::Masked) return QString();
        return cell_style::displayToken(p->text, cell_style::looksSpecial(p->text)).text;
    }
    case RawTextRole: return p ? QString::fromStdString(p->text) : QString();
    case SpecialRole: return p ? cell_style::looksSpecial(p->text) : false;
    case StateRole: return int(state(row));
    case StateNameRole: return cell_style::stateLabel(state(row));
    case EventRole: return int(event(row));
    case EventNameRole: return cell_style::eventLabel(event(row));
    case TokenRole: return p ? p->token : -1;
    case ConfidenceRole: return p ? double(p->confidence) : nan;
    case EntropyRole: return p ? double(p->entropy) : nan;
    case KlRole: return p ? double(p->kl) : nan;
    case BlockRole: return block_length_ > 0 ? row / block_length_ : 0;
    default: return {};
    }
}

int CanvasModel::shadeBucket(dlm::PosState state, float confidence) {
    if (std::isnan(confidence) || state == dlm::PosState::Masked || state == dlm::PosState::Prompt) return -1;
    return std::clamp(int(confidence * 16.f), 0, 15);
}

CanvasModel::CellKey CanvasModel::cellKey(const dlm::PositionTrace* p) {
    if (!p) return {};
    return {p->state, p->event, p->token, shadeBucket(p->state, p->confidence)};
}

void CanvasModel::resetLayout(int positions, int blockLength) {
    beginResetModel();
    positions_ = std::max(0, positions);
    block_length_ = std::max(0, blockLength);
    step_.reset();
    keys_.assign(size_t(positions_), CellKey{});
    row_of_pos_.assign(size_t(positions_), -1);
    endResetModel();
    Q_EMIT layoutReset();
    Q_EMIT shownStepChanged();
}

void CanvasModel::show(const StepTracePtr& step) {
    if (step == step_) return;
    step_ = step;
    std::fill(row_of_pos_.begin(), row_of_pos_.end(), -1);
    std::vector<CellKey> next(static_cast<size_t>(positions_));
    if (step_) {
        for (size_t i = 0; i < step_->positions.size(); ++i) {
            const auto& p = step_->positions[i];
            if (p.pos < 0 || p.pos >= positions_) continue;
            row_of_pos_[size_t(p.pos)] = int(i);
            next[size_t(p.pos)] = cellKey(&p);
        }
    }
    // Contiguous runs of changed rows -> one dataChanged each.
    int first = -1;
    for (int r = 0; r <= positions_; ++r) {
        const bool changed = r < positions_ && !(next[size_t(r)] == keys_[size_t(r)]);
        if (changed && first < 0) first = r;
        if (!changed && first >= 0) {
            Q_EMIT dataChanged(index(first), index(r - 1));
            first = -1;
        }
    }
    keys_ = std::move(next);
    Q_EMIT shownStepChanged();
}
