#pragma once
// A path from the user or QML: a file:// URL (file dialogs) or already a path.
#include <QString>
#include <QUrl>

inline QString localPath(const QString& pathOrUrl) {
    const QUrl u(pathOrUrl);
    return u.isLocalFile() ? u.toLocalFile() : pathOrUrl;
}
