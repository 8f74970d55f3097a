// Grids of more workgroups than maxComputeWorkGroupCount[0] guarantees (65535, the least Vulkan
// allows): the kernels number workgroups y * gl_NumWorkGroups.x + x, so the grid folds into rows.
// x is chosen so the rows cover the count with fewer than y workgroups to spare: with x pinned at
// 65535, 75968 LM-head workgroups (qwen3-8b, two rows each) became 131070, and the 55102 past
// the end each computed a whole row again, never written (Q4_K int8 DMMV 132 us where a read
// of its bytes takes 79, NVIDIA H200).
#pragma once

#include <array>
#include <cstdint>

namespace pb {

inline constexpr uint32_t kMaxGroupsX = 65535;

// `groups` >= 1.
inline std::array<uint32_t, 3> folded_grid(uint32_t groups) {
  const uint32_t y = static_cast<uint32_t>((uint64_t(groups) + kMaxGroupsX - 1) / kMaxGroupsX);
  return {static_cast<uint32_t>((uint64_t(groups) + y - 1) / y), y, 1};
}

}  // namespace pb
