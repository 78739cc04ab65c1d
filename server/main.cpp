// dlmscope-server: loads the models once and serves decode runs to dlmscope apps (docs/server.md).
#include <cstdio>

#include <QCoreApplication>

#include "backends/loaded_model.h"
#include "decode_server.h"
#include "server_options.h"

int main(int argc, char* argv[]) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("dlmscope-server"));
    QCoreApplication::setApplicationVersion(QStringLiteral(DLM_VERSION));
    const ServerOptions o = parseServerOptions(QCoreApplication::arguments());
    if (o.exitNow) return 0;
    if (!o.error.isEmpty()) {
        std::fprintf(stderr, "dlmscope-server: %s\n", qPrintable(o.error));
        return 2;
    }
    try {
        std::vector<dlm::LoadedModel> models;
        for (const ServedModel& served : resolveServedModels(o.models)) {
            dlm::LoadOptions load;
            load.backend = dlm::parse_backend_kind(o.backend.toStdString());
            load.cpu_threads = o.threads;
            load.diffusion_only = true;
            std::fprintf(stderr, "dlmscope-server: loading %s as %s\n", served.folder.c_str(), served.name.c_str());
            models.push_back(dlm::load_model(served.folder, load));
            models.back().name = served.name;
            if (!models.back().backend_note.empty())
                std::fprintf(stderr, "note: %s: %s\n", models.back().name.c_str(), models.back().backend_note.c_str());
        }
        DecodeServer server(std::move(models), o.limits, o.security);
        server.listen(o.host, o.port);
        QString names;
        for (const auto& l : server.service().listings()) names += (names.isEmpty() ? "" : ", ") + QString::fromStdString(l.name);
        // Tests and scripts read the port from this line (with --port 0 it is the one picked).
        std::printf("dlmscope-server: serving %s on %s://%s:%u\n", qPrintable(names), o.security.tls ? "wss" : "ws",
                    qPrintable(o.host), unsigned(server.port()));
        std::fflush(stdout);
        return app.exec();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "dlmscope-server: %s\n", e.what());
        return 1;
    }
}
