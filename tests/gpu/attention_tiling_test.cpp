// DLM_CUDA_ATTENTION_TILING (kernels/attention.cuh): read once per process, no device needed. ctest
// runs this test under the ambient environment (unset: the default) and again with a known and an
// unknown value (tests/gpu/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cuda_backend.h"
#include "util/error.h"

TEST(AttentionTiling, IsTheEnvironmentsOrTheDefaultAndRefusesOthers) {
    const char* value = std::getenv("DLM_CUDA_ATTENTION_TILING");
    const std::string asked = value && *value ? value : "";
    if (asked.empty()) {
        EXPECT_STREQ(dlm::cuda_attention_tiling(), "narrow4");
    } else if (asked == "wide" || asked == "narrow" || asked == "narrow4") {
        EXPECT_EQ(dlm::cuda_attention_tiling(), asked);
    } else {
        try {
            dlm::cuda_attention_tiling();
            FAIL() << "an unknown tiling '" << asked << "' was accepted";
        } catch (const dlm::Error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("DLM_CUDA_ATTENTION_TILING"), std::string::npos) << what;
            EXPECT_NE(what.find("'" + asked + "'"), std::string::npos) << what;
            EXPECT_NE(what.find("'narrow4'"), std::string::npos) << what;
        }
    }
}
