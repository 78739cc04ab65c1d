#pragma once
// A path from the user or QML: a file:// URL (file dialogs) or already a path; and whether a
// folder is a checkpoint to open (one rule for the launch, the fallback and the folder dialog).
#include <QFileInfo>
#include <QString>
#include <QUrl>

inline QString localPath(const QString& pathOrUrl) {
    const QUrl u(pathOrUrl);
    return u.isLocalFile() ? u.toLocalFile() : pathOrUrl;
}

inline bool holdsCheckpoint(const QString& dirOrUrl) {
    return QFileInfo::exists(localPath(dirOrUrl) + QStringLiteral("/config.json"));
}
