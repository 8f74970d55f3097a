// Timestamp arithmetic: values are masked to the queue's timestampValidBits and differences are
// taken modulo 2^bits, so a counter that wraps between two samples still gives the right span.
#pragma once

#include <cstdint>

namespace pb {

inline uint64_t timestamp_mask(uint32_t valid_bits) {
  return valid_bits >= 64 ? ~0ull : ((1ull << valid_bits) - 1);
}

// Ticks from `earlier` to `later`, both raw query values.
inline uint64_t timestamp_ticks_between(uint64_t earlier, uint64_t later, uint32_t valid_bits) {
  const uint64_t mask = timestamp_mask(valid_bits);
  return ((later & mask) - (earlier & mask)) & mask;
}

inline double timestamp_ns_between(uint64_t earlier, uint64_t later, uint32_t valid_bits,
                                   double period_ns) {
  return static_cast<double>(timestamp_ticks_between(earlier, later, valid_bits)) * period_ns;
}

}  // namespace pb
