// The attention op builders without running them: op counts, scratch sizes, tiles that fit
// the shared-memory budget, and the inputs they refuse.
#include <gtest/gtest.h>

#include "engine/ops/attention_decode_op.h"
#include "engine/ops/attention_prefill_op.h"
#include "engine/ops/attention_tile.h"
#include "harness/errors.h"
#include "tests/engine/kernels/attention_fixture.h"

namespace pb::test {
namespace {

struct Fixture {
  AttentionShape shape = attention_shape(8, 2, 128, 1024, 0);
  Buffer k{device(), shape.cache_bytes(), MemoryUse::Device, "k"};
  Buffer v{device(), shape.cache_bytes(), MemoryUse::Device, "v"};
  Buffer q{device(), 8 * 128 * 4 * 64, MemoryUse::Device, "q"};
  Buffer o{device(), 8 * 128 * 4 * 64, MemoryUse::Device, "o"};
  Buffer scratch{device(), attention_decode_scratch_bytes(8, 128, 1024, 64), MemoryUse::Device, "scratch"};

  AttentionDecodeProblem decode(uint32_t pos) const {
    return {shape, {TensorView::whole(k), TensorView::whole(v)}, TensorView::whole(q), TensorView::whole(o),
            TensorView::whole(scratch), pos};
  }
};

const BindingLimits kLimits{16, 1ull << 30};

TEST(AttentionOps, DecodeSplitsOnlyPastOneSplit) {
  Fixture f;
  AttentionDecodeTuning fixed;
  fixed.split = 256;
  fixed.target_workgroups = 0;
  EXPECT_EQ(attention_decode_ops(f.decode(0), kLimits, fixed).size(), 1u);
  EXPECT_EQ(attention_decode_ops(f.decode(255), kLimits, fixed).size(), 1u);
  const auto two = attention_decode_ops(f.decode(256), kLimits, fixed);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].groups[1], 2u);
  EXPECT_EQ(two[1].bindings[0].buffer, &f.scratch);
  EXPECT_EQ(two[0].bindings[3].buffer, &f.scratch);
  f.shape.window = 256;  // a window caps the visible keys, so the splits
  EXPECT_EQ(attention_decode_ops(f.decode(1000), kLimits, fixed).size(), 1u);
}

// Up to one_split_max keys the context is one split whatever the smallest split: a merge
// costs more than the keys a second split would take.
TEST(AttentionOps, ShortContextsRunAsOneSplit) {
  Fixture f;
  AttentionDecodeTuning tuning;
  tuning.split = 64;
  tuning.one_split_max = 128;
  EXPECT_EQ(attention_decode_ops(f.decode(127), kLimits, tuning).size(), 1u);  // 128 keys
  EXPECT_EQ(attention_decode_split(f.shape, 127, tuning), 128u);
  const auto two = attention_decode_ops(f.decode(128), kLimits, tuning);       // 129 keys: 3 splits
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].groups[1], 3u);
  tuning.one_split_max = 0;
  EXPECT_EQ(attention_decode_ops(f.decode(127), kLimits, tuning).size(), 2u);
}

TEST(AttentionOps, DecodeSplitGrowsToTheWorkgroupTarget) {
  Fixture f;  // 8 q heads in 2 GQA groups: 2 workgroups per split
  AttentionDecodeTuning tuning;
  tuning.split = 64;
  tuning.target_workgroups = 8;
  tuning.min_workgroups = 0;  // whole GQA groups: the heads rule has a test of its own
  EXPECT_EQ(attention_decode_split(f.shape, 63, tuning), 64u);    // 1 split
  EXPECT_EQ(attention_decode_split(f.shape, 255, tuning), 64u);   // 4 splits, 8 workgroups
  EXPECT_EQ(attention_decode_split(f.shape, 256, tuning), 128u);  // 5 would be 10 workgroups
  EXPECT_EQ(attention_decode_split(f.shape, 1023, tuning), 256u);
  tuning.max_split = 128;
  EXPECT_EQ(attention_decode_split(f.shape, 1023, tuning), 128u);
  const auto ops = attention_decode_ops(f.decode(1023), kLimits, tuning);  // scratch sized at 64 fits
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].groups[1], 8u);
}

// With the RoPE inside the attention, contexts up to rope_max_keys aim the split at
// rope_max_workgroups, so the dispatch keeps the RoPE in; longer ones aim at target_workgroups
// (and then run the RoPE as its own dispatch).
TEST(AttentionOps, DecodeSplitKeepsTheRopeInUpToRopeMaxKeys) {
  Fixture f;  // 8 q heads in 2 GQA groups of 4
  AttentionDecodeTuning tuning;
  tuning.split = 64;
  tuning.one_split_max = 0;
  tuning.heads = 4;  // whole groups: 2 workgroups per split
  tuning.target_workgroups = 8;
  tuning.rope_max_workgroups = 4;
  tuning.rope_max_keys = 512;
  EXPECT_EQ(attention_decode_split(f.shape, 255, tuning, false), 64u);  // 4 splits, 8 workgroups
  EXPECT_EQ(attention_decode_split(f.shape, 255, tuning, true), 128u);  // 2 splits, 4 workgroups
  EXPECT_EQ(attention_decode_split(f.shape, 511, tuning, true), 256u);   // 512 keys: still in
  EXPECT_EQ(attention_decode_split(f.shape, 1023, tuning, true), 256u);  // past it: 4 splits, 8 workgroups
  EXPECT_EQ(attention_decode_split(f.shape, 1023, tuning, false), 256u);
  tuning.rope_max_keys = 1024;
  EXPECT_EQ(attention_decode_split(f.shape, 1023, tuning, true), 512u);  // 2 splits, 4 workgroups
  tuning.rope_max_keys = 0;  // the plain target everywhere
  EXPECT_EQ(attention_decode_split(f.shape, 255, tuning, true), 64u);
}

// Fewer q heads per workgroup while the dispatch has fewer than min_workgroups workgroups:
// a short context's attention is latency, and more workgroups share it.
TEST(AttentionOps, DecodeHeadsShrinkWhileWorkgroupsAreFew) {
  Fixture f;  // 8 q heads in 2 GQA groups of 4
  AttentionDecodeTuning tuning;
  tuning.split = 64;
  tuning.target_workgroups = 0;
  tuning.one_split_max = 0;
  tuning.min_workgroups = 8;
  const auto groups = [&](uint32_t pos) {
    const auto ops = attention_decode_ops(f.decode(pos), kLimits, tuning);
    return std::pair{ops[0].groups[0], ops[0].groups[1]};
  };
  EXPECT_EQ(groups(63), std::pair(8u, 1u));   // 1 split: whole groups 2, pairs 4, single heads 8
  EXPECT_EQ(groups(127), std::pair(4u, 2u));  // 2 splits: pairs reach 8
  EXPECT_EQ(groups(255), std::pair(2u, 4u));  // 4 splits: whole groups reach 8
  tuning.min_workgroups = 1000;               // never reached: one head per workgroup
  EXPECT_EQ(groups(255), std::pair(8u, 4u));
  tuning.heads = 3;                           // set: the largest divisor of the group within it
  EXPECT_EQ(groups(63), std::pair(4u, 1u));
  tuning.heads = 4;
  EXPECT_EQ(groups(63), std::pair(2u, 1u));
  tuning.heads = 0;                           // the split still grows past the workgroup target
  tuning.min_workgroups = 8;
  tuning.target_workgroups = 8;
  EXPECT_EQ(attention_decode_split(f.shape, 1023, tuning), 256u);  // whole groups: 2 x 4 splits
}

TEST(AttentionOps, ScratchCoversTheLongestContext) {
  EXPECT_EQ(attention_decode_scratch_bytes(8, 128, 256, 256), 0u);
  EXPECT_EQ(attention_decode_scratch_bytes(8, 128, 1000, 256), 4u * 8 * (128 + 2) * 4);
}

TEST(AttentionOps, TilesFitTheSharedBudget) {
  for (uint32_t d : {64u, 128u, 256u, 512u}) {
    for (uint32_t ratio : {1u, 2u, 3u, 4u, 6u, 8u, 16u}) {
      const AttentionTile dt = decode_tile(ratio, d, 128);
      EXPECT_LE(attention_shared_bytes(dt, d), kAttentionSharedBudget);
      EXPECT_EQ(ratio % dt.heads, 0u);
      EXPECT_EQ(dt.tokens, 1u);
      const AttentionTile pt = prefill_tile(ratio, d, 128, 16);
      EXPECT_LE(attention_shared_bytes(pt, d), kAttentionSharedBudget);
      EXPECT_EQ(ratio % pt.heads, 0u);
    }
  }
  EXPECT_EQ(decode_tile(4, 128, 128).heads, 4u);  // a whole GQA group per workgroup
}

TEST(AttentionOps, RefusesWhatTheKernelsCannotDo) {
  Fixture f;
  f.shape.head_dim = 96;
  EXPECT_THROW(attention_decode_ops(f.decode(0), kLimits), UsageError);
  f.shape = attention_shape(6, 4, 128, 1024, 0);
  EXPECT_THROW(attention_decode_ops(f.decode(0), kLimits), UsageError);
  Fixture g;
  EXPECT_THROW(attention_decode_ops(g.decode(1024), kLimits), UsageError);  // pos past the cache
  AttentionDecodeProblem misaligned = g.decode(3);
  misaligned.cache.k = misaligned.cache.k.slice(8, misaligned.cache.k.bytes - 8);
  EXPECT_THROW(attention_decode_ops(misaligned, kLimits), UsageError);
  const AttentionPrefillProblem too_long{g.shape, {TensorView::whole(g.k), TensorView::whole(g.v)},
                                         TensorView::whole(g.q), TensorView::whole(g.o), 1000, 64,
                                         1024, 1024};
  EXPECT_THROW(attention_prefill_ops(too_long, kLimits), UsageError);
}

}  // namespace
}  // namespace pb::test
