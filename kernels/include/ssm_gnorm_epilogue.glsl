// The Gated DeltaNet's output norm inside its recurrence (ssm_delta_body.glsl with
// SSM_GNORM_QUANTIZE; decode, one token): a value head's o is spread over the recurrence's
// workgroups (x, h), COLS columns each. Each writes its columns of o and counts its arrival;
// the head's last to arrive reads the whole head back and writes what
// intdot/ssm_gnorm_quantize.comp would: the gated RMSNorm's int8 blocks and scales for the
// output projection (ssm_gnorm_math.glsl and quantize_block.glsl: the same bits). The gated
// floats themselves are not written: only that projection reads them.
//
// Needs one token, d_v a multiple of 32 and at most the workgroup's invocations, which are a
// multiple of 32 (engine/ops/ssm_delta_op.cpp checks). o is `coherent` in this form, so the last
// workgroup reads the others' columns past its own cache.
#ifndef PB_SSM_GNORM_EPILOGUE_GLSL
#define PB_SSM_GNORM_EPILOGUE_GLSL

#include "ssm_gnorm_math.glsl"
#include "subgroup_order.glsl"
#include "workgroup_reduce.glsl"

layout(binding = 10) readonly buffer GnormZ { float gnorm_z[]; };  // [Hv][d_v]: the output gate z
layout(binding = 11) readonly buffer GnormW { float gnorm_w[]; };  // [d_v]: shared by every head
#define QX_QUANTS_BINDING 12
#define QX_SCALES_BINDING 13
#define QX_WRITE
#include "dmmv_intdot_quantized_x.glsl"
#include "quantize_block.glsl"
// One count per value head of the workgroups that wrote their columns of o; zero between
// dispatches (the last to arrive sets it back).
layout(binding = 14) buffer HeadArrivals { uint head_arrivals[]; };

shared bool head_last;

// Every invocation calls it, after writing its columns of o (it has barriers).
void gnorm_quantize_head(uint h) {
  const uint ob = h * pc.d_v;
  const uint i = subgroup_major_index();
  const bool valid = i < pc.d_v;  // whole blocks: d_v is a multiple of 32
  // The element's gate and weight before the count: they wait for no other workgroup.
  const float gate = valid ? gnorm_z[ob + i] : 0.0;
  const float weight = valid ? gnorm_w[i] : 0.0;
  memoryBarrierBuffer();  // this workgroup's o is visible before its count says it is there
  barrier();
  if (gl_LocalInvocationID.x == 0) head_last = atomicAdd(head_arrivals[h], 1u) == gl_NumWorkGroups.x - 1u;
  barrier();
  if (!head_last) return;  // the whole workgroup: head_last is shared
  memoryBarrierBuffer();   // and the reads of o below come after the count
  const float mine = valid ? o[ob + i] : 0.0;  // loaded with the squares' elements
  float squares = 0.0;
  for (uint k = gl_LocalInvocationID.x; k < pc.d_v; k += gl_WorkGroupSize.x) {
    const float v = o[ob + k];
    squares += v * v;
  }
  const float scale = ssm_gnorm_scale(wg_sum(squares), pc.d_v, pc.gnorm_eps);
  const float v = valid ? ssm_gnorm_value(mine, scale, weight, gate) : 0.0;
  quantize_blocks_cooperative(v, valid, 0u, ob + i, gl_NumWorkGroups.y * pc.d_v);
  if (gl_LocalInvocationID.x == 0) head_arrivals[h] = 0u;  // for the next dispatch, ordered by its barrier
}

#endif  // PB_SSM_GNORM_EPILOGUE_GLSL
