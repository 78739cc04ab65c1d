#pragma once
// COVER's closed-form diagonal correction (the COVER paper, §5.1 and Appendix B), for one
// attention head of one seed query row.
//
// The override forward runs attention once for every row with the seed columns read from the
// previous step's K/V (k'_i, v'_i). A seed row i must instead see its own column as computed
// from the masked input (k_i, v_i): only the diagonal score changes, by
//   delta_i = q_i·k_i/sqrt(d) - q_i·k'_i/sqrt(d),
// and with alpha_i the overridden diagonal weight and r_i = 1 + alpha_i·(exp(delta_i) - 1),
//   o_i = (o_i_ovr - alpha_i·v'_i + alpha_i·exp(delta_i)·v_i) / r_i      (Lemma B.1, eq. B.4).
// Lives in compute/ because the backend applies it inside every layer's attention (the next
// layer's input depends on it); it is pure arithmetic with no backend types.
#include <span>

namespace dlm {

struct DiagonalCorrectionInput {
    std::span<const float> out_override;  // o_i_ovr: the row's override attention output (head_dim)
    double lse_override = 0.0;            // log-sum-exp of the row's scaled override scores
    double score_override = 0.0;          // q_i·k'_i/sqrt(d): the diagonal score in the override run
    double score_fresh = 0.0;             // q_i·k_i/sqrt(d): the diagonal score against the fresh key
    std::span<const float> v_override;    // v'_i (head_dim)
    std::span<const float> v_fresh;       // v_i (head_dim)
};

struct DiagonalCorrection {
    double alpha = 0.0;      // the overridden diagonal weight
    double delta = 0.0;      // the diagonal score shift
    double r = 1.0;          // the row's renormaliser
    double lse = 0.0;        // log-sum-exp of the corrected row: lse_override + log(r)
    double weight_self = 0.0;  // the corrected diagonal weight alpha·exp(delta)/r
};

// Writes the corrected output o_i into `out` (head_dim floats; may alias out_override) and
// returns the scalars. Computed in double; exp(delta) is never formed on its own (alpha·exp(delta)
// = exp(score_fresh - lse_override)), so a large delta does not overflow.
DiagonalCorrection apply_diagonal_correction(const DiagonalCorrectionInput& in, std::span<float> out);

}  // namespace dlm
