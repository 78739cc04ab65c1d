// What streaming costs: runs decoded by a dlmscope-server child process and streamed over
// loopback to this client, which reads every record into a StepTrace as the app's
// RemoteDecodeEngine does. The cost is measured against the same run's own decode time on the
// server (the sum of its steps' wall_ms, as its trace reports them), so both sides of the ratio
// come from one run in one process. The same runs decoded in this process are reported beside it
// for reference (another process: its speed may differ for reasons that are not the network).
// Rounds interleave. Reports medians, the ratio, the overhead per step, and the step rate a
// canvas filling the model's 1024-position context streams at (docs/benchmarks.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QWebSocket>
#include <nlohmann/json.hpp>

#include "backends/loaded_model.h"
#include "decode/decode_session.h"
#include "serve/protocol.h"
#include "trace/trace_io.h"

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const char* kPrompt = "Sam buys 3 notebooks at $4 each and 2 pens at $3 each. How much does Sam spend in total?";

struct Case { int gen; std::string strategy; int rounds = 0; };  // rounds 0: --rounds

double localMs(dlm::LoadedModel& m, const Case& c, int* steps) {
    dlm::DecodeSettings s;
    s.set("gen_length", std::to_string(c.gen));
    s.set("steps", std::to_string(c.gen));
    s.set("strategy", c.strategy);
    const auto t0 = Clock::now();
    dlm::DecodeSession session(*m.backend, *m.checkpoint->tokenizer, m.config(), dlm::build_prompt(*m.checkpoint, kPrompt, true),
                               s, {m.name, kPrompt}, m.guiders.get());
    // Every record is made, as the server makes it, so that only the transport differs.
    std::string sink = dlm::trace_header_to_json(session.header());
    int n = 0;
    while (!session.finished()) {
        sink = dlm::step_trace_to_json(session.step());
        ++n;
    }
    sink = dlm::trace_summary_to_json(session.summary());
    *steps = n;
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double streamedMs(QWebSocket& socket, int64_t run, const Case& c, int* steps, double* server_decode_ms) {
    int n = 0;
    double decode_ms = 0;
    bool ended = false;
    std::string error;
    auto conn = QObject::connect(&socket, &QWebSocket::textMessageReceived, [&](const QString& text) {
        const auto m = dlm::serve::parse_server_message(text.toStdString());
        if (const auto* r = std::get_if<dlm::serve::Record>(&m)) {
            if (r->kind == "step") {
                decode_ms += dlm::step_trace_from_json(r->json).wall_ms;
                ++n;
            }
        } else if (const auto* e = std::get_if<dlm::serve::RunEnded>(&m)) {
            ended = true;
            error = e->error;
        }
    });
    QElapsedTimer t;
    t.start();
    socket.sendTextMessage(QString::fromStdString(
        json{{"v", 1}, {"type", "run"}, {"run", run}, {"prompt", kPrompt}, {"chat", true},
             {"settings", {{"gen_length", std::to_string(c.gen)}, {"steps", std::to_string(c.gen)}, {"strategy", c.strategy}}}}
            .dump()));
    while (!ended) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    const double ms = double(t.nsecsElapsed()) / 1e6;
    QObject::disconnect(conn);
    if (!error.empty()) throw std::runtime_error("the streamed run failed: " + error);
    *steps = n;
    *server_decode_ms = decode_ms;
    return ms;
}

}  // namespace

int run(QCoreApplication& app);

int main(int argc, char* argv[]) {
    QCoreApplication app(argc, argv);
    try {
        return run(app);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stream-bench: %s\n", e.what());
        return 1;
    }
}

int run(QCoreApplication& app) {
    const QStringList args = app.arguments();
    auto value = [&](const QString& name, const QString& fallback) {
        const int i = args.indexOf(name);
        return i >= 0 && i + 1 < args.size() ? args[i + 1] : fallback;
    };
    if (args.contains("--help")) {
        std::puts("usage: dlmscope-stream-bench --server PATH/dlmscope-server --model DIR [--rounds 5] [--out FILE.json]");
        return 0;
    }
    const QString serverExe = value("--server", QCoreApplication::applicationDirPath() + "/dlmscope-server");
    const QString modelDir = value("--model", QStringLiteral(DLM_SOURCE_DIR "/resources/models/tiny-mdlm"));
    const int rounds = value("--rounds", "5").toInt();
    const QString out = value("--out", QString());

    QProcess server;
    server.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    server.start(serverExe, {"--model", modelDir, "--backend", "cpu", "--threads", "1", "--port", "0", "--max-gen-length", "1024"});
    if (!server.waitForReadyRead(60000)) {
        std::fprintf(stderr, "stream-bench: the server did not start\n");
        return 1;
    }
    const QString line = QString::fromUtf8(server.readLine());
    const auto port = QRegularExpression(":(\\d+)\\s*$").match(line).captured(1).toInt();
    QWebSocket socket;
    socket.open(QUrl(QStringLiteral("ws://127.0.0.1:%1").arg(port)));
    while (socket.state() != QAbstractSocket::ConnectedState) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    bool welcomed = false;
    auto hello = QObject::connect(&socket, &QWebSocket::textMessageReceived, [&](const QString&) { welcomed = true; });
    socket.sendTextMessage(QStringLiteral("{\"v\":1,\"type\":\"hello\"}"));
    while (!welcomed) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    QObject::disconnect(hello);

    dlm::LoadOptions lo;
    lo.backend = dlm::BackendKind::Cpu;
    lo.cpu_threads = 1;
    lo.diffusion_only = true;
    dlm::LoadedModel local = dlm::load_model(modelDir.toStdString(), lo);

    // The last case fills the model's 1024-position context: the 32-token prompt plus 992.
    // (one round: a decode of ~1000 steps on 1024 positions takes minutes on one CPU thread).
    const std::vector<Case> cases = {{160, "baseline"}, {160, "surelock"}, {992, "baseline", 1}};
    json report = {{"model", local.name}, {"rounds", rounds}, {"cases", json::array()}};
    std::printf("| gen length | strategy | steps | server decode (ms) | client sees (ms) | client / server | overhead per step (ms) | streamed steps/s | in-process decode (ms) |\n");
    std::printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    int64_t run = 0;
    for (const Case& c : cases) {
        std::vector<double> l, s, d, ratio;
        int steps = 0, streamedSteps = 0;
        double decode = 0;
        const int n = c.rounds > 0 ? c.rounds : rounds;
        if (n > 1) {
            (void)localMs(local, c, &steps);  // warm-up of both paths
            (void)streamedMs(socket, ++run, c, &streamedSteps, &decode);
        }
        for (int r = 0; r < n; ++r) {
            l.push_back(localMs(local, c, &steps));
            s.push_back(streamedMs(socket, ++run, c, &streamedSteps, &decode));
            d.push_back(decode);
            ratio.push_back(s.back() / decode);
        }
        if (steps != streamedSteps) {
            std::fprintf(stderr, "stream-bench: %d local steps but %d streamed\n", steps, streamedSteps);
            return 1;
        }
        const double lm = median(l), sm = median(s), dm = median(d), rm = median(ratio);
        std::vector<double> per_step;
        for (size_t i = 0; i < s.size(); ++i) per_step.push_back((s[i] - d[i]) / steps);
        const double om = median(per_step);
        std::printf("| %d | %s | %d | %.1f | %.1f | %.3f | %.3f | %.0f | %.1f |\n", c.gen, c.strategy.c_str(), steps, dm, sm, rm, om,
                    steps / (sm / 1000.0), lm);
        std::fflush(stdout);
        report["cases"].push_back({{"gen_length", c.gen}, {"strategy", c.strategy}, {"steps", steps},
                                   {"server_decode_ms", d}, {"client_ms", s}, {"in_process_ms", l},
                                   {"median_client_over_server", rm}, {"median_overhead_ms_per_step", om},
                                   {"median_client_ms", sm}, {"median_server_decode_ms", dm}, {"median_in_process_ms", lm}});
    }
    socket.close();
    server.terminate();
    server.waitForFinished(5000);
    if (!out.isEmpty()) std::ofstream(out.toStdString()) << report.dump(2) << "\n";
    return 0;
}
