// Host time for every host-side measurement: std::chrono::steady_clock, which on Linux is
// CLOCK_MONOTONIC, the domain calibrated GPU timestamps are mapped to.
#pragma once

#include <chrono>
#include <cstdint>

namespace pb {

inline int64_t host_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Accumulates elapsed host time into `*sink_ns` over its lifetime.
class ScopedHostTimer {
 public:
  explicit ScopedHostTimer(int64_t* sink_ns) : sink_(sink_ns), start_(host_now_ns()) {}
  ~ScopedHostTimer() { *sink_ += host_now_ns() - start_; }
  ScopedHostTimer(const ScopedHostTimer&) = delete;
  ScopedHostTimer& operator=(const ScopedHostTimer&) = delete;

 private:
  int64_t* sink_;
  int64_t start_;
};

}  // namespace pb
