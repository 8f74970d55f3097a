// Combines the split partials attn_decode (PARTIAL = 1) wrote: for head h,
//   M = max_s m_s,  w_s = exp2(m_s - M),  o = sum_s w_s o_s / sum_s w_s l_s
// (m_s in the log2 domain of the prescaled scores; every split holds at least one key, so
// every m_s is finite and the denominator is positive).
//
// Workgroup (h, y) writes dims [y * 4 * COLS, + 4 * COLS) of head h. Its threads are COLS
// vec4 columns times GROUPS split groups: each group sums every GROUPS-th split, so a long
// context's hundreds of splits are read in parallel, then the groups add up in shared memory.
// Every workgroup recomputes M and the denominator from the (max, sum) pairs: 8 bytes a split.
// With QUANTIZE_OUTPUT defined (intdot/attn_merge_quantize.comp; COLS = 8, so a workgroup's
// 32 dims are one block) it also writes the output's int8 form for the integer-dot
// o-projection (quantize_block.glsl), the bits quantize_x would write, in the same dispatch.
// Included by a kernel after its #version and the include extension.

#include "attn_thread.glsl"

layout(constant_id = 0) const uint HEAD_DIM = 128;
layout(constant_id = 2) const uint COLS = 8;  // vec4 columns per workgroup; divides HEAD_DIM / 4
layout(local_size_x_id = 1) in;               // threads: a multiple of COLS, power of two

// The scratch, in vec4 (its view starts 16-byte aligned): [s][h][HEAD_DIM] partial outputs,
// then [s][h] (max, sum) pairs, two to a vec4.
layout(binding = 0) readonly buffer Scratch { vec4 part[]; };
layout(binding = 1) writeonly buffer O { float o[]; };  // [n_heads][HEAD_DIM]

layout(push_constant) uniform Push {
  uint n_heads;         // query heads
  uint n_splits;        // splits attn_decode wrote
  uint scratch_offset;  // vec4 from the scratch binding's start to split 0
  uint o_offset;        // floats from the o binding's start to head 0
} pc;

const uint THREADS = gl_WorkGroupSize.x;
const uint GROUPS = THREADS / COLS;

shared vec4 sum_s[THREADS];

#include "workgroup_reduce.glsl"  // M and the denominator: subgroups, then their partials

#ifdef QUANTIZE_OUTPUT
#define QX_QUANTS_BINDING 2
#define QX_SCALES_BINDING 3
#define QX_WRITE
#include "dmmv_intdot_quantized_x.glsl"
#define QB4_SCRATCH wr_float_slots  // workgroup_reduce.glsl's: free once the denominator is known
#include "quantize_block.glsl"
#ifdef OUTPUT_GATE
// o / (1 + exp(-g)), elementwise, before it is written and quantized (Qwen3.5's gated
// attention; sigmoid_mul.comp's expression).
layout(binding = 4) readonly buffer OutGate { vec4 out_gate[]; };  // [n_heads][HEAD_DIM]
#endif
#endif

// (max, sum) of split s for head h.
vec2 split_stats(uint s, uint h) {
  const uint pair = s * pc.n_heads + h;
  const uint at = pc.scratch_offset + (pc.n_splits * pc.n_heads * HEAD_DIM) / 4 + pair / 2;
  const vec4 two = part[at];
  return (pair & 1u) == 0 ? two.xy : two.zw;
}

void main() {
  const uint h = gl_WorkGroupID.x;
  const uint t = ATTN_THREAD;
  float m = -1.0e30;
  for (uint s = t; s < pc.n_splits; s += THREADS) m = max(m, split_stats(s, h).x);
  m = wg_max(m);
  float denom = 0.0;
  for (uint s = t; s < pc.n_splits; s += THREADS) {
    const vec2 ml = split_stats(s, h);
    denom += exp2(ml.x - m) * ml.y;
  }
  denom = wg_sum(denom);

  const uint c = gl_WorkGroupID.y * COLS + t % COLS;  // vec4 column of the head
  const uint g = t / COLS;
  vec4 acc = vec4(0.0);
  for (uint s = g; s < pc.n_splits; s += GROUPS) {
    const float w = exp2(split_stats(s, h).x - m);
    acc += w * part[pc.scratch_offset + (s * pc.n_heads + h) * (HEAD_DIM / 4) + c];
  }
  sum_s[t] = acc;
  barrier();
  vec4 out4 = vec4(0.0);
  if (g == 0) {
    for (uint k = 1; k < GROUPS; ++k) acc += sum_s[k * COLS + t];
#ifdef OUTPUT_GATE
    out4 = (acc / denom) / (1.0 + exp(-out_gate[(h * HEAD_DIM) / 4 + c]));
#else
    out4 = acc / denom;
#endif
    const uint at = pc.o_offset + h * HEAD_DIM + 4 * c;
    o[at] = out4.x;
    o[at + 1] = out4.y;
    o[at + 2] = out4.z;
    o[at + 3] = out4.w;
  }
#ifdef QUANTIZE_OUTPUT
  // Group 0 (threads 0..7) holds the block; the other groups of 8 call along for the barriers.
  quantize_blocks_cooperative4(out4, g == 0, 0, (h * HEAD_DIM + 4 * gl_WorkGroupID.y * COLS) / QX_BLOCK,
                               pc.n_heads * HEAD_DIM);
#endif
}
