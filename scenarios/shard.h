// Deterministic sharding of a sweep (`--shard K/N`): run i of the expansion belongs to shard
// (i mod N) + 1, so any scheduler (a Slurm array, a CI matrix, one process per GPU) can run
// the shards and `merge` joins their files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace pb {

struct Shard {
  uint32_t k = 1;  // 1-based
  uint32_t n = 1;
  bool contains(size_t index) const { return index % n == k - 1; }
  std::string name() const { return std::to_string(k) + "/" + std::to_string(n); }
};

// Throws UsageError for anything but K/N with 1 <= K <= N.
Shard parse_shard(const std::string& text);

}  // namespace pb
