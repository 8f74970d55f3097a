// Decode attention: one query token at position pos against cache positions [first, pos],
// first = max(0, pos - window + 1) (window 0: first = 0). Workgroup (x, y) takes the HEADS
// q heads x * HEADS.. of one GQA group and split y, keys [first + y * split, + split). With
// HEADS a whole group the kv head's K/V are read once per split for all of its q heads; on
// short contexts the op builder takes fewer heads per workgroup, so that more workgroups share
// what is then latency rather than reads (AttentionDecodeTuning::heads).
//   PARTIAL = 0: one split covers every key; writes the normalized output.
//   PARTIAL = 1: writes the split's unnormalized output and (max, sum) to the scratch buffer
//                for attn_merge (layout in engine/ops/attention_decode_op.h).
// With QUANTIZE_OUTPUT defined (intdot/attn_decode_quantize.comp; PARTIAL = 0 only) it also
// writes the output's int8 form for the integer-dot o-projection (quantize_block.glsl), the
// bits quantize_x would write, in the same dispatch.
// With ROPE_PROLOGUE defined (attn_decode_rope.comp, intdot/attn_decode_rope_quantize.comp) the
// dispatch also does what qk_norm_rope_kv did before it, so decode loses that dispatch: q is
// read as projected, and each workgroup norms (QK_NORM) and rotates its q heads at pos into q_s
// (attn_rope_prologue.glsl); the split holding pos computes the token's own K/V row from the
// projected k and v, attends to it from shared memory, and the first workgroup of the kv head
// in that split writes it to the cache (nothing in the dispatch reads that row from the cache).
// Included by a kernel after its #version and the include extension.

#ifdef ROPE_PROLOGUE
#define ATTN_OWN_KEY pc.pos
#endif
layout(binding = 0) readonly buffer Q { float q[]; };         // [n_heads][HEAD_DIM]
layout(binding = 1) readonly buffer K { uvec4 k_cache[]; };   // [n_kv_heads][max_ctx][HEAD_DIM] f16
layout(binding = 2) readonly buffer V { uvec4 v_cache[]; };   // same layout as K
layout(binding = 3) writeonly buffer O { float o[]; };        // output or split scratch

layout(constant_id = 6) const uint PARTIAL = 0;

layout(push_constant) uniform Push {
  uint n_heads;     // query heads
  uint n_kv_heads;  // kv heads, dividing n_heads
  uint max_ctx;     // cache positions per kv head
  uint pos;         // the query's position; context length pos + 1 (< max_ctx + 1)
  uint window;      // sliding window in positions, 0 = none
  uint split;       // key positions per split
  uint n_splits;    // splits of this dispatch (workgroups in y)
  float scale;      // score scale, usually 1 / sqrt(HEAD_DIM)
  uint q_offset;    // floats from the q binding's start to head 0
  uint o_offset;    // floats from the o binding's start to head 0 (or to the scratch)
#ifdef ROPE_PROLOGUE
  uint rope_dims;       // leading dimensions of a head rotated, even (0: none)
  float freq_ratio_hi;  // theta^(-2 / rope_dims) as a float-float (rope_angle.glsl)
  float freq_ratio_lo;
  float eps;            // added to the mean square of a head (QK_NORM)
  uint k_offset;        // floats from the k binding's start to the token's kv head 0
  uint v_offset;        // floats from the v binding's start to the token's kv head 0
#endif
} pc;

#include "attn_body.glsl"
#ifdef ROPE_PROLOGUE
#include "attn_rope_prologue.glsl"
#endif
#ifdef QUANTIZE_OUTPUT
#ifdef ROPE_PROLOGUE
#define QX_QUANTS_BINDING 10  // after the prologue's six
#define QX_SCALES_BINDING 11
#else
#define QX_QUANTS_BINDING 4
#define QX_SCALES_BINDING 5
#endif
#define QX_WRITE
#include "dmmv_intdot_quantized_x.glsl"
#define QB4_SCRATCH row_max_s  // free once attend() is done
#include "quantize_block.glsl"
#ifdef OUTPUT_GATE
// o / (1 + exp(-g)), elementwise, before it is written and quantized (Qwen3.5's gated
// attention; sigmoid_mul.comp's expression): the binding after the quantized output's.
layout(binding = QX_SCALES_BINDING + 1) readonly buffer OutGate { vec4 out_gate[]; };  // [n_heads][HEAD_DIM]
#endif
#endif

uint row_pos(uint r) { return pc.pos; }
bool row_live(uint r) { return true; }

void main() {
  const uint head0 = gl_WorkGroupID.x * HEADS;
  const uint kv = head0 / (pc.n_heads / pc.n_kv_heads);
  const uint split = gl_WorkGroupID.y;
  const uint first = (pc.window == 0 || pc.pos + 1 <= pc.window) ? 0 : pc.pos + 1 - pc.window;
  const uint k_begin = first + split * pc.split;
  const uint k_end = min(k_begin + pc.split, pc.pos + 1);

  const float qscale = pc.scale * LOG2E;
  const uint kv_base = kv * pc.max_ctx * D8;
#ifdef ROPE_PROLOGUE
  const bool own_key = k_end == pc.pos + 1;  // this split holds the query's own key
  const bool writes_row = own_key && head0 % (pc.n_heads / pc.n_kv_heads) == 0;
  load_tile(kv_base, k_begin, k_end);  // in flight during the prologue
  rope_prologue(head0, kv, own_key, writes_row, qscale);
  own_key_into_tile(k_begin, k_end);
  const uint cur = attend_fetched(kv_base, k_begin, k_end, pc.window);
#else
  for (uint i = ATTN_THREAD; i < ROWS * D2; i += THREADS) {
    const uint at = pc.q_offset + head0 * HEAD_DIM + 2 * i;  // rows are consecutive heads
    q_s[i] = vec2(q[at], q[at + 1]) * qscale;
  }
  const uint cur = attend(kv_base, k_begin, k_end, pc.window);
#endif

#ifdef QUANTIZE_OUTPUT
  // Every invocation runs every item (the quantization has barriers); a block of 32 outputs is
  // 8 consecutive items of one pass (HEAD_DIM is a multiple of 32, THREADS of 8).
  for (uint n = 0; n < PV_ITEMS; ++n) {
    const uint i = ATTN_THREAD + n * THREADS;
    const bool live = i < ROWS * D4;
    const uint r = i / D4, c = i % D4;
    const uint head = head0 + r;
#ifdef OUTPUT_GATE
    const vec4 out4 = live ? (acc[n] / l_acc[n]) / (1.0 + exp(-out_gate[(head * HEAD_DIM) / 4 + c])) : vec4(0.0);
#else
    const vec4 out4 = live ? acc[n] / l_acc[n] : vec4(0.0);
#endif
    if (live) {
      const uint at = pc.o_offset + head * HEAD_DIM + 4 * c;
      o[at] = out4.x;
      o[at + 1] = out4.y;
      o[at + 2] = out4.z;
      o[at + 3] = out4.w;
    }
    quantize_blocks_cooperative4(out4, live, 0, (head * HEAD_DIM + 4 * c) / QX_BLOCK, pc.n_heads * HEAD_DIM);
  }
#else
  for (uint n = 0; n < PV_ITEMS; ++n) {
    const uint i = ATTN_THREAD + n * THREADS;
    if (i >= ROWS * D4) continue;
    const uint r = i / D4, c = i % D4;
    const uint head = head0 + r;
    if (PARTIAL == 0) {
      const vec4 out4 = acc[n] / l_acc[n];
      const uint at = pc.o_offset + head * HEAD_DIM + 4 * c;
      o[at] = out4.x;
      o[at + 1] = out4.y;
      o[at + 2] = out4.z;
      o[at + 3] = out4.w;
    } else {
      const uint slot = split * pc.n_heads + head;
      const uint at = pc.o_offset + slot * HEAD_DIM + 4 * c;
      o[at] = acc[n].x;
      o[at + 1] = acc[n].y;
      o[at + 2] = acc[n].z;
      o[at + 3] = acc[n].w;
      if (c == 0) {
        const uint stats = pc.o_offset + pc.n_splits * pc.n_heads * HEAD_DIM + 2 * slot;
        o[stats] = m_s[cur * ROWS + r];
        o[stats + 1] = l_acc[n];
      }
    }
  }
#endif
}
