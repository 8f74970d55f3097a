// Which barriers the recorder emits between dispatches (DESIGN.md, the `barriers` axis).
#pragma once

#include <volk.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "harness/counters.h"
#include "harness/hazard_ledger.h"
#include "harness/op.h"

namespace pb {

class Device;

enum class BarrierPolicy {
  Global,  // a global memory barrier after every dispatch
  Buffer,  // buffer-range barriers after every dispatch for exactly what it wrote (and, with
           // no access masks, for what it read, so later writes wait for the reads)
  Ledger,  // a barrier before a dispatch only for a real RAW/WAW/WAR hazard
  None,    // no barriers: unsafe, measures the floor; such runs never gate
};

std::string_view barrier_policy_name(BarrierPolicy policy);
std::optional<BarrierPolicy> parse_barrier_policy(std::string_view name);

// Emits the policy's barriers around each dispatch and counts them. The ledger state persists
// across command buffers and submits: pipeline barriers order work in submission order, across
// command buffer boundaries, so a hazard between two submits is caught the same way.
class BarrierEmitter {
 public:
  BarrierEmitter(Device& device, BarrierPolicy policy) : device_(device), policy_(policy) {}

  void before_dispatch(VkCommandBuffer cb, const Op& op, Counters& counters);
  void after_dispatch(VkCommandBuffer cb, const Op& op, Counters& counters);
  BarrierPolicy policy() const { return policy_; }
  const HazardLedger& ledger() const { return ledger_; }

 private:
  void memory_barrier(VkCommandBuffer cb, Counters& counters);
  void execution_barrier(VkCommandBuffer cb, Counters& counters);

  Device& device_;
  BarrierPolicy policy_;
  HazardLedger ledger_;
};

}  // namespace pb
