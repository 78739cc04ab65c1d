#pragma once
// Reads a dlmscope server's messages off the GUI thread. A 1024-position step record is ~330 KB of
// JSON that takes ~8 ms to read; a GPU server sends dozens a second, and reading them on the GUI
// thread froze the window while a burst was read. The reader lives on its own thread and hands
// the GUI each message already parsed, in the order received; a closed connection is passed
// along the same queue, so it arrives after every message that came before it.
#include <QObject>
#include <QString>

#include "serve/protocol.h"
#include "trace_ptr.h"

struct ReadMessage {
    quint64 connection = 0;  // which connection it came from (a reconnect makes the old one stale)
    dlm::serve::ServerMessage message;
    // A record, read: the one its kind names.
    TraceHeaderPtr header;
    StepTracePtr step;
    TraceSummaryPtr summary;
    QString unreadable;  // the message was not a protocol message (why)
    QString badRecord;   // it was, but its trace record was not a valid record (why)
    bool closed = false; // not a message: the connection closed after the ones before it
};
Q_DECLARE_METATYPE(ReadMessage)

class ServerMessageReader : public QObject {
    Q_OBJECT
public:
    // Thread-safe: queues the text for the reader's thread.
    void post(quint64 connection, const QString& text);
    void postClosed(quint64 connection);

Q_SIGNALS:
    void read(const ReadMessage& m);
};
