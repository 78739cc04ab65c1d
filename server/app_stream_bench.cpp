// The step rate the app sustains on a 1024-position canvas streamed over loopback
// (docs/benchmarks.md). The real app — its remote engine, run controller, views, grid, heatmaps and
// charts in the QML window, offscreen — connects to a producer on 127.0.0.1 that speaks the server
// protocol and sends a run's records as fast as the socket takes them. The records are real: a
// decode of the embedded model on a 1024-position canvas made at start-up, its steps sent in turn
// with their step numbers rewritten (no engine is fast enough on this machine to feed the app at
// its limit, and the question is what the app can take, not what the CPU decodes). The producer
// runs on its own thread, so the app's thread does only the app's work. Reported: steps/s from
// the run's start to its end on screen, frames repainted, the longest the app's event loop went
// without turning (what a user feels as a stall), and the producer's own rate for reference.
#include <QApplication>
#include <QElapsedTimer>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QThread>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketServer>
#include <QtQml/qqmlextensionplugin.h>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "app_controller.h"
#include "backends/loaded_model.h"
#include "decode/decode_session.h"
#include "decode_config.h"
#include "decode_service.h"
#include "model_host.h"
#include "run_controller.h"
#include "serve/protocol.h"
#include "trace/trace_io.h"

Q_IMPORT_QML_PLUGIN(DlmscopePlugin)

namespace {

namespace serve = dlm::serve;
const char* kPrompt = "Sam buys 3 notebooks at $4 each and 2 pens at $3 each. How much does Sam spend in total?";

// Real records of one decode: the header and its steps (at most `steps` forwards).
struct Recorded {
    serve::ModelListing listing;
    dlm::TraceHeader header;
    std::vector<dlm::StepTrace> steps;
};

Recorded record(const QString& modelDir, int gen, int forwards) {
    dlm::LoadOptions lo;
    lo.backend = dlm::BackendKind::Cpu;
    lo.diffusion_only = true;
    dlm::LoadedModel m = dlm::load_model(modelDir.toStdString(), lo);
    dlm::DecodeSettings s;
    s.set("gen_length", std::to_string(gen));
    s.set("steps", std::to_string(forwards));
    dlm::DecodeSession session(*m.backend, *m.checkpoint->tokenizer, m.config(), dlm::build_prompt(*m.checkpoint, kPrompt, true), s,
                               {m.name, kPrompt}, m.guiders.get());
    Recorded r{serve::listing_of(m), session.header(), {}};
    while (!session.finished()) r.steps.push_back(session.step());
    return r;
}

// Speaks the server protocol to one client: every run gets `steps` records as fast as they go.
class Producer : public QObject {
public:
    Producer(const Recorded& rec, int steps) : rec_(rec), steps_(steps) {}
    quint16 listen() {
        server_ = new QWebSocketServer("stream-rate-bench", QWebSocketServer::NonSecureMode, this);
        server_->listen(QHostAddress::LocalHost, 0);
        connect(server_, &QWebSocketServer::newConnection, this, [this] {
            QWebSocket* s = server_->nextPendingConnection();
            connect(s, &QWebSocket::textMessageReceived, this, [this, s](const QString& t) { answer(s, t.toStdString()); });
        });
        return server_->serverPort();
    }
    double lastRunMs() const { return last_run_ms_; }

private:
    void answer(QWebSocket* s, const std::string& text) {
        serve::ServeLimits limits;
        const auto msg = serve::parse_client_message(text, limits);
        auto send = [s](const std::string& m) { s->sendTextMessage(QString::fromStdString(m)); };
        if (std::holds_alternative<serve::Hello>(msg)) return send(serve::welcome_message("stream-rate-bench", {rec_.listing}, limits));
        if (std::holds_alternative<serve::ListModels>(msg)) return send(serve::models_message({rec_.listing}));
        if (const auto* v = std::get_if<serve::ValidateRequest>(&msg)) return send(serve::issues_message(v->request, {}));
        const auto* run = std::get_if<serve::RunRequest>(&msg);
        if (!run) return;
        QElapsedTimer t;
        t.start();
        dlm::TraceHeader h = rec_.header;
        h.steps = steps_;
        send(serve::record_message(run->run, dlm::trace_header_to_json(h)));
        dlm::TraceSummary summary;
        for (int i = 0; i < steps_; ++i) {
            dlm::StepTrace st = rec_.steps[size_t(i) % rec_.steps.size()];
            st.step = i;
            summary.add_step(st);
            send(serve::record_message(run->run, dlm::step_trace_to_json(st)));
            s->flush();
        }
        summary.steps = steps_;
        summary.text = "(replayed records)";
        send(serve::record_message(run->run, dlm::trace_summary_to_json(summary)));
        send(serve::end_message(run->run, serve::RunEnd::Done));
        s->flush();
        last_run_ms_ = double(t.nsecsElapsed()) / 1e6;
    }

    const Recorded& rec_;
    int steps_;
    QWebSocketServer* server_ = nullptr;
    double last_run_ms_ = 0;
};

bool waitFor(const std::function<bool()>& done, int ms) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms) return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
    }
    return true;
}

}  // namespace

int main(int argc, char* argv[]) {
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    if (qEnvironmentVariable("QT_QPA_PLATFORM") == QLatin1String("offscreen"))
        QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("dlmscope"));
    QCoreApplication::setApplicationName(QStringLiteral("dlmscope-app-stream-bench"));  // its own settings
    QQuickStyle::setStyle(QStringLiteral("Fusion"));
    const QStringList args = app.arguments();
    auto value = [&](const QString& name, const QString& fallback) {
        const int i = args.indexOf(name);
        return i >= 0 && i + 1 < args.size() ? args[i + 1] : fallback;
    };
    if (args.contains("--help")) {
        std::puts("usage: dlmscope-app-stream-bench [--model DIR] [--steps 992] [--rounds 3] [--out FILE.json]");
        return 0;
    }
    const QString modelDir = value("--model", QStringLiteral(DLM_SOURCE_DIR "/resources/models/tiny-mdlm"));
    const int steps = value("--steps", "992").toInt();
    const int rounds = value("--rounds", "3").toInt();
    const int gen = 992;  // with the 32-token prompt: the model's whole 1024-position context
    try {
        std::fprintf(stderr, "recording a %d-position decode...\n", gen);
        const Recorded rec = record(modelDir, gen, 16);

        QThread producerThread;
        Producer producer(rec, steps);
        producer.moveToThread(&producerThread);
        producerThread.start();
        quint16 port = 0;
        QMetaObject::invokeMethod(&producer, [&] { port = producer.listen(); }, Qt::BlockingQueuedConnection);

        AppController controller(AppController::Options{false, false});
        AppController::setInstance(&controller);
        QQmlApplicationEngine engine;
        engine.addImportPath(QStringLiteral("qrc:/"));
        engine.load(QUrl(QStringLiteral("qrc:/Dlmscope/Main.qml")));
        if (engine.rootObjects().isEmpty()) throw std::runtime_error("the main window failed to load");
        auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
        window->resize(1600, 1000);
        window->show();

        controller.model()->connectServer("127.0.0.1", port, QString(), false);
        if (!waitFor([&] { return !controller.model()->serverModels().isEmpty(); }, 10000))
            throw std::runtime_error("the app did not list the producer's model: " + controller.model()->serverError().toStdString());
        controller.model()->loadFromServer(QString::fromStdString(rec.listing.name));
        if (!waitFor([&] { return controller.model()->loaded(); }, 10000)) throw std::runtime_error("the app did not open the model");
        controller.config()->setSetting("gen_length", QString::number(gen));
        controller.config()->setSetting("steps", QString::number(steps));
        if (!waitFor([&] { return controller.canRun(); }, 10000)) throw std::runtime_error("the app cannot run");

        // The event loop's longest gap: a 5 ms timer that records how late it fires.
        QElapsedTimer sinceTick;
        double worstGapMs = 0;
        QTimer ticker;
        ticker.setInterval(5);
        QObject::connect(&ticker, &QTimer::timeout, [&] {
            worstGapMs = std::max(worstGapMs, double(sinceTick.nsecsElapsed()) / 1e6);
            sinceTick.restart();
        });

        nlohmann::json report = {{"model", rec.listing.name}, {"positions", gen}, {"steps", steps}, {"rounds", nlohmann::json::array()}};
        std::printf("| round | steps | app: run to end on screen (ms) | app steps/s | frames repainted | longest event-loop gap (ms) | producer alone (ms) |\n");
        std::printf("|---:|---:|---:|---:|---:|---:|---:|\n");
        RunController* runs = controller.runs();
        for (int r = 0; r < rounds; ++r) {
            bool done = false;
            auto conn = QObject::connect(runs, &RunController::runCompleted, [&](bool) { done = true; });
            const int frames0 = runs->framesApplied();
            worstGapMs = 0;
            sinceTick.start();
            ticker.start();
            QElapsedTimer t;
            t.start();
            runs->runDecode();
            if (!waitFor([&] { return done; }, 600000)) throw std::runtime_error("the run did not finish");
            const double ms = double(t.nsecsElapsed()) / 1e6;
            ticker.stop();
            QObject::disconnect(conn);
            if (runs->run()->stepCount() != steps)
                throw std::runtime_error("the app shows " + std::to_string(runs->run()->stepCount()) + " steps, not " + std::to_string(steps));
            const int frames = runs->framesApplied() - frames0;
            std::printf("| %d | %d | %.0f | %.0f | %d | %.0f | %.0f |\n", r + 1, steps, ms, steps / (ms / 1000.0), frames, worstGapMs,
                        producer.lastRunMs());
            std::fflush(stdout);
            report["rounds"].push_back({{"app_ms", ms}, {"app_steps_per_s", steps / (ms / 1000.0)}, {"frames", frames},
                                        {"longest_event_loop_gap_ms", worstGapMs}, {"producer_ms", producer.lastRunMs()}});
        }
        const QString out = value("--out", QString());
        if (!out.isEmpty()) std::ofstream(out.toStdString()) << report.dump(2) << "\n";
        producerThread.quit();
        producerThread.wait();
        AppController::setInstance(nullptr);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "app-stream-bench: %s\n", e.what());
        return 1;
    }
}
