// The read floor reads every word of its range exactly once: each workgroup's XOR matches the
// CPU's over the words that workgroup owns (exact), for ranges that are not a whole number of
// workgroups, workgroups of one and of several subgroups, and one load or many per invocation;
// the source buffer runs on past the view, and no word past the workgroups is written. Bad
// shapes are rejected with their name.
#include <gtest/gtest.h>

#include <random>

#include "engine/ops/read_floor_op.h"
#include "harness/errors.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

struct ReadFloorCase {
  uint32_t words;  // 16-byte words read
  ReadFloorShape shape;
};

void PrintTo(const ReadFloorCase& c, std::ostream* os) {
  *os << c.words << " words, threads " << c.shape.threads << " loads " << c.shape.loads;
}

class ReadFloorTest : public GpuTest, public ::testing::WithParamInterface<ReadFloorCase> {};

TEST_P(ReadFloorTest, EachWorkgroupFoldsExactlyItsWords) {
  const ReadFloorCase& p = GetParam();
  std::mt19937 rng(p.words + 7 * p.shape.loads);
  const uint32_t extra = 64;  // words past the view
  std::vector<uint32_t> data(4 * size_t(p.words + extra));
  for (uint32_t& w : data) w = rng();
  const Buffer src = upload_vector(data, "words");
  const uint32_t groups = read_floor_groups(uint64_t(p.words) * 16, p.shape);
  const Buffer folded = upload_vector(std::vector<uint32_t>(groups + 1, 0xDEADBEEFu), "folded");

  const Op op = read_floor_op(TensorView::whole(src).slice(0, uint64_t(p.words) * 16), TensorView::whole(folded),
                              p.shape);
  run_ops(std::span(&op, 1));
  const auto gpu = download_vector<uint32_t>(folded, groups + 1);

  const uint64_t per_group = uint64_t(p.shape.threads) * p.shape.loads;
  for (uint32_t g = 0; g < groups; ++g) {
    uint32_t expected = 0;
    for (uint64_t word = g * per_group; word < std::min<uint64_t>((g + 1) * per_group, p.words); ++word) {
      for (int i = 0; i < 4; ++i) expected ^= data[4 * word + i];
    }
    ASSERT_EQ(gpu[g], expected) << "workgroup " << g << " of " << groups;
  }
  EXPECT_EQ(gpu[groups], 0xDEADBEEFu) << "a word past the workgroups was written";
}

INSTANTIATE_TEST_SUITE_P(Shapes, ReadFloorTest,
                         ::testing::Values(ReadFloorCase{1, {32, 1}}, ReadFloorCase{1000, {32, 9}},
                                           ReadFloorCase{4096, {64, 4}}, ReadFloorCase{5000, {256, 8}},
                                           ReadFloorCase{777, {8, 16}}, ReadFloorCase{20000, {1024, 1}}));

TEST(ReadFloorOp, RejectsBadShapesByName) {
  Buffer src(device(), 16 * 64, MemoryUse::Device, "src");
  Buffer folded(device(), 4 * 64, MemoryUse::Device, "folded");
  const TensorView s = TensorView::whole(src), f = TensorView::whole(folded);
  auto message = [&](const TensorView& from, const TensorView& to, ReadFloorShape shape) {
    try {
      read_floor_op(from, to, shape);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(s.slice(0, 24), f, {32, 1}).find("whole number of 16-byte words"), std::string::npos);
  EXPECT_NE(message(s, f, {48 + 2, 1}).find("threads must be"), std::string::npos);
  EXPECT_NE(message(s, f, {32, 0}).find("loads must be"), std::string::npos);
  EXPECT_NE(message(s, f.slice(0, 4), {8, 1}).find("one word per workgroup (8)"), std::string::npos);
  EXPECT_EQ(message(s, f, {8, 1}), "no error");
}

}  // namespace
}  // namespace pb::test
