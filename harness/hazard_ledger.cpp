#include "harness/hazard_ledger.h"

#include "harness/buffer.h"

namespace pb {

bool HazardLedger::overlaps(const RangeMap& map, uint64_t buffer, Range range) {
  const auto it = map.find(buffer);
  if (it == map.end()) return false;
  for (const Range& r : it->second) {
    if (r.begin < range.end && range.begin < r.end) return true;
  }
  return false;
}

Hazards HazardLedger::check(std::span<const BufferRef> bindings) const {
  Hazards h;
  for (const BufferRef& b : bindings) {
    const uint64_t id = b.buffer->id();
    const Range range{b.offset, b.offset + b.size};
    if (reads(b.access) && overlaps(writes_, id, range)) h.read_after_write = true;
    if (writes(b.access)) {
      if (overlaps(writes_, id, range)) h.write_after_write = true;
      if (overlaps(reads_, id, range)) h.write_after_read = true;
    }
  }
  return h;
}

void HazardLedger::record(std::span<const BufferRef> bindings) {
  for (const BufferRef& b : bindings) {
    const Range range{b.offset, b.offset + b.size};
    if (reads(b.access)) reads_[b.buffer->id()].push_back(range);
    if (writes(b.access)) writes_[b.buffer->id()].push_back(range);
  }
}

void HazardLedger::after_memory_barrier() {
  writes_.clear();
  reads_.clear();
}

void HazardLedger::after_execution_barrier() { reads_.clear(); }

size_t HazardLedger::pending_writes() const {
  size_t n = 0;
  for (const auto& [id, ranges] : writes_) n += ranges.size();
  return n;
}

size_t HazardLedger::pending_reads() const {
  size_t n = 0;
  for (const auto& [id, ranges] : reads_) n += ranges.size();
  return n;
}

}  // namespace pb
