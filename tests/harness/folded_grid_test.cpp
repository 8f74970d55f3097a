// Folded grids cover every workgroup, stay inside the x limit every Vulkan device has, and pad
// by fewer workgroups than they have rows (the LM-head case: 75968 workgroups padded to 131070
// before; each padding workgroup of a DMMV recomputes a row).
#include <gtest/gtest.h>

#include "harness/folded_grid.h"

namespace pb {
namespace {

TEST(FoldedGrid, CoversTheCountWithLessThanARowOfPadding) {
  for (const uint32_t groups : {1u, 2u, 65534u, 65535u, 65536u, 75968u, 131070u, 131071u, 200000u, 4000000u}) {
    const auto g = folded_grid(groups);
    const uint64_t total = uint64_t(g[0]) * g[1] * g[2];
    EXPECT_LE(g[0], kMaxGroupsX) << groups;
    EXPECT_EQ(g[2], 1u) << groups;
    EXPECT_GE(total, groups) << groups;
    EXPECT_LT(total - groups, g[1]) << groups;
  }
  EXPECT_EQ(folded_grid(75968), (std::array<uint32_t, 3>{37984, 2, 1}));
  EXPECT_EQ(folded_grid(65535), (std::array<uint32_t, 3>{65535, 1, 1}));
}

}  // namespace
}  // namespace pb
