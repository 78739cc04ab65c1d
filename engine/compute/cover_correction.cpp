#include "compute/cover_correction.h"

#include <cmath>
#include <string>

#include "util/error.h"

namespace dlm {

DiagonalCorrection apply_diagonal_correction(const DiagonalCorrectionInput& in, std::span<float> out) {
    const std::size_t hd = in.out_override.size();
    if (in.v_override.size() != hd || in.v_fresh.size() != hd || out.size() != hd)
        throw Error("diagonal correction: head vectors of different sizes (" + std::to_string(hd) + ", " +
                    std::to_string(in.v_override.size()) + ", " + std::to_string(in.v_fresh.size()) + ", " +
                    std::to_string(out.size()) + ")");
    DiagonalCorrection c;
    c.alpha = std::exp(in.score_override - in.lse_override);
    c.delta = in.score_fresh - in.score_override;
    const double alpha_e = std::exp(in.score_fresh - in.lse_override);  // alpha·exp(delta)
    c.r = 1.0 - c.alpha + alpha_e;
    c.lse = in.lse_override + std::log(c.r);
    c.weight_self = alpha_e / c.r;
    const double inv_r = 1.0 / c.r;
    for (std::size_t j = 0; j < hd; ++j) {
        const double o = static_cast<double>(in.out_override[j]) - c.alpha * in.v_override[j] + alpha_e * in.v_fresh[j];
        out[j] = static_cast<float>(o * inv_r);
    }
    return c;
}

}  // namespace dlm
