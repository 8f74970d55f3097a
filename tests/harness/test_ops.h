// Ops over the test kernels (kernels/test/*.comp) for the harness tests.
#pragma once

#include "harness/buffer.h"
#include "harness/op.h"
#include "kernels/registry.h"

namespace pb::test {

struct AffinePush {
  uint32_t count;  // elements
  float add;
};
struct AccumulatePush {
  uint32_t count;  // elements
};

// y[y_at + i] = x[x_at + i] * scale + add for i < n (offsets in floats).
inline Op affine(const Buffer& x, const Buffer& y, uint32_t n, int scale, float add,
                 uint32_t x_at = 0, uint32_t y_at = 0) {
  Op op;
  op.kernel = &kernel("test_affine");
  op.spec.set(0, scale);
  op.bindings = {{&x, x_at * 4ull, n * 4ull, Access::Read}, {&y, y_at * 4ull, n * 4ull, Access::Write}};
  op.push = PushConstants::of(AffinePush{n, add});
  op.groups = {(n + 63) / 64, 1, 1};
  op.label = "affine";
  return op;
}

// y[i] += x[i] for i < n.
inline Op accumulate(const Buffer& x, const Buffer& y, uint32_t n) {
  Op op;
  op.kernel = &kernel("test_accumulate");
  op.bindings = {{&x, 0, n * 4ull, Access::Read}, {&y, 0, n * 4ull, Access::ReadWrite}};
  op.push = PushConstants::of(AccumulatePush{n});
  op.groups = {(n + 63) / 64, 1, 1};
  op.label = "accumulate";
  return op;
}

}  // namespace pb::test
