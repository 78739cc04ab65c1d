#include <gtest/gtest.h>
#include <sys/stat.h>

#include <vector>

#include "support/model_test_support.h"
#include "model/safetensors_file.h"
#include "support/safetensors_writer.h"
#include "util/error.h"

namespace dlm {
namespace {

using test::expect_error;
using test::raw_safetensors;
using test::TempDir;
using test::write_file;

std::vector<float> read_back(const TensorView& t) {
    std::vector<float> out(static_cast<std::size_t>(t.numel()));
    convert_to_f32(t.dtype, t.data, out.data(), out.size());
    return out;
}

class ModelSafetensors : public ::testing::Test {
protected:
    // Writes `bytes` and expects opening it to fail with all of `parts` (and the file name).
    std::string expect_bad(const std::string& bytes, std::initializer_list<std::string> parts) {
        const auto file = dir / "bad.safetensors";
        write_file(file, bytes);
        std::string msg = expect_error([&] { SafetensorsFile f(file); }, parts);
        EXPECT_NE(msg.find(file.string()), std::string::npos) << "message does not name the file: " << msg;
        return msg;
    }
    TempDir dir;
};

TEST_F(ModelSafetensors, ReadsWhatTheWriterWrote) {
    std::map<std::string, test::TensorData> tensors;
    tensors["a.weight"] = {{2, 3}, {1, 2, 3, 4, 5, 6}, DType::F32};
    tensors["b.weight"] = {{4}, {0.1f, -0.2f, 0.3f, 1000.5f}, DType::BF16};
    tensors["c.bias"] = {{3}, {0.1f, -65504.0f, 1e-7f}, DType::F16};
    tensors["empty"] = {{0, 5}, {}, DType::F32};
    tensors["scalar"] = {{}, {42.0f}, DType::F32};
    const auto file = dir / "model.safetensors";
    test::write_safetensors(file, tensors, {{"format", "pt"}});

    SafetensorsFile f(file);
    EXPECT_EQ(f.path(), file);
    EXPECT_EQ(f.metadata().at("format"), "pt");
    ASSERT_EQ(f.tensors().size(), tensors.size());
    for (const auto& [name, t] : tensors) {
        const TensorView& v = f.tensors().at(name);
        EXPECT_EQ(v.name, name);
        EXPECT_EQ(v.dtype, t.dtype);
        EXPECT_EQ(v.shape, t.shape);
        EXPECT_EQ(v.file, file.string());
        EXPECT_EQ(v.nbytes, t.values.size() * dtype_size(t.dtype));
        EXPECT_EQ(read_back(v), test::rounded(t)) << name;
    }
    EXPECT_EQ(f.tensors().at("scalar").numel(), 1);
    EXPECT_EQ(f.tensors().at("empty").numel(), 0);
}

TEST_F(ModelSafetensors, HeaderOrderNeedNotBeDataOrderAndPaddingIsOptional) {
    // "z" comes first in the data but last in the header; header length 77 is not a multiple of 8,
    // so the data (and both tensors) start unaligned.
    std::string data;
    const float z[2] = {1.0f, 2.0f};
    const float a[1] = {-3.0f};
    data.append(reinterpret_cast<const char*>(z), 8);
    data.append(reinterpret_cast<const char*>(a), 4);
    const std::string header =
        R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[8,12]},"z":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    write_file(dir / "x.safetensors", raw_safetensors(header, data));
    SafetensorsFile f(dir / "x.safetensors");
    EXPECT_EQ(read_back(f.tensors().at("z")), (std::vector<float>{1.0f, 2.0f}));
    EXPECT_EQ(read_back(f.tensors().at("a")), (std::vector<float>{-3.0f}));
    EXPECT_TRUE(f.metadata().empty());
}

TEST_F(ModelSafetensors, AcceptsSpacePaddedHeaderAndEmptyFile) {
    write_file(dir / "e.safetensors", raw_safetensors("{}      ", ""));
    SafetensorsFile f(dir / "e.safetensors");
    EXPECT_TRUE(f.tensors().empty());
}

TEST_F(ModelSafetensors, MissingFile) {
    expect_error([&] { SafetensorsFile f(dir / "nope.safetensors"); }, {"nope.safetensors", "cannot open"});
}

TEST_F(ModelSafetensors, ShorterThanHeaderLength) {
    expect_bad("abc", {"3 bytes, shorter than the 8-byte header length"});
    expect_bad("", {"0 bytes"});
}

TEST_F(ModelSafetensors, HeaderLengthPastEnd) {
    std::string bytes = raw_safetensors("{}", "");
    bytes[0] = 100;  // claims a 100-byte header in a 10-byte file
    expect_bad(bytes, {"header length points past the end of the file (10 bytes)"});
    std::string huge(8, '\xff');
    expect_bad(huge + "{}", {"points past the end"});
}

TEST_F(ModelSafetensors, TextFileIsRefusedWithoutEchoingItsBytes) {
    // /etc/passwd linked as model.safetensors: the header length would be "root:x:0" read as a number.
    write_file(dir / "m.safetensors", "root:x:0:0:root:/root:/bin/bash\n");
    try {
        SafetensorsFile f(dir / "m.safetensors");
        FAIL() << "accepted a text file";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("not a safetensors file"), std::string::npos) << msg;
        EXPECT_EQ(msg.find("root"), std::string::npos) << msg;
        EXPECT_EQ(msg.find("3475222254926655346"), std::string::npos) << msg;
    }
}

TEST_F(ModelSafetensors, FifoIsRefusedInsteadOfBlocking) {
    const auto fifo = dir / "pipe.safetensors";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expect_error([&] { SafetensorsFile f(fifo); }, {"pipe.safetensors", "not a regular file"});
}

TEST_F(ModelSafetensors, DeeplyNestedHeaderIsRefused) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    expect_bad(raw_safetensors(R"({"__metadata__":{},"x":)" + deep + "}", ""), {"nested more than 64 levels"});
}

TEST_F(ModelSafetensors, ManyTensorsParseInLinearTime) {
    // 60k one-byte tensors: the header's duplicate check once re-scanned every entry per entry
    // (minutes); ctest's timeout is the guard, no timing is asserted here.
    const int n = 60000;
    std::string header = "{";
    for (int i = 0; i < n; ++i) {
        header += (i ? "," : "") + std::string("\"t") + std::to_string(i) + R"(":{"dtype":"BF16","shape":[1],"data_offsets":[)" +
                  std::to_string(2 * i) + "," + std::to_string(2 * i + 2) + "]}";
    }
    header += "}";
    write_file(dir / "many.safetensors", raw_safetensors(header, std::string(2 * n, '\0')));
    SafetensorsFile f(dir / "many.safetensors");
    EXPECT_EQ(f.tensors().size(), static_cast<std::size_t>(n));
}

TEST_F(ModelSafetensors, HeaderMustStartWithBrace) {
    expect_bad(raw_safetensors(" {}", ""), {"does not start with '{'"});
    expect_bad(raw_safetensors("[1,2]", ""), {"does not start with '{'"});
    expect_bad(raw_safetensors("", ""), {"does not start with '{'"});
}

TEST_F(ModelSafetensors, MalformedJson) {
    expect_bad(raw_safetensors(R"({"a": {"dtype": "F32",)", ""), {"header is not well-formed JSON"});
    // NUL padding is invalid; only spaces may pad the header.
    expect_bad(raw_safetensors(std::string("{}") + '\0' + '\0', ""), {"header is not well-formed JSON"});
}

TEST_F(ModelSafetensors, DuplicateTensorName) {
    const std::string header =
        R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})";
    expect_bad(raw_safetensors(header, std::string(8, '\0')), {"tensor \"a\" appears twice"});
}

TEST_F(ModelSafetensors, MetadataMustMapStringsToStrings) {
    const std::string t = R"("t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]})";
    expect_bad(raw_safetensors(R"({"__metadata__":{"format":1},)" + t + "}", std::string(4, '\0')),
               {"__metadata__ value for \"format\" must be a string"});
    expect_bad(raw_safetensors(R"({"__metadata__":"pt",)" + t + "}", std::string(4, '\0')),
               {"__metadata__ must be an object of strings"});
}

TEST_F(ModelSafetensors, UnsupportedAndUnknownDTypes) {
    expect_bad(raw_safetensors(R"({"ids":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", std::string(8, '\0')),
               {"tensor \"ids\"", "unsupported dtype I64", "F32, F16 and BF16"});
    expect_bad(raw_safetensors(R"({"q":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[0,4]}})", std::string(4, '\0')),
               {"tensor \"q\"", "unsupported dtype F8_E4M3"});
    expect_bad(raw_safetensors(R"({"w":{"dtype":"Q4_K","shape":[4],"data_offsets":[0,4]}})", std::string(4, '\0')),
               {"tensor \"w\"", "unknown dtype \"Q4_K\""});
    expect_bad(raw_safetensors(R"({"w":{"dtype":7,"shape":[1],"data_offsets":[0,4]}})", std::string(4, '\0')),
               {"tensor \"w\"", "non-string \"dtype\""});
}

TEST_F(ModelSafetensors, EntryMustBeObjectWithAllFields) {
    expect_bad(raw_safetensors(R"({"w":[1,2]})", ""), {"tensor \"w\"", "entry must be an object"});
    expect_bad(raw_safetensors(R"({"w":{"dtype":"F32","data_offsets":[0,4]}})", std::string(4, '\0')),
               {"tensor \"w\"", "\"shape\""});
    expect_bad(raw_safetensors(R"({"w":{"dtype":"F32","shape":[1]}})", std::string(4, '\0')),
               {"tensor \"w\"", "\"data_offsets\""});
}

TEST_F(ModelSafetensors, ShapeMustBeNonNegativeIntegers) {
    expect_bad(raw_safetensors(R"({"w":{"dtype":"F32","shape":[2,-1],"data_offsets":[0,4]}})", std::string(4, '\0')),
               {"tensor \"w\"", "must be a list of non-negative integers"});
    expect_bad(raw_safetensors(R"({"w":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", std::string(4, '\0')),
               {"tensor \"w\"", "must be a list of non-negative integers"});
    expect_bad(raw_safetensors(R"({"w":{"dtype":"F32","shape":["2"],"data_offsets":[0,4]}})", std::string(4, '\0')),
               {"tensor \"w\"", "must be a list of non-negative integers"});
    expect_bad(raw_safetensors(
                   R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,4]}})",
                   std::string(4, '\0')),
               {"tensor \"w\"", "too large"});
}

TEST_F(ModelSafetensors, DataOffsetsMustBeAPairInsideTheData) {
    const std::string data(8, '\0');
    expect_bad(raw_safetensors(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", data),
               {"tensor \"w\"", "must be [begin, end]"});
    expect_bad(raw_safetensors(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,-8]}})", data),
               {"tensor \"w\"", "must be [begin, end]"});
    expect_bad(raw_safetensors(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", data),
               {"tensor \"w\"", "begin after end"});
    expect_bad(raw_safetensors(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", data),
               {"tensor \"w\"", "run past the data section (8 bytes)"});
}

TEST_F(ModelSafetensors, ShapeTimesDTypeMustMatchByteLength) {
    expect_bad(raw_safetensors(R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,8]}})", std::string(8, '\0')),
               {"tensor \"w\"", "shape [2, 2] x F32 needs 16 bytes but data_offsets [0,8] span 8"});
    expect_bad(raw_safetensors(R"({"w":{"dtype":"BF16","shape":[3],"data_offsets":[0,8]}})", std::string(8, '\0')),
               {"tensor \"w\"", "needs 6 bytes"});
}

TEST_F(ModelSafetensors, OverlappingTensors) {
    const std::string header =
        R"({"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    expect_bad(raw_safetensors(header, std::string(12, '\0')), {"tensor \"b\" overlaps tensor \"a\""});
}

TEST_F(ModelSafetensors, GapsAndTrailingBytesAreRejected) {
    expect_bad(raw_safetensors(
                   R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                   std::string(12, '\0')),
               {"gap of 4 unused bytes before tensor \"b\""});
    expect_bad(raw_safetensors(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(6, '\0')),
               {"2 trailing bytes after the last tensor"});
}

}  // namespace
}  // namespace dlm
