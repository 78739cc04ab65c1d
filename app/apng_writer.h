#pragma once
// Animated PNG (APNG, the PNG extension every current browser plays): lossless frames, so a
// grid's colours and token text stay exact, which a 256-colour GIF would not keep. Each frame is
// encoded by Qt's PNG writer. A frame after the first stores only the rectangle around the pixels
// that changed, the unchanged ones in it transparent and drawn over the previous frame: long runs
// of zeros, which compress to almost nothing. A viewer without APNG support shows the first frame.
#include <QByteArray>
#include <QImage>
#include <QIODevice>
#include <QString>

class ApngWriter {
public:
    // `frames` frames of `size` pixels will follow; `plays` = 0 loops forever.
    ApngWriter(QIODevice& out, QSize size, int frames, int plays = 0);

    // The next frame, shown for `delayMs`.
    bool addFrame(const QImage& frame, int delayMs);
    // After the last frame: false when fewer frames came than announced or a write failed.
    bool finish();
    QString error() const { return error_; }

private:
    bool writeChunk(const char type[4], const QByteArray& data);
    bool fail(const QString& why);

    QIODevice& out_;
    QSize size_;
    int frames_, plays_;
    int written_ = 0;
    quint32 sequence_ = 0;  // fcTL and fdAT chunks share one counter
    QImage previous_;
    QString error_;
};
