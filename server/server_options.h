#pragma once
// dlmscope-server's command line. Parsing checks everything that can be checked before a model
// is loaded: a non-loopback address without a token file, a certificate without its key, a
// token file that is missing or too short, limits that are not positive.
#include <QString>
#include <QStringList>

#include "decode_server.h"
#include "serve/protocol.h"

struct ServerOptions {
    QStringList modelDirs;     // --model DIR (repeatable)
    QString backend = QStringLiteral("auto");
    int threads = 0;           // CPU backend threads (0: its default)
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = 8765;
    ServerSecurity security;
    dlm::serve::ServeLimits limits;
    QString error;             // set when the arguments are invalid
    bool exitNow = false;      // --help / --version answered
};

ServerOptions parseServerOptions(const QStringList& arguments);
// An address that only this machine can reach.
bool isLoopback(const QString& host);
