#include "synthetic_run.h"

#include <cmath>
#include <string>

SyntheticRun makeSyntheticRun(int positions, int steps, bool withLocks) {
    SyntheticRun r;
    auto h = std::make_shared<dlm::TraceHeader>();
    h->model = "synthetic";
    h->family = "llada";
    h->prompt = "What is 2 + 3?";
    h->prompt_ids = {1, 2, 3};
    h->prompt_pieces = {"<|user|>", "What", " is"};
    h->mask_id = 99;
    h->gen_length = positions;
    h->block_length = positions / 2;
    h->steps = steps;
    // As a real header: the strategy among the settings, with the parameters it read.
    h->strategy = withLocks ? "surelock" : "baseline";
    h->settings = {{"steps", std::to_string(steps)}, {"strategy", h->strategy}};
    if (withLocks) h->settings["surelock.epsilon"] = "5e-4";
    r.header = h;

    std::vector<dlm::PositionTrace> cur(static_cast<size_t>(positions));
    for (int i = 0; i < positions; ++i) {
        cur[size_t(i)].pos = i;
        cur[size_t(i)].token = 99;
    }
    const int perStep = std::max(1, (positions + steps - 1) / steps);
    int revealed = 0;
    double cumWall = 0;
    for (int s = 0; s < steps; ++s) {
        auto st = std::make_shared<dlm::StepTrace>();
        st->step = s;
        st->strategy = h->strategy;
        st->block = s * 2 / std::max(1, steps);
        st->wall_ms = 2.0 + (s % 3);
        cumWall += st->wall_ms;
        int newly = 0, computed = 0;
        for (auto& p : cur) {
            p.event = dlm::PosEvent::None;
            if (p.state == dlm::PosState::Active && withLocks && s % 4 == 3 && p.pos % 3 == 0) {
                p.state = dlm::PosState::Locked;
                p.event = dlm::PosEvent::Lock;
            }
        }
        // Reveal the next positions in a scrambled (but bijective) order.
        for (int k = 0; k < perStep && revealed < positions; ++k, ++revealed) {
            const int pos = int((long long)revealed * 7 % positions);
            auto& p = cur[size_t(pos)];
            if (p.state != dlm::PosState::Masked) continue;
            p.state = dlm::PosState::Active;
            p.event = dlm::PosEvent::Unmask;
            p.token = 100 + pos;
            p.text = pos % 11 == 0 ? "\n" : (pos % 13 == 0 ? "<|eot|>" : " w" + std::to_string(pos));
            ++newly;
        }
        // One remask every 5 steps (a revision strategy's doing), re-revealed later.
        if (s % 5 == 4) {
            for (auto& p : cur)
                if (p.state == dlm::PosState::Active && p.event == dlm::PosEvent::None) {
                    p.state = dlm::PosState::Masked;
                    p.event = dlm::PosEvent::Remask;
                    p.token = 99;
                    st->counters["remasks"] += 1;  // as the engine counts it
                    --revealed;  // it will be revealed again later (keeps the counts honest)
                    break;
                }
        }
        for (auto& p : cur) {
            const bool rowComputed = p.state != dlm::PosState::Locked;
            computed += rowComputed;
            p.confidence = rowComputed ? float(0.3 + 0.6 * ((p.pos * 37) % 100) / 100.0 + 0.001 * s) : NAN;
            p.entropy = rowComputed ? float(2.0 * (1.0 - p.confidence)) : NAN;
            p.kl = rowComputed && s > 0 ? float(std::pow(10.0, -1.0 - 6.0 * s / steps)) : NAN;
            // As the engine: a row that is not computed has no candidates at that step.
            if (rowComputed)
                p.top = {{p.token == 99 ? 100 + p.pos : p.token, p.confidence, p.text.empty() ? " guess" : p.text},
                         {7, 0.1f, " alt"}};
            else
                p.top.clear();
        }
        // Masked positions revisited: any position still masked after the last step? make sure
        // the final step reveals everything.
        if (s == steps - 1)
            for (auto& p : cur)
                if (p.state == dlm::PosState::Masked) {
                    p.state = dlm::PosState::Active;
                    p.event = dlm::PosEvent::FlipFlop;
                    p.token = 100 + p.pos;
                    st->counters["flipflops"] += 1;
                    p.text = " w" + std::to_string(p.pos);
                    ++newly;
                }
        st->rows_computed = computed;
        st->rows_total = positions;
        st->paper_flops = 1e6 * computed;
        st->paper_flops_dense = 1e6 * positions;
        st->newly_unmasked = newly;
        st->positions = cur;
        r.steps.push_back(st);
    }
    auto sum = std::make_shared<dlm::TraceSummary>();
    sum->steps = steps;
    sum->text = "synthetic answer";
    sum->wall_s = cumWall / 1000.0;
    r.summary = sum;
    return r;
}
