// MOE_ACC_NORM_EPILOGUE (moe_dmmv_intdot_main.glsl): decode's experts' down projection that also
// does what moe_acc_norm.comp did in a dispatch of its own after it, so a MoE layer's decode
// takes one dispatch and one barrier less. What the row block's last workgroup writes, for its
// 32 elements:
//   x              x + sum_j route_w[j] * out[j] (out: the K experts' down rows, binding 3), the
//                  sum in choice order as moe_acc.comp adds it
//   quants, scales x * w quantized in blocks of 32 (w: the next RMSNorm's weight), as
//                  moe_acc_norm.comp does; the readers divide by the RMS
//                  (dmmv_intdot_input_rms.glsl)
//   block_squares  sum of x^2 over the block
//
// A block's sum needs all K experts' rows of it, which K x 32 / (rows a workgroup) workgroups
// compute. Each workgroup writes its rows, then counts its arrival at the block (binding 13);
// the one that arrives last, told by the count, reads the block's K rows back and writes the
// above, then sets the count back to zero for the next dispatch (the binding starts zeroed). No
// workgroup waits for another (dmmv_int8mat_body.glsl's K split and argmax_slices.comp do the
// same), and the sum is the same whichever arrives last. One token, one binding of all experts
// (no slices), rows a multiple of 32, a workgroup's rows (ROWS x its row teams) dividing 32 and
// a workgroup of whole teams of 32 (engine/ops/moe_down_acc_norm_op.cpp checks).
#ifndef PB_MOE_DMMV_INTDOT_ACC_NORM_GLSL
#define PB_MOE_DMMV_INTDOT_ACC_NORM_GLSL

#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

layout(binding = 7) readonly buffer RouteW { float route_w[]; };  // [K]
layout(binding = 8) buffer X { float x[]; };                      // the residual, one column
layout(binding = 9) readonly buffer NormWeight { float norm_weight[]; };
#include "norm_weight_add_one.glsl"
layout(binding = 10) writeonly buffer OutQuants { int8_t out_quants[]; };  // the norm's int8 input, as quantize_x's
layout(binding = 11) writeonly buffer OutScales { vec2 out_scales[]; };
layout(binding = 12) writeonly buffer BlockSquares { float block_squares[]; };
layout(binding = 13) coherent buffer Arrivals { uint block_arrivals[]; };  // per block of 32 rows

const uint TEAM = 32;  // a block's elements: the invocations that hold them

// partial[] (row_accumulators.glsl) is free once the workgroup's rows are written.
#define QB_SCRATCH partial
#include "quantize_block_math.glsl"
// A float's sum over the block's 32 holders, in every lane; every invocation calls it.
PB_LANE_GROUP_REDUCE(block_float_sum, float, lane_group_add, QB_SLOTS)

shared bool arrived_last;

// Every invocation calls it once the workgroup's rows of y (group_rows from first_row on, a
// divisor of TEAM) are written; its barriers are uniform.
void accumulate_when_block_done(uint first_row, uint group_rows) {
  const uint block = first_row / TEAM;
  memoryBarrierBuffer();  // every invocation's rows are visible before the count says they are there
  barrier();
  if (gl_LocalInvocationIndex == 0) {
    const uint arrivals = (TEAM / group_rows) * counter[0];  // the block's workgroups of every item
    arrived_last = atomicAdd(block_arrivals[block], 1u) == arrivals - 1u;
    memoryBarrierBuffer();  // and the reads below come after the count
  }
  barrier();
  if (!arrived_last) return;  // the whole workgroup: arrived_last is shared

  const uint t = subgroup_major_index();
  const bool holds = t < TEAM;  // the block's 32 elements, one an invocation
  const uint element = block * TEAM + t;
  float value = 0.0, weight = 0.0;
  if (holds) {
    float sum = 0.0;
    for (uint j = 0; j < pc.top_k; ++j) sum += route_w[j] * y[pc.y_offset + j * pc.y_stride + element];
    value = x[element] + sum;
    x[element] = value;
    weight = applied_norm_weight(norm_weight[element]);
  }
  const BlockQuant q = quantize_in_block(value * weight, TEAM);  // every invocation: barriers
  if (holds) out_quants[element] = int8_t(q.q);
  if (t == 0u) out_scales[block] = vec2(q.d, q.d * float(q.sum));  // d * sum: exact (23 bits)
  const float squares = block_float_sum(value * value, TEAM);
  if (t == 0u) {
    block_squares[block] = squares;
    block_arrivals[block] = 0u;  // for the next dispatch, ordered by its barrier
  }
}

#endif  // PB_MOE_DMMV_INTDOT_ACC_NORM_GLSL
