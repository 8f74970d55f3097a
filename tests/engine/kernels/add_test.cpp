// Element-wise add against the reference, out of place and in place: sizes that are not
// multiples of the 256-invocation workgroup, several columns with three different padded
// strides. Tolerance: exact (one correctly rounded float add per element on both sides).
#include <gtest/gtest.h>

#include "engine/ops/add_op.h"
#include "engine/reference/add_ref.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

struct AddCase {
  uint32_t n, ncols;
  bool in_place;
};

void PrintTo(const AddCase& c, std::ostream* os) {
  *os << "n=" << c.n << " ncols=" << c.ncols << (c.in_place ? " in place" : "");
}

class AddTest : public GpuTest, public ::testing::WithParamInterface<AddCase> {};

TEST_P(AddTest, MatchesTheReference) {
  const AddCase& p = GetParam();
  std::mt19937 rng(13 + p.n);
  const uint32_t a_stride = p.n + 2, b_stride = p.n + 6, y_stride = p.n + 1;
  const auto a = random_columns(p.n, p.ncols, a_stride, -4.0f, 4.0f, rng);
  const auto b = random_columns(p.n, p.ncols, b_stride, -4.0f, 4.0f, rng);
  const auto y0 = p.in_place ? random_columns(p.n, p.ncols, y_stride, -4.0f, 4.0f, rng)
                             : std::vector<float>(size_t(p.ncols) * y_stride, kPadding);
  Buffer ab = upload_floats(a, "a"), bb = upload_floats(b, "b"), yb = upload_floats(y0, "y");
  const Op op = p.in_place
                    ? add_in_place_op({TensorView::whole(yb), TensorView::whole(bb), p.n, p.ncols,
                                       y_stride, b_stride})
                    : add_op({TensorView::whole(ab), TensorView::whole(bb), TensorView::whole(yb),
                              p.n, p.ncols, a_stride, b_stride, y_stride});
  run_ops(std::span(&op, 1));
  const auto gpu = download_floats(yb, y0.size());

  std::vector<float> expected = y0;
  if (p.in_place) {
    ref::add(y0, y_stride, b, b_stride, expected, y_stride, p.n, p.ncols);
  } else {
    ref::add(a, a_stride, b, b_stride, expected, y_stride, p.n, p.ncols);
  }
  for (size_t at = 0; at < gpu.size(); ++at) {
    ASSERT_EQ(bits_of(gpu[at]), bits_of(expected[at])) << "element " << at;  // padding included
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, AddTest,
                         ::testing::Values(AddCase{1, 1, false}, AddCase{300, 3, false},
                                           AddCase{4096, 2, false}, AddCase{7, 4, true},
                                           AddCase{1000, 3, true}));

TEST(AddOps, InPlaceBindsYReadWriteAndOnlyBAsRead) {
  Buffer y(device(), 4 * 64, MemoryUse::Device, "y");
  Buffer b(device(), 4 * 64, MemoryUse::Device, "b");
  const Op op = add_in_place_op({TensorView::whole(y), TensorView::whole(b), 32, 2, 32, 32});
  ASSERT_EQ(op.bindings.size(), 3u);
  EXPECT_EQ(op.bindings[0].buffer, &b);
  EXPECT_EQ(op.bindings[1].buffer, &b);
  EXPECT_EQ(op.bindings[2].buffer, &y);
  EXPECT_EQ(op.bindings[2].access, Access::ReadWrite);
}

}  // namespace
}  // namespace pb::test
