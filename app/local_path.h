#pragma once
// A path from the user or QML: a file:// URL (file dialogs) or already a path; and whether a
// folder is a checkpoint to open (the engine's rule, for the launch, the fallback and the folder dialog).
#include <QFileInfo>
#include <QString>
#include <QUrl>

#include "model/embedded_models.h"

inline QString localPath(const QString& pathOrUrl) {
    const QUrl u(pathOrUrl);
    return u.isLocalFile() ? u.toLocalFile() : pathOrUrl;
}

inline bool holdsCheckpoint(const QString& dirOrUrl) {
    return dlm::holds_checkpoint(localPath(dirOrUrl).toStdString());
}
