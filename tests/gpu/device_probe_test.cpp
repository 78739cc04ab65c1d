// GPU tests skip with a clear message where no device is present (CI, developer machines).
#include <gtest/gtest.h>

#include "device_probe.h"

TEST(GpuDeviceProbe, ReportsDeviceOrReason) {
    const auto probe = dlm::cuda::probe_device();
    if (!probe.available) {
        EXPECT_FALSE(probe.message.empty()) << "an unavailable device must say why";
        GTEST_SKIP() << "GPU tests skipped: " << probe.message;
    }
    EXPECT_GT(probe.device_count, 0);
    EXPECT_FALSE(probe.name.empty());
    EXPECT_GE(probe.compute_major, 7) << "dlmscope builds for sm_80 and sm_90";
    EXPECT_GT(probe.total_memory, 1ull << 30);
}
