#pragma once
// The Qt Quick Controls style the app is drawn in. One home: main() and the walkthrough (which
// must show and click what the user sees) both set it, before any QML is loaded.
#include <QQuickStyle>

inline void useAppStyle() { QQuickStyle::setStyle(QStringLiteral("Fusion")); }
