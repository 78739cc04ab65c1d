#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "support/model_test_support.h"
#include "model/safetensors_file.h"
#include "model/safetensors_writer.h"

namespace dlm {
namespace {

using test::expect_error;
using test::TempDir;

std::span<const std::byte> bytes_of(const std::vector<float>& v) {
    return std::as_bytes(std::span<const float>(v));
}

TEST(ModelSafetensorsWriter, StreamedPiecesReadBackAsTensors) {
    TempDir dir;
    const auto file = dir / "m.safetensors";
    // Data pieces that cut across tensor boundaries.
    const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {-1, 0.5f};
    std::vector<float> all = a;
    all.insert(all.end(), b.begin(), b.end());
    {
        SafetensorsWriter w(file, {{"a", DType::F32, {2, 3}}, {"b", DType::F32, {2}}}, {{"format", "pt"}});
        EXPECT_EQ(w.data_bytes(), 32u);
        w.write(bytes_of(std::vector<float>(all.begin(), all.begin() + 5)));
        w.write(bytes_of(std::vector<float>(all.begin() + 5, all.end())));
        w.finish();
    }
    SafetensorsFile f(file);
    ASSERT_EQ(f.tensors().size(), 2u);
    const TensorView& ta = f.tensors().at("a");
    EXPECT_EQ(ta.shape, (std::vector<int64_t>{2, 3}));
    std::vector<float> ra(6), rb(2);
    std::memcpy(ra.data(), ta.data, 24);
    std::memcpy(rb.data(), f.tensors().at("b").data, 8);
    EXPECT_EQ(ra, a);
    EXPECT_EQ(rb, b);
    EXPECT_EQ(f.metadata().at("format"), "pt");
}

TEST(ModelSafetensorsWriter, PreambleIsAlignedAndKeepsTheOrderGiven) {
    const std::string p = safetensors_preamble({{"z", DType::BF16, {3}}, {"a", DType::F32, {1}}});
    EXPECT_EQ((p.size() - 8) % 8, 0u);
    uint64_t len = 0;
    std::memcpy(&len, p.data(), 8);
    EXPECT_EQ(len, p.size() - 8);
    EXPECT_LT(p.find("\"z\""), p.find("\"a\""));
    EXPECT_NE(p.find("\"data_offsets\":[0,6]"), std::string::npos) << p;
    EXPECT_NE(p.find("\"data_offsets\":[6,10]"), std::string::npos) << p;
}

TEST(ModelSafetensorsWriter, RefusesWrongByteCountsAndBadEntries) {
    TempDir dir;
    const auto file = dir / "m.safetensors";
    {
        SafetensorsWriter w(file, {{"a", DType::F32, {2}}});
        expect_error([&] { w.write(bytes_of({1, 2, 3})); }, {"more bytes"});
        w.write(bytes_of({1}));
        expect_error([&] { w.finish(); }, {"got 4 of 8"});
    }
    // An unfinished writer leaves no file behind that could pass for a shard.
    EXPECT_FALSE(std::filesystem::exists(file));
    expect_error([] { safetensors_preamble({{"a", DType::F32, {1}}, {"a", DType::F32, {1}}}); }, {"twice"});
    expect_error([] { safetensors_preamble({{"a", DType::F32, {-1}}}); }, {"negative"});
}

}  // namespace
}  // namespace dlm
