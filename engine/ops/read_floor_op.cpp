#include "engine/ops/read_floor_op.h"

#include <cstdint>
#include <string>

#include "harness/errors.h"
#include "harness/folded_grid.h"
#include "kernels/registry.h"

namespace pb {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw UsageError("read_floor: " + what);
}

}  // namespace

uint32_t read_floor_groups(uint64_t bytes, const ReadFloorShape& shape) {
  const uint64_t per_group = uint64_t(shape.threads) * shape.loads * 16;
  return static_cast<uint32_t>((bytes + per_group - 1) / per_group);
}

Op read_floor_op(const TensorView& src, const TensorView& folded, const ReadFloorShape& shape) {
  require(src.bytes > 0 && src.bytes % 16 == 0,
          "the range to read must be a whole number of 16-byte words, got " + std::to_string(src.bytes) + " bytes");
  require(src.bytes / 16 <= UINT32_MAX, "the range to read must be under 64 GiB");
  require(shape.threads >= 8 && shape.threads <= 1024 && shape.threads % 8 == 0,
          "threads must be a multiple of 8 from 8 to 1024, got " + std::to_string(shape.threads));
  require(shape.loads >= 1 && shape.loads <= 64, "loads must be 1 to 64, got " + std::to_string(shape.loads));
  const uint32_t groups = read_floor_groups(src.bytes, shape);
  require(folded.bytes >= uint64_t(groups) * 4, "the XOR output must hold one word per workgroup (" +
                                                    std::to_string(groups) + "), got " +
                                                    std::to_string(folded.bytes) + " bytes");
  Op op;
  op.kernel = &kernel("read_floor");
  op.spec.set(0, static_cast<int32_t>(shape.threads)).set(1, static_cast<int32_t>(shape.loads));
  op.bindings = {src.read(), folded.slice(0, uint64_t(groups) * 4).write()};
  op.push = PushConstants::of(ReadFloorPush{static_cast<uint32_t>(src.bytes / 16), groups});
  op.groups = folded_grid(groups);
  op.label = "read_floor";
  return op;
}

}  // namespace pb
