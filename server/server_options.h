#pragma once
// dlmscope-server's command line. Parsing checks everything that can be checked before a model
// is loaded: a non-loopback address without a token file, a certificate without its key, a
// token file that is missing or too short, limits that are not positive.
#include <filesystem>
#include <string>
#include <vector>

#include <QList>
#include <QString>

#include "decode_server.h"
#include "serve/protocol.h"

// One --model [NAME=]DIR. Without a name the model is served under its folder's name (a Hugging
// Face cache snapshot: its repository id), as the app titles it; a name tells apart two folders
// that share one (two revisions of a cached repository, two copies of one model).
struct ServedModelArg {
    QString name;  // empty: the folder's
    QString dir;
};

struct ServerOptions {
    QList<ServedModelArg> models;  // --model [NAME=]DIR (repeatable)
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

struct ServedModel {
    std::string name;
    std::filesystem::path folder;  // the checkpoint folder (a cache repository's snapshot)
};
// The folders to load and the names to serve them by, found before any model is loaded (an 8B
// model loads for minutes): a missing folder, or two models of one name, is refused at once, the
// latter naming both folders. Throws dlm::Error.
std::vector<ServedModel> resolveServedModels(const QList<ServedModelArg>& models);
// An address that only this machine can reach.
bool isLoopback(const QString& host);
