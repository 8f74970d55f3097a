// Tracks unsynchronized buffer accesses so that a barrier is emitted only for a real hazard:
// read-after-write, write-after-write, or write-after-read, on overlapping byte ranges.
//
// Writes stay pending until a memory barrier makes them visible; reads stay pending until any
// barrier (an execution dependency is enough to order a later write after them).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "harness/op.h"

namespace pb {

struct Hazards {
  bool read_after_write = false;
  bool write_after_write = false;
  bool write_after_read = false;

  bool any() const { return read_after_write || write_after_write || write_after_read; }
  // RAW and WAW need written data made visible; WAR needs only execution order.
  bool needs_memory_barrier() const { return read_after_write || write_after_write; }
};

class HazardLedger {
 public:
  // What a dispatch with these bindings would conflict with, given what is pending.
  Hazards check(std::span<const BufferRef> bindings) const;
  // The dispatch's reads and writes become pending.
  void record(std::span<const BufferRef> bindings);
  void after_memory_barrier();     // clears pending writes and reads
  void after_execution_barrier();  // clears pending reads
  void clear() { after_memory_barrier(); }

  size_t pending_writes() const;
  size_t pending_reads() const;

 private:
  struct Range {
    uint64_t begin, end;  // bytes, half-open
  };
  using RangeMap = std::unordered_map<uint64_t, std::vector<Range>>;  // buffer id -> ranges
  static bool overlaps(const RangeMap& map, uint64_t buffer, Range range);
  RangeMap writes_;
  RangeMap reads_;
};

}  // namespace pb
