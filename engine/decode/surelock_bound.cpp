#include "decode/surelock_bound.h"

#include <cmath>
#include <string>

#include "util/error.h"

namespace dlm {

namespace {

void require(bool ok, const std::string& what, double value) {
    if (!ok || std::isnan(value)) throw Error("SureLock bound: " + what + " (got " + std::to_string(value) + ")");
}

}  // namespace

double surelock_c_tail(double l_sm, double l_logit, double rho) {
    require(std::isfinite(l_sm) && l_sm > 0, "the log-softmax Lipschitz constant L_sm must be positive and finite", l_sm);
    require(std::isfinite(l_logit) && l_logit > 0, "the logit smoothness constant L must be positive and finite",
            l_logit);
    require(rho > 0 && rho < 1, "the contraction factor rho must lie in (0, 1)", rho);
    return l_sm * l_logit / (1.0 - std::sqrt(rho));
}

double surelock_epsilon_for(double delta, double c_tail) {
    require(std::isfinite(delta) && delta >= 0, "the target error delta must be >= 0 and finite", delta);
    require(std::isfinite(c_tail) && c_tail > 0, "C_tail must be positive and finite", c_tail);
    return (delta / c_tail) * (delta / c_tail);
}

double surelock_error_bound(double epsilon, double c_tail) {
    require(std::isfinite(epsilon) && epsilon >= 0, "epsilon must be >= 0 and finite", epsilon);
    require(std::isfinite(c_tail) && c_tail > 0, "C_tail must be positive and finite", c_tail);
    return c_tail * std::sqrt(epsilon);
}

}  // namespace dlm
