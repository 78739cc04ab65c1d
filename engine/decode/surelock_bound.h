#pragma once
// Theorem 1 of the SureLock paper (§2.3): locking position i when its step KL
// D_{t*} <= epsilon bounds the terminal log-probability error of that position by
//   delta = C_tail * sqrt(epsilon),   C_tail = L_sm * L / (1 - sqrt(rho)),
// so a target error delta turns into the closed-form threshold epsilon(delta) = delta^2 / C_tail^2.
// The paper uses the bound as a design rationale, not as a calibrated predictor: C_tail depends on
// operator-norm constants (Appendix D) that are loose for real models.
namespace dlm {

// C_tail from the constants of assumptions A2-A4: l_sm (log-softmax Lipschitz constant, A4),
// l_logit (one-step logit smoothness L, A3) and rho in (0, 1) (geometric KL contraction, A2).
// Throws dlm::Error naming the constant when one is out of range.
double surelock_c_tail(double l_sm, double l_logit, double rho);

// epsilon(delta) = delta^2 / C_tail^2. delta >= 0, c_tail > 0 (dlm::Error otherwise).
double surelock_epsilon_for(double delta, double c_tail);

// The terminal error bound delta = C_tail * sqrt(epsilon) the threshold guarantees.
double surelock_error_bound(double epsilon, double c_tail);

}  // namespace dlm
