// dlmscope-server on loopback, in process: real WebSocket clients against a DecodeServer serving
// the embedded model. A streamed run must equal the same run done locally (tokens and every trace
// record, wall times aside); pause/step/cancel, two clients at once, a client killed mid-run, the
// token, and malformed, oversized and out-of-limit messages.
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QWebSocket>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "backends/loaded_model.h"
#include "decode/decode_session.h"
#include "decode_server.h"
#include "server_options.h"
#include "trace/trace_io.h"
#include "util/error.h"

using namespace dlm::serve;

namespace {

QString modelDir() { return QStringLiteral(DLM_SOURCE_DIR "/resources/models/tiny-mdlm"); }

dlm::LoadedModel loadTiny() {
    dlm::LoadOptions o;
    o.backend = dlm::BackendKind::Cpu;
    o.cpu_threads = 1;
    o.diffusion_only = true;
    return dlm::load_model(modelDir().toStdString(), o);
}

std::unique_ptr<DecodeServer> serve(ServeLimits limits = {}, QString token = {}, ServerSecurity security = {}) {
    std::vector<dlm::LoadedModel> models;
    models.push_back(loadTiny());
    if (!token.isEmpty()) security.token = token;
    auto s = std::make_unique<DecodeServer>(std::move(models), limits, security);
    s->listen(QStringLiteral("127.0.0.1"), 0);
    return s;
}

// A client that keeps every message the server sent, parsed.
struct Client {
    QWebSocket socket;
    std::vector<ServerMessage> got;
    std::vector<std::string> errors;
    bool closed = false;

    explicit Client(quint16 port, bool hello = true, const QString& token = {}, const QSslConfiguration* tls = nullptr) {
        QObject::connect(&socket, &QWebSocket::textMessageReceived, [this](const QString& t) {
            got.push_back(parse_server_message(t.toStdString()));
            if (auto* e = std::get_if<ServerError>(&got.back())) errors.push_back(e->message);
        });
        QObject::connect(&socket, &QWebSocket::disconnected, [this] { closed = true; });
        if (tls) socket.setSslConfiguration(*tls);
        socket.open(QUrl(QStringLiteral("%1://127.0.0.1:%2").arg(tls ? "wss" : "ws").arg(port)));
        if (!QTest::qWaitFor([&] { return socket.state() == QAbstractSocket::ConnectedState; }, 10000))
            qFatal("could not connect to the server");
        if (hello) say(nlohmann::json{{"v", 1}, {"type", "hello"}, {"token", token.toStdString()}});
    }
    void say(const nlohmann::json& m) { socket.sendTextMessage(QString::fromStdString(m.dump())); }
    void run(int64_t id, int gen, const std::string& strategy = "baseline") {
        say({{"v", 1}, {"type", "run"}, {"run", id}, {"prompt", "What is 23 + 45?"},
             {"settings", {{"gen_length", std::to_string(gen)}, {"steps", std::to_string(gen)}, {"strategy", strategy}}}});
    }
    void control(const char* kind, int64_t id) { say({{"v", 1}, {"type", kind}, {"run", id}}); }
    template <class T> int count() const {
        int n = 0;
        for (const auto& m : got) n += std::holds_alternative<T>(m);
        return n;
    }
    int records(int64_t run, const std::string& kind) const {
        int n = 0;
        for (const auto& m : got)
            if (auto* r = std::get_if<Record>(&m)) n += r->run == run && r->kind == kind;
        return n;
    }
    const RunEnded* ended(int64_t run) const {
        for (const auto& m : got)
            if (auto* e = std::get_if<RunEnded>(&m); e && e->run == run) return e;
        return nullptr;
    }
    bool waitEnd(int64_t run, int ms = 60000) { return QTest::qWaitFor([&] { return ended(run) != nullptr; }, ms); }
};

// A record with its wall times taken out: what must be identical between two runs.
nlohmann::json timeless(const std::string& record) {
    auto j = nlohmann::json::parse(record);
    j.erase("wall_ms");
    j.erase("wall_s");
    j.erase("e2e_tps");  // tokens per wall second
    return j;
}

}  // namespace

class ServerTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        // The embedded model ships with the repository: one missing is a broken checkout, not a skip.
        QVERIFY2(QFileInfo::exists(modelDir() + "/config.json"),
                 qPrintable("the embedded default model is missing: " + modelDir()));
    }

    void aStreamedRunEqualsTheLocalRun() {
        auto server = serve();
        Client c(server->port());
        QTRY_COMPARE_WITH_TIMEOUT(c.count<Welcome>(), 1, 10000);
        QCOMPARE(std::get<Welcome>(c.got[0]).models.at(0).name, std::string("tiny-mdlm"));
        c.run(1, 48, "surelock");
        QVERIFY(c.waitEnd(1));
        QCOMPARE(c.ended(1)->end, RunEnd::Done);
        std::vector<std::string> streamed;
        for (const auto& m : c.got)
            if (auto* r = std::get_if<Record>(&m)) streamed.push_back(r->json);

        dlm::LoadedModel local = loadTiny();
        dlm::DecodeSettings s;
        for (auto [k, v] : {std::pair{"gen_length", "48"}, {"steps", "48"}, {"strategy", "surelock"}}) s.set(k, v);
        auto ids = dlm::build_prompt(*local.checkpoint, "What is 23 + 45?", true);
        dlm::DecodeSession session(*local.backend, *local.checkpoint->tokenizer, local.config(), ids, s,
                                   {local.name, "What is 23 + 45?"}, local.guiders.get());
        std::vector<std::string> here{dlm::trace_header_to_json(session.header())};
        while (!session.finished()) here.push_back(dlm::step_trace_to_json(session.step()));
        here.push_back(dlm::trace_summary_to_json(session.summary()));

        QCOMPARE(streamed.size(), here.size());
        for (size_t i = 0; i < here.size(); ++i)
            QVERIFY2(timeless(streamed[i]) == timeless(here[i]), qPrintable(QStringLiteral("record %1 differs").arg(i)));
        // And the stream reads back through the trace reader as a whole trace.
        std::string ndjson;
        for (const auto& r : streamed) ndjson += r + "\n";
        std::istringstream in(ndjson);
        const auto file = dlm::parse_trace(in, "stream");
        QVERIFY(file.summary.has_value());
        QCOMPARE(file.summary->text, session.summary().text);
    }

    void pauseStepAndCancel() {
        auto server = serve();
        Client c(server->port());
        c.run(5, 96);
        QTRY_VERIFY_WITH_TIMEOUT(c.records(5, "step") >= 2, 30000);
        c.control("pause", 5);
        QTest::qWait(300);  // steps already on the wire arrive
        const int paused_at = c.records(5, "step");
        QTest::qWait(300);
        QCOMPARE(c.records(5, "step"), paused_at);  // a paused run takes no steps
        c.control("step", 5);
        QTRY_COMPARE_WITH_TIMEOUT(c.records(5, "step"), paused_at + 1, 10000);
        QTest::qWait(200);
        QCOMPARE(c.records(5, "step"), paused_at + 1);  // exactly one
        c.control("cancel", 5);
        QVERIFY(c.waitEnd(5));
        QCOMPARE(c.ended(5)->end, RunEnd::Cancelled);
        QCOMPARE(c.records(5, "summary"), 1);  // the partial run's totals come with it
        c.control("resume", 5);  // no such run any more
        QTRY_VERIFY(!c.errors.empty());
        QVERIFY(c.errors.back().find("no run 5") != std::string::npos);
    }

    void twoClientsAreServedSideBySide() {
        auto server = serve();
        Client a(server->port()), b(server->port());
        a.run(1, 96);
        b.run(1, 96);  // ids are per client
        QVERIFY(a.waitEnd(1) && b.waitEnd(1));
        QCOMPARE(a.ended(1)->end, RunEnd::Done);
        QCOMPARE(b.ended(1)->end, RunEnd::Done);
        QCOMPARE(a.records(1, "step"), b.records(1, "step"));
        // Round robin: B's run was under way before A's ended.
        size_t b_first_step = 0;
        for (size_t i = 0; i < b.got.size() && !b_first_step; ++i)
            if (auto* r = std::get_if<Record>(&b.got[i]); r && r->kind == "step") b_first_step = i;
        QVERIFY(b_first_step > 0);
        QVERIFY(a.records(1, "step") > 1);
    }

    void aClientKilledMidRunCancelsOnlyItsOwn() {
        auto server = serve();
        Client b(server->port());
        {
            Client a(server->port());
            a.run(1, 160);
            QTRY_VERIFY_WITH_TIMEOUT(a.records(1, "step") >= 1, 30000);
            b.run(2, 64);
            a.socket.abort();
        }
        QVERIFY(b.waitEnd(2));
        QCOMPARE(b.ended(2)->end, RunEnd::Done);
        QTRY_COMPARE(server->clientCount(), 1);
        QCOMPARE(server->service().active_runs(), 0);
        QCOMPARE(server->service().waiting_runs(), 0);
    }

    void theTokenIsRequiredAndChecked() {
        auto server = serve({}, QStringLiteral("correct-horse-battery-staple"));
        Client wrong(server->port(), true, QStringLiteral("correct-horse-battery-stapl"));
        QTRY_VERIFY_WITH_TIMEOUT(wrong.closed, 10000);
        QVERIFY(!wrong.errors.empty() && wrong.errors[0].find("token") != std::string::npos);
        QCOMPARE(wrong.count<Welcome>(), 0);
        Client none(server->port(), true);
        QTRY_VERIFY_WITH_TIMEOUT(none.closed, 10000);
        Client right(server->port(), true, QStringLiteral("correct-horse-battery-staple"));
        QTRY_COMPARE_WITH_TIMEOUT(right.count<Welcome>(), 1, 10000);
        QVERIFY(!right.closed);
    }

    void helloComesFirst() {
        auto server = serve();
        Client c(server->port(), false);
        c.run(1, 32);
        QTRY_VERIFY_WITH_TIMEOUT(c.closed, 10000);
        QVERIFY(!c.errors.empty() && c.errors[0].find("hello") != std::string::npos);
        QCOMPARE(server->service().active_runs() + server->service().waiting_runs(), 0);
    }

    void malformedOversizedAndOutOfLimitMessages() {
        ServeLimits limits;
        limits.max_message_bytes = 4096;
        limits.max_gen_length = 128;
        limits.max_runs_per_client = 1;
        auto server = serve(limits);
        Client c(server->port());
        QTRY_COMPARE_WITH_TIMEOUT(c.count<Welcome>(), 1, 10000);
        c.socket.sendTextMessage(QStringLiteral("{not json"));
        c.socket.sendBinaryMessage(QByteArray("\x00\x01", 2));
        c.say({{"v", 1}, {"type", "run"}, {"run", 1}, {"prompt", "x"}, {"settings", {{"gen_length", "4096"}}}});
        c.say({{"v", 1}, {"type", "run"}, {"run", 2}, {"prompt", "x"}, {"settings", {{"strategy", "no-such-strategy"}}}});
        QTRY_COMPARE_WITH_TIMEOUT(int(c.errors.size()) + c.count<RunEnded>(), 4, 10000);
        QVERIFY(c.errors[0].find("the message") != std::string::npos);
        QVERIFY(c.errors[1].find("binary") != std::string::npos);
        QVERIFY(c.errors[2].find("limit of 128") != std::string::npos);
        QVERIFY(c.ended(2) && c.ended(2)->end == RunEnd::Failed);
        QVERIFY(!c.closed);  // mistakes after hello are answered, not punished
        // One run per client: the second waits for nothing, it is refused.
        c.run(3, 128);
        c.run(4, 32);
        QVERIFY(c.waitEnd(4));
        QCOMPARE(c.ended(4)->end, RunEnd::Failed);
        QVERIFY(c.ended(4)->error.find("limit") != std::string::npos);
        QVERIFY(c.waitEnd(3));
        QCOMPARE(c.ended(3)->end, RunEnd::Done);
        // Past max_message_bytes the socket itself closes the connection.
        c.socket.sendTextMessage(QString(8000, QLatin1Char('x')));
        QTRY_VERIFY_WITH_TIMEOUT(c.closed, 10000);
        // The server goes on serving.
        Client d(server->port());
        d.run(1, 32);
        QVERIFY(d.waitEnd(1));
        QCOMPARE(d.ended(1)->end, RunEnd::Done);
    }

    // --model [NAME=]DIR: a model is served under its folder's name unless named; two of one name
    // are refused before anything loads, naming both folders and the way out.
    void modelsAreServedUnderTheirFolderNameOrTheOneGiven() {
        const ServerOptions o = parseServerOptions({"dlmscope-server", "--model", modelDir(), "--model", "tiny/rev-b@2=" + modelDir()});
        QVERIFY2(o.error.isEmpty(), qPrintable(o.error));
        const std::vector<ServedModel> served = resolveServedModels(o.models);
        QCOMPARE(served.size(), size_t(2));
        QCOMPARE(served[0].name, std::string("tiny-mdlm"));
        QCOMPARE(served[1].name, std::string("tiny/rev-b@2"));
        QCOMPARE(served[1].folder, served[0].folder);

        const ServerOptions twice = parseServerOptions({"dlmscope-server", "--model", modelDir(), "--model", modelDir() + "/"});
        QVERIFY2(twice.error.isEmpty(), qPrintable(twice.error));
        try {
            resolveServedModels(twice.models);
            QFAIL("two models named tiny-mdlm were accepted");
        } catch (const dlm::Error& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains("both named 'tiny-mdlm'") && what.contains("--model NAME=DIR") &&
                     what.count(modelDir()) == 2, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(dlm::Error, resolveServedModels({{QString(), "/nonexistent/model"}}));

        // A folder whose own name holds '=' is a folder, not NAME=DIR.
        QTemporaryDir dir;
        const QString odd = dir.filePath("a=b");
        QVERIFY(QDir().mkpath(odd));
        const ServerOptions folder = parseServerOptions({"dlmscope-server", "--model", odd});
        QVERIFY2(folder.error.isEmpty(), qPrintable(folder.error));
        QCOMPARE(folder.models.first().dir, odd);
        QVERIFY(folder.models.first().name.isEmpty());

        for (const QString bad : {"a b=" + modelDir(), "/abs=" + modelDir(), "a//b=" + modelDir(), "x?y=" + modelDir()})
            QVERIFY2(parseServerOptions({"dlmscope-server", "--model", bad}).error.contains("a served model's name"), qPrintable(bad));
        QVERIFY(parseServerOptions({"dlmscope-server", "--model", "name="}).error.contains("NAME=DIR"));
    }

    void tlsServesOnlyTls();
};

// wss:// with the certificate and key given as the command line gives them: a client that trusts
// the certificate is served; a plain ws:// client gets nothing.
void ServerTest::tlsServesOnlyTls() {
    QTemporaryDir dir;
    const QString cert = dir.filePath("cert.pem"), key = dir.filePath("key.pem");
    const int rc = QProcess::execute("openssl", {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                                                 "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"});
    if (rc != 0) QSKIP("openssl could not make a test certificate (tools/dev.sh deps installs openssl)");
    const ServerOptions o = parseServerOptions({"dlmscope-server", "--model", modelDir(), "--tls-cert", cert, "--tls-key", key});
    QVERIFY2(o.error.isEmpty(), qPrintable(o.error));
    QVERIFY(o.security.tls);
    auto server = serve({}, {}, o.security);
    QSslConfiguration trust = QSslConfiguration::defaultConfiguration();
    trust.setCaCertificates(QSslCertificate::fromPath(cert));
    Client secure(server->port(), true, {}, &trust);
    QTRY_COMPARE_WITH_TIMEOUT(secure.count<Welcome>(), 1, 10000);
    secure.run(1, 32);
    QVERIFY(secure.waitEnd(1));
    QCOMPARE(secure.ended(1)->end, RunEnd::Done);
    QWebSocket plain;
    plain.open(QUrl(QStringLiteral("ws://127.0.0.1:%1").arg(server->port())));
    QTest::qWait(1000);
    QVERIFY(plain.state() != QAbstractSocket::ConnectedState);
}

QTEST_GUILESS_MAIN(ServerTest)
#include "server_test.moc"
