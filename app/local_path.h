#pragma once
// A path from the user or QML: a file:// URL (file dialogs) or already a path; and whether a
// folder is a checkpoint to open (the engine's rule, for the launch, the fallback and the folder dialog);
// the name a folder is shown by.
#include <QFileInfo>
#include <QString>
#include <QUrl>

#include "model/embedded_models.h"
#include "model/hf_cache.h"

inline QString localPath(const QString& pathOrUrl) {
    const QUrl u(pathOrUrl);
    return u.isLocalFile() ? u.toLocalFile() : pathOrUrl;
}

inline bool holdsCheckpoint(const QString& dirOrUrl) {
    return dlm::holds_checkpoint(localPath(dirOrUrl).toStdString());
}

// The name a model folder is shown by, as the engine names a loaded model (org/name for a
// Hugging Face cache snapshot).
inline QString folderName(const QString& dirOrUrl) {
    return QString::fromStdString(dlm::model_folder_name(localPath(dirOrUrl).toStdString()));
}
