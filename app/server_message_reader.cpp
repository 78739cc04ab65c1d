#include "server_message_reader.h"

#include "trace/trace_io.h"

namespace {

ReadMessage parse(quint64 connection, const QString& text) {
    namespace serve = dlm::serve;
    ReadMessage m;
    m.connection = connection;
    try {
        m.message = serve::parse_server_message(text.toStdString());
    } catch (const std::exception& e) {
        m.unreadable = QString::fromUtf8(e.what());
        return m;
    }
    if (const auto* r = std::get_if<serve::Record>(&m.message)) {
        try {
            if (r->kind == "header") m.header = std::make_shared<const dlm::TraceHeader>(dlm::trace_header_from_json(r->json));
            else if (r->kind == "step") m.step = std::make_shared<const dlm::StepTrace>(dlm::step_trace_from_json(r->json));
            else if (r->kind == "summary") m.summary = std::make_shared<const dlm::TraceSummary>(dlm::trace_summary_from_json(r->json));
        } catch (const std::exception& e) {
            m.badRecord = QString::fromUtf8(e.what());
        }
    }
    return m;
}

}  // namespace

void ServerMessageReader::post(quint64 connection, const QString& text) {
    QMetaObject::invokeMethod(this, [this, connection, text] { Q_EMIT read(parse(connection, text)); });
}

void ServerMessageReader::postClosed(quint64 connection) {
    QMetaObject::invokeMethod(this, [this, connection] {
        ReadMessage m;
        m.connection = connection;
        m.closed = true;
        Q_EMIT read(m);
    });
}
