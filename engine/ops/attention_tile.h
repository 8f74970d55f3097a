// How the flash-attention kernels (kernels/include/attn_body.glsl) tile a problem: query rows
// per workgroup, keys per shared-memory tile and threads per score, chosen so the kernel's
// shared memory fits a budget (kAttentionSharedBudget unless the caller knows the device
// allows more).
#pragma once

#include <cstdint>

#include "harness/pipeline.h"

namespace pb {

// The smallest maxComputeSharedMemorySize among the targets (lavapipe 32 KiB, NVIDIA 48 KiB,
// RDNA 64 KiB): tiles sized for it run everywhere.
inline constexpr uint64_t kAttentionSharedBudget = 32768;

struct AttentionTile {
  uint32_t heads = 1;     // q heads per workgroup, a divisor of the GQA ratio
  uint32_t tokens = 1;    // query tokens per workgroup (1 in decode)
  uint32_t keys = 32;     // key positions per tile
  uint32_t parts = 1;     // threads summing one score's dot product (power of two)
  uint32_t threads = 128; // workgroup size, a power of two

  uint32_t rows() const { return heads * tokens; }
};

// Shared memory of attn_body.glsl for this tile, in bytes (mirrors the list there).
uint64_t attention_shared_bytes(const AttentionTile& tile, uint32_t head_dim);

// Decode: all q heads of a GQA group when they fit, else the largest divisor that does; then
// the largest key tile. `max_heads` (0: the whole group) and `max_keys` (0: 64) cap the two,
// for the tuning sweeps.
AttentionTile decode_tile(uint32_t gqa_ratio, uint32_t head_dim, uint32_t threads,
                          uint64_t shared_budget = kAttentionSharedBudget, uint32_t max_heads = 0,
                          uint32_t max_keys = 0);

// Prefill: about `rows` query rows (HEADS of a GQA group times tokens), fewer when the head
// dim leaves no room; key tiles of at least 16 before the rows shrink.
AttentionTile prefill_tile(uint32_t gqa_ratio, uint32_t head_dim, uint32_t threads, uint32_t rows,
                           uint64_t shared_budget = kAttentionSharedBudget);

// Specialization constants 0..5 of attn_body.glsl.
SpecConstants attention_spec(const AttentionTile& tile, uint32_t head_dim);

}  // namespace pb
