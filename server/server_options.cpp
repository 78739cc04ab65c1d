#include "server_options.h"

#include <cstdio>

#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QRegularExpression>
#include <QSslCertificate>
#include <QSslKey>

#include "model/checkpoint.h"
#include "model/hf_cache.h"
#include "util/error.h"

namespace {

constexpr int kMinTokenChars = 16;

const char* kDescription =
    "Serves decode runs of diffusion language models to dlmscope apps over a WebSocket.\n"
    "\n"
    "It listens on 127.0.0.1 unless told otherwise: from another machine, reach it through an\n"
    "SSH tunnel (ssh -N -L 8765:127.0.0.1:8765 gpu-host) and connect the app to 127.0.0.1:8765.\n"
    "Listening on any other address needs --token-file: every client must present the token\n"
    "(a line of at least 16 characters). With --tls-cert and --tls-key the connection is TLS\n"
    "(wss://). Each client may have --max-runs-per-client runs queued or running; the server\n"
    "steps --max-active-runs runs side by side and queues the rest. A client that disconnects\n"
    "cancels its own runs. Protocol and limits: docs/server.md.";

bool positive(QCommandLineParser& p, const QString& name, long long max, long long& out, QString& error) {
    if (!p.isSet(name)) return true;
    bool ok = false;
    const long long v = p.value(name).toLongLong(&ok);
    if (!ok || v < 1 || v > max) {
        error = QStringLiteral("--%1 must be a whole number from 1 to %2, not '%3'").arg(name).arg(max).arg(p.value(name));
        return false;
    }
    out = v;
    return true;
}

// A name the app can put in its ws://host:port/<name> address as written: path-like words of
// letters, digits and . _ - + @.
bool servableName(const QString& name) {
    static const QRegularExpression word(QStringLiteral("^[A-Za-z0-9._+@-]+(/[A-Za-z0-9._+@-]+)*$"));
    return name.size() <= 128 && word.match(name).hasMatch();
}

// --model [NAME=]DIR: an argument that is a path as a whole is a folder, even with '=' in it.
bool parseModelArg(const QString& arg, ServedModelArg& out, QString& error) {
    const qsizetype eq = arg.indexOf(QLatin1Char('='));
    if (eq < 0 || QFileInfo::exists(arg)) {
        out = {QString(), arg};
        return true;
    }
    out = {arg.left(eq), arg.mid(eq + 1)};
    if (!servableName(out.name)) {
        error = QStringLiteral("--model %1: a served model's name is words of letters, digits and . _ - + @ "
                               "joined by '/' (at most 128 characters), not '%2'").arg(arg, out.name);
        return false;
    }
    if (out.dir.isEmpty()) {
        error = QStringLiteral("--model %1: name the folder after '=': --model NAME=DIR").arg(arg);
        return false;
    }
    return true;
}

}  // namespace

std::vector<ServedModel> resolveServedModels(const QList<ServedModelArg>& models) {
    std::vector<ServedModel> served;
    for (const ServedModelArg& m : models) {
        const std::filesystem::path folder = dlm::checked_model_folder(m.dir.toStdString());
        const std::string name = m.name.isEmpty() ? dlm::model_folder_name(folder) : m.name.toStdString();
        for (const ServedModel& other : served)
            if (other.name == name)
                throw dlm::Error("two served models are both named '" + name + "' (" + other.folder.string() + " and " +
                                 folder.string() + "): name them apart, --model NAME=DIR");
        served.push_back({name, folder});
    }
    return served;
}

bool isLoopback(const QString& host) {
    if (host == QLatin1String("localhost")) return true;
    const QHostAddress a(host);
    return !a.isNull() && a.isLoopback();
}

ServerOptions parseServerOptions(const QStringList& arguments) {
    ServerOptions o;
    QCommandLineParser p;
    p.setApplicationDescription(QString::fromUtf8(kDescription));
    p.addHelpOption();
    p.addVersionOption();
    p.addOption({"model", "A checkpoint folder to serve (repeatable; each is loaded once, at start), served "
                          "under its folder's name, or as NAME with NAME=DIR.", "[NAME=]DIR"});
    p.addOption({"backend", "auto, cpu or cuda (default auto: CUDA when usable).", "NAME", "auto"});
    p.addOption({"threads", "CPU backend threads (default: by model size).", "N"});
    p.addOption({"host", "Address to listen on (default 127.0.0.1; others need --token-file).", "ADDRESS", "127.0.0.1"});
    p.addOption({"port", "Port to listen on (default 8765; 0 picks a free one and prints it).", "PORT", "8765"});
    p.addOption({"token-file", "File whose first line is the token every client must present.", "FILE"});
    p.addOption({"tls-cert", "PEM certificate: serve wss:// (needs --tls-key).", "FILE"});
    p.addOption({"tls-key", "PEM private key of --tls-cert.", "FILE"});
    p.addOption({"max-message-bytes", "Largest message a client may send (default 1048576).", "N"});
    p.addOption({"max-prompt-bytes", "Longest prompt, UTF-8 bytes (default 65536).", "N"});
    p.addOption({"max-gen-length", "Largest gen_length of a run (default 4096).", "N"});
    p.addOption({"max-runs-per-client", "Runs one client may have queued or running (default 2).", "N"});
    p.addOption({"max-active-runs", "Runs stepped side by side; the rest wait (default 4).", "N"});
    p.addOption({"max-clients", "Connections at once (default 16).", "N"});
    if (!p.parse(arguments)) {
        o.error = p.errorText();
        return o;
    }
    if (p.isSet("help")) {
        std::fputs(qPrintable(p.helpText()), stdout);
        o.exitNow = true;
        return o;
    }
    if (p.isSet("version")) {
        std::printf("dlmscope-server %s\n", DLM_VERSION);
        o.exitNow = true;
        return o;
    }
    if (!p.positionalArguments().isEmpty()) {
        o.error = QStringLiteral("unexpected argument '%1'").arg(p.positionalArguments().first());
        return o;
    }
    for (const QString& arg : p.values("model")) {
        ServedModelArg m;
        if (!parseModelArg(arg, m, o.error)) return o;
        o.models << m;
    }
    if (o.models.isEmpty()) {
        o.error = QStringLiteral("name at least one model to serve: --model DIR");
        return o;
    }
    o.backend = p.value("backend");
    if (o.backend != "auto" && o.backend != "cpu" && o.backend != "cuda") {
        o.error = QStringLiteral("--backend must be auto, cpu or cuda, not '%1'").arg(o.backend);
        return o;
    }
    long long v = 0;
    if (p.isSet("threads")) {
        if (!positive(p, "threads", 1024, v, o.error)) return o;
        o.threads = int(v);
    }
    o.host = p.value("host");
    if (QHostAddress(o.host).isNull() && o.host != QLatin1String("localhost")) {
        o.error = QStringLiteral("--host must be an IP address, not '%1'").arg(o.host);
        return o;
    }
    bool ok = false;
    const int port = p.value("port").toInt(&ok);
    if (!ok || port < 0 || port > 65535) {
        o.error = QStringLiteral("--port must be 0 to 65535, not '%1'").arg(p.value("port"));
        return o;
    }
    o.port = quint16(port);

    auto& l = o.limits;
    long long n = 0;
    if (!positive(p, "max-message-bytes", 1ll << 30, n = (long long)l.max_message_bytes, o.error)) return o;
    l.max_message_bytes = uint64_t(n);
    if (!positive(p, "max-prompt-bytes", 1ll << 30, n = l.max_prompt_bytes, o.error)) return o;
    l.max_prompt_bytes = int(n);
    if (!positive(p, "max-gen-length", 1 << 20, n = l.max_gen_length, o.error)) return o;
    l.max_gen_length = int(n);
    if (!positive(p, "max-runs-per-client", 1024, n = l.max_runs_per_client, o.error)) return o;
    l.max_runs_per_client = int(n);
    if (!positive(p, "max-active-runs", 1024, n = l.max_active_runs, o.error)) return o;
    l.max_active_runs = int(n);
    if (!positive(p, "max-clients", 4096, n = l.max_clients, o.error)) return o;
    l.max_clients = int(n);

    if (p.isSet("token-file")) {
        QFile f(p.value("token-file"));
        if (!f.open(QIODevice::ReadOnly)) {
            o.error = QStringLiteral("cannot read the token file %1: %2").arg(f.fileName(), f.errorString());
            return o;
        }
        o.security.token = QString::fromUtf8(f.readLine(4096)).trimmed();
        if (o.security.token.size() < kMinTokenChars) {
            o.error = QStringLiteral("the token in %1 is shorter than %2 characters").arg(f.fileName()).arg(kMinTokenChars);
            return o;
        }
    }
    if (!isLoopback(o.host) && o.security.token.isEmpty()) {
        o.error = QStringLiteral("listening on %1 lets other machines in: give --token-file (or use an SSH tunnel to 127.0.0.1)").arg(o.host);
        return o;
    }
    if (p.isSet("tls-cert") != p.isSet("tls-key")) {
        o.error = QStringLiteral("TLS needs both --tls-cert and --tls-key");
        return o;
    }
    if (p.isSet("tls-cert")) {
        QFile cf(p.value("tls-cert")), kf(p.value("tls-key"));
        if (!cf.open(QIODevice::ReadOnly) || !kf.open(QIODevice::ReadOnly)) {
            o.error = QStringLiteral("cannot read the TLS certificate or key (%1, %2)").arg(cf.fileName(), kf.fileName());
            return o;
        }
        const QSslCertificate cert(&cf, QSsl::Pem);
        QSslKey key(&kf, QSsl::Rsa, QSsl::Pem);
        if (key.isNull()) {
            kf.seek(0);
            key = QSslKey(&kf, QSsl::Ec, QSsl::Pem);
        }
        if (cert.isNull() || key.isNull()) {
            o.error = QStringLiteral("%1 is not a PEM certificate or %2 not a PEM RSA/EC key").arg(cf.fileName(), kf.fileName());
            return o;
        }
        o.security.tls = true;
        o.security.ssl = QSslConfiguration::defaultConfiguration();
        o.security.ssl.setLocalCertificate(cert);
        o.security.ssl.setPrivateKey(key);
    }
    return o;
}
