#pragma once
// A DecodeEngine that answers only when the test says so: every request is recorded, and the
// test emits the engine's signals (in any order, late or twice) to see what the GUI objects make
// of them. It stands in for the engine ONLY in tests of the app's own bookkeeping (tickets,
// backend switching, compare pairing), never where a test checks decode results.
#include <QVariantMap>
#include <QVector>

#include "decode_engine.h"

class FakeDecodeEngine : public DecodeEngine {
    Q_OBJECT
public:
    struct Load { quint64 ticket; QString dir, backend; bool switching; };
    struct Run { quint64 id; QString prompt; QVariantMap settings; bool chat; bool onOtherModel = false; };
    QVector<Load> loads;  // loads and backend switches, in order
    QVector<quint64> cancelledLoads;
    QVector<Run> runs;
    QVector<quint64> validations;
    QVariantMap lastValidated;  // the settings of the newest validation request
    int pauses = 0, resumes = 0, singleSteps = 0, cancels = 0;

    void loadModel(quint64 t, const QString& dir, const QString& backend) override { loads.push_back({t, dir, backend, false}); }
    void cancelLoad(quint64 t) override { cancelledLoads.push_back(t); }
    void switchBackend(quint64 t, const QString& backend) override { loads.push_back({t, QString(), backend, true}); }
    void startRun(quint64 id, const QString& p, const QVariantMap& s, bool chat) override { runs.push_back({id, p, s, chat}); }
    void startRunOnOtherModel(quint64 id, const QString& p, const QVariantMap& s, bool chat) override {
        runs.push_back({id, p, s, chat, true});
    }
    void pause() override { ++pauses; }
    void resume() override { ++resumes; }
    void stepOnce() override { ++singleSteps; }
    void cancelRun() override { ++cancels; }
    void validate(quint64 id, const QString&, const QVariantMap& s, bool) override {
        validations.push_back(id);
        lastValidated = s;
    }

    // A model as the real engine describes one.
    static ModelInfo model(const QString& name, const QString& backend = QStringLiteral("cpu")) {
        ModelInfo m;
        m.name = name;
        m.dir = "/models/" + name;
        m.family = "llada";
        m.summary = "llada · test";
        m.backendChoice = backend;
        m.backend = backend == QLatin1String("cuda") ? "cuda" : "cpu";
        return m;
    }
};
