#include "apng_writer.h"

#include <algorithm>
#include <array>

#include <QBuffer>
#include <QImageWriter>

namespace {

constexpr char kSignature[] = "\x89PNG\r\n\x1a\n";

quint32 crc32(const QByteArray& a, const QByteArray& b) {
    static const std::array<quint32, 256> table = [] {
        std::array<quint32, 256> t{};
        for (quint32 n = 0; n < 256; ++n) {
            quint32 c = n;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[n] = c;
        }
        return t;
    }();
    quint32 c = 0xFFFFFFFFu;
    for (const QByteArray* part : {&a, &b})
        for (char ch : *part) c = table[(c ^ quint8(ch)) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

void put32(QByteArray& out, quint32 v) {
    const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    out.append(b, 4);
}

void put16(QByteArray& out, quint16 v) {
    const char b[2] = {char(v >> 8), char(v)};
    out.append(b, 2);
}

quint32 get32(const QByteArray& in, qsizetype at) {
    const auto* p = reinterpret_cast<const uchar*>(in.constData() + at);
    return quint32(p[0]) << 24 | quint32(p[1]) << 16 | quint32(p[2]) << 8 | quint32(p[3]);
}

// One image as Qt's PNG writer encodes it: its IHDR chunk's data and all its IDAT data.
struct EncodedFrame {
    QByteArray header, data;
};

bool encode(const QImage& image, EncodedFrame& out, QString& error) {
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    QImageWriter writer(&buffer, "png");
    // Every frame must share the file's colour type: 8-bit RGBA, which Qt writes for ARGB32.
    writer.setQuality(0);  // Qt's PNG writer: quality 0 = zlib's strongest compression
    if (!writer.write(image.convertToFormat(QImage::Format_ARGB32))) {
        error = writer.errorString();
        return false;
    }
    if (!png.startsWith(QByteArray(kSignature, 8))) {
        error = QStringLiteral("the PNG encoder wrote no PNG");
        return false;
    }
    for (qsizetype at = 8; at + 12 <= png.size();) {
        const quint32 length = get32(png, at);
        if (at + 12 + qsizetype(length) > png.size()) break;
        const QByteArray type = png.mid(at + 4, 4), data = png.mid(at + 8, length);
        if (type == "IHDR") out.header = data;
        else if (type == "IDAT") out.data += data;
        at += 12 + qsizetype(length);
    }
    // width, height, bit depth 8, colour type 6 (RGBA), no interlacing
    if (out.header.size() != 13 || out.header.at(8) != 8 || out.header.at(9) != 6 || out.header.at(12) != 0 ||
        out.data.isEmpty()) {
        error = QStringLiteral("the PNG encoder wrote a layout an animation cannot share between frames");
        return false;
    }
    return true;
}

// The pixels of `now` that differ from `before` (same size, ARGB32): their bounding rectangle, with
// the unchanged pixels in it transparent. Nothing changed: one transparent pixel.
QImage changedPart(const QImage& before, const QImage& now, QPoint& at) {
    int top = now.height(), bottom = -1, left = now.width(), right = -1;
    for (int y = 0; y < now.height(); ++y) {
        const auto* a = reinterpret_cast<const quint32*>(before.constScanLine(y));
        const auto* b = reinterpret_cast<const quint32*>(now.constScanLine(y));
        for (int x = 0; x < now.width(); ++x)
            if (a[x] != b[x]) {
                top = std::min(top, y), bottom = y;
                left = std::min(left, x), right = std::max(right, x);
            }
    }
    if (bottom < 0) {
        at = QPoint(0, 0);
        QImage none(1, 1, QImage::Format_ARGB32);
        none.fill(Qt::transparent);
        return none;
    }
    at = QPoint(left, top);
    QImage part(right - left + 1, bottom - top + 1, QImage::Format_ARGB32);
    for (int y = 0; y < part.height(); ++y) {
        const auto* a = reinterpret_cast<const quint32*>(before.constScanLine(top + y)) + left;
        const auto* b = reinterpret_cast<const quint32*>(now.constScanLine(top + y)) + left;
        auto* out = reinterpret_cast<quint32*>(part.scanLine(y));
        for (int x = 0; x < part.width(); ++x) out[x] = a[x] == b[x] ? 0u : b[x];
    }
    return part;
}

}  // namespace

ApngWriter::ApngWriter(QIODevice& out, QSize size, int frames, int plays)
    : out_(out), size_(size), frames_(frames), plays_(plays) {}

bool ApngWriter::fail(const QString& why) {
    if (error_.isEmpty()) error_ = why;
    return false;
}

bool ApngWriter::writeChunk(const char type[4], const QByteArray& data) {
    QByteArray chunk;
    chunk.reserve(data.size() + 12);
    put32(chunk, quint32(data.size()));
    const QByteArray kind(type, 4);
    chunk += kind;
    chunk += data;
    put32(chunk, crc32(kind, data));
    if (out_.write(chunk) != chunk.size()) return fail(out_.errorString());
    return true;
}

bool ApngWriter::addFrame(const QImage& frame, int delayMs) {
    if (!error_.isEmpty()) return false;
    if (written_ >= frames_) return fail(QStringLiteral("more frames than announced"));
    if (frame.size() != size_) return fail(QStringLiteral("a frame of another size"));
    QImage now = frame.convertToFormat(QImage::Format_ARGB32);
    now.setDevicePixelRatio(1);
    QPoint at(0, 0);
    const QImage part = written_ == 0 ? now : changedPart(previous_, now, at);
    EncodedFrame encoded;
    QString why;
    if (!encode(part, encoded, why)) return fail(why);
    previous_ = now;

    if (written_ == 0) {
        if (out_.write(kSignature, 8) != 8) return fail(out_.errorString());
        QByteArray animation;
        put32(animation, quint32(frames_));
        put32(animation, quint32(plays_));
        if (!writeChunk("IHDR", encoded.header) || !writeChunk("acTL", animation)) return false;
    }
    QByteArray control;
    put32(control, sequence_++);
    put32(control, quint32(part.width()));
    put32(control, quint32(part.height()));
    put32(control, quint32(at.x()));
    put32(control, quint32(at.y()));
    put16(control, quint16(std::clamp(delayMs, 0, 65535)));
    put16(control, 1000);  // the delay is in milliseconds
    control.append('\0');  // dispose: none (the next frame draws on this one)
    // blend: the first frame replaces the (empty) canvas; a later one is drawn over the previous,
    // its transparent pixels leaving that as it was
    control.append(written_ == 0 ? '\0' : '\1');
    if (!writeChunk("fcTL", control)) return false;
    if (written_ == 0) {
        if (!writeChunk("IDAT", encoded.data)) return false;
    } else {
        QByteArray data;
        put32(data, sequence_++);
        data += encoded.data;
        if (!writeChunk("fdAT", data)) return false;
    }
    ++written_;
    return true;
}

bool ApngWriter::finish() {
    if (!error_.isEmpty()) return false;
    if (written_ != frames_)
        return fail(QStringLiteral("%1 frames announced, %2 written").arg(frames_).arg(written_));
    return writeChunk("IEND", {});
}
