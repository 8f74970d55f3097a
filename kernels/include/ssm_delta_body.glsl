// Gated DeltaNet recurrence (Qwen3.5 / Qwen3-Next linear attention) over a chunk of tokens,
// in order, in one dispatch. Per value head h (key head kh = h / group) and token t:
//   q = l2norm(q_t[kh]) / sqrt(DK), k = l2norm(k_t[kh]), l2norm(x) = x * inversesqrt(x.x + eps)
//   beta = sigmoid(b_t[h]), g = A[h] * softplus(a_t[h] + dt_bias[h]), A = -exp(A_log[h])
//   S = exp(g) * S;  delta = beta * (v_t[h] - S^T k);  S += k delta^T;  o_t[h] = S^T q
// S is the head's [DK][d_v] f32 state, S[i][j] at (h * DK + i) * d_v + j, carried across calls.
//
// Workgroup (x, h) owns columns j = x * COLS + c (c < COLS) of head h's S. Column j is split
// over SPLIT invocations; invocation (c, r) (local id c + COLS * r) keeps rows r + SPLIT * i
// (i < ROWS) of it in registers for the whole chunk, so S is read and written once per call.
// Per token: k, q go through shared memory (raw; their norms come from a subgroup + per-subgroup
// slot reduction folded into the staging barrier, and the scales are applied to the dot
// products), then S^T k and S^T q are sums of SPLIT per-invocation partials in shared memory,
// added in a fixed order. Three barriers per token; no subgroup size is assumed (slots cover
// one subgroup per invocation). The next token's inputs are loaded into registers before the
// current token's math, hiding global-memory latency behind it.
//
// Limits: DK <= 256; any d_v, any group. Shared memory: 8 * DK + 16 * THREADS bytes
// (THREADS = COLS * SPLIT <= 1024: at most 18 KiB, inside lavapipe's 32 KiB). Registers:
// ROWS floats of S per invocation (the op builder keeps ROWS <= 64).
//
// With SSM_CONV_INPUT (ssm_conv_delta.comp) binding 0 holds the conv's input, not its output:
// each invocation computes the causal conv and SiLU of the channels it reads itself
// (ssm_conv_input.glsl, ssm_conv.comp's arithmetic), so the conv needs no dispatch of its own,
// and keeps the newest WIDTH - 1 inputs of each window, the channel's next state. A v channel
// has one reader, which writes its state at the end. Every workgroup of a key head reads that
// head's q and k channels, so none may write their state while another still reads it: each
// counts its arrival once the state's values are consumed (the count's latency hides behind
// the recurrence), and the key head's last to arrive writes them from its registers (the
// pattern of argmax_slices: nobody waits) and sets the count back to zero.
//
// With SSM_GNORM_QUANTIZE as well (intdot/ssm_conv_delta_gnorm.comp; one token) each value
// head's last workgroup to finish then writes the gated output norm's int8 input of the output
// projection (ssm_gnorm_epilogue.glsl).
#ifndef PB_SSM_DELTA_BODY_GLSL
#define PB_SSM_DELTA_BODY_GLSL
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(constant_id = 0) const uint DK = 128;      // d_k: rows of S, length of q and k heads
layout(constant_id = 1) const uint COLS = 32;     // columns of S per workgroup
layout(constant_id = 2) const uint SPLIT = 4;     // invocations sharing one column
layout(local_size_x_id = 3) in;                   // COLS * SPLIT (spec id 3)
layout(constant_id = 4) const int A_NEG_EXP = 0;  // 1: binding 3 holds A = -exp(A_log) itself

const uint THREADS = gl_WorkGroupSize.x;
const uint ROWS = (DK + SPLIT - 1) / SPLIT;        // rows of S per invocation
const uint STAGE = (DK + THREADS - 1) / THREADS;   // k and q elements each invocation stages

// The conv's output, column t at t * qkv_stride; with SSM_CONV_INPUT its input.
layout(binding = 0) readonly buffer QKV { float qkv[]; };
layout(binding = 1) readonly buffer B { float b[]; };        // column t at t * b_stride: [Hv]
layout(binding = 2) readonly buffer A { float a[]; };        // column t at t * a_stride: [Hv]
layout(binding = 3) readonly buffer ALog { float a_log[]; }; // [Hv]: A_log (or A, A_NEG_EXP)
layout(binding = 4) readonly buffer DtBias { float dt_bias[]; };  // [Hv]
layout(binding = 5) buffer State { float state[]; };         // [Hv][DK][d_v]
#ifdef SSM_GNORM_QUANTIZE  // the head's last workgroup reads o back (ssm_gnorm_epilogue.glsl)
layout(binding = 6) coherent buffer O { float o[]; };        // column t at t * o_stride: [Hv][d_v]
#else
layout(binding = 6) writeonly buffer O { float o[]; };       // column t at t * o_stride: [Hv][d_v]
#endif

layout(push_constant) uniform Push {
  uint group;       // value heads per key head
  uint d_v;         // columns of S, length of v and o heads
  uint ncols;       // tokens in this chunk
  uint qkv_stride;  // floats between conv-output columns
  uint q_offset;    // floats from a conv-output column's start to q head 0
  uint k_offset;    // floats from a conv-output column's start to k head 0
  uint v_offset;    // floats from a conv-output column's start to v head 0
  uint b_stride;    // floats between b columns
  uint a_stride;    // floats between a columns
  uint o_stride;    // floats between o columns
  float l2_eps;     // added to the sum of squares inside the l2 norm's square root
#ifdef SSM_GNORM_QUANTIZE
  float gnorm_eps;  // the output norm's, added to the mean square
#endif
} pc;

shared float k_s[DK];           // the token's raw k head
shared float q_s[DK];           // the token's raw q head
shared vec2 squares_s[THREADS]; // per-subgroup (k.k, q.q) partials
shared float kv_s[THREADS];     // per-invocation partials of S^T k, at the local id
shared float out_s[THREADS];    // per-invocation partials of S^T q, at the local id

// The next token's inputs, fetched a token ahead.
float next_k[STAGE];
float next_q[STAGE];
float next_v;
float next_a;
float next_b;

#ifdef SSM_GNORM_QUANTIZE
#include "ssm_gnorm_epilogue.glsl"
#endif
#ifdef SSM_CONV_INPUT
#include "ssm_conv_input.glsl"
// The newest WIDTH - 1 inputs of the latest fetched windows: after the chunk, the channels' state.
ConvKept kept_k[STAGE], kept_q[STAGE], kept_v;
// q, k, v channel `ch` of token t after the conv and SiLU (its window from the conv input's
// columns, or the state before the chunk's first token), the window kept.
#define QKV_AT(t, ch, kept) conv_silu_keeping(t, ch, pc.qkv_stride, kept)
#else
#define QKV_AT(t, ch, kept) qkv[(t) * pc.qkv_stride + (ch)]
#endif

void fetch(uint t, uint kh, uint h, uint j, bool live) {
  for (uint n = 0; n < STAGE; ++n) {
    const uint d = gl_LocalInvocationID.x + n * THREADS;
    if (d < DK) {
      next_k[n] = QKV_AT(t, pc.k_offset + kh * DK + d, kept_k[n]);
      next_q[n] = QKV_AT(t, pc.q_offset + kh * DK + d, kept_q[n]);
    }
  }
  if (live) next_v = QKV_AT(t, pc.v_offset + h * pc.d_v + j, kept_v);
  next_b = b[t * pc.b_stride + h];
  next_a = a[t * pc.a_stride + h];
}

float softplus(float x) { return max(x, 0.0) + log(1.0 + exp(-abs(x))); }

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint c = lid % COLS;
  const uint r = lid / COLS;
  const uint h = gl_WorkGroupID.y;
  const uint kh = h / pc.group;
  const uint j = gl_WorkGroupID.x * COLS + c;
  const bool live = j < pc.d_v;  // columns past d_v only take part in the barriers
  const float coef = A_NEG_EXP != 0 ? a_log[h] : -exp(a_log[h]);
  const float bias = dt_bias[h];
  const float q_norm_scale = inversesqrt(float(DK));

  float s[ROWS];  // rows r + SPLIT * i of column j
  const uint state_base = h * DK * pc.d_v + j;
  for (uint i = 0; i < ROWS; ++i) {
    const uint row = r + SPLIT * i;
    s[i] = 0.0;
    if (live && row < DK) s[i] = state[state_base + row * pc.d_v];
  }

  next_v = 0.0;
  fetch(0, kh, h, j, live);
  for (uint t = 0; t < pc.ncols; ++t) {
    vec2 squares = vec2(0.0);
    for (uint n = 0; n < STAGE; ++n) {
      const uint d = lid + n * THREADS;
      if (d < DK) {
        k_s[d] = next_k[n];
        q_s[d] = next_q[n];
        squares += vec2(next_k[n] * next_k[n], next_q[n] * next_q[n]);
      }
    }
    const vec2 subgroup_squares = subgroupAdd(squares);
    if (subgroupElect()) squares_s[gl_SubgroupID] = subgroup_squares;
    const float v_t = next_v;
    const float beta = 1.0 / (1.0 + exp(-next_b));
    const float decay = exp(coef * softplus(next_a + bias));
    if (t + 1 < pc.ncols) fetch(t + 1, kh, h, j, live);
    barrier();  // k_s, q_s and the squares are in place
#ifdef SSM_CONV_INPUT
    // The last token whose window reaches into the state has been consumed: this workgroup is done
    // with the key head's q and k state.
    if (lid == 0 && t + 1 == min(pc.ncols, WIDTH - 1)) arrival = atomicAdd(conv_arrivals[kh], 1u);
#endif

    vec2 norms = vec2(0.0);
    for (uint sg = 0; sg < gl_NumSubgroups; ++sg) norms += squares_s[sg];
    const float k_scale = inversesqrt(norms.x + pc.l2_eps);
    const float q_scale = inversesqrt(norms.y + pc.l2_eps) * q_norm_scale;
    float kv = 0.0;
    for (uint i = 0; i < ROWS; ++i) {
      const uint row = r + SPLIT * i;
      if (row < DK) {
        s[i] *= decay;
        kv += s[i] * k_s[row];
      }
    }
    kv_s[lid] = kv;
    barrier();  // every partial of S^T k is in place

    float kv_total = 0.0;
    for (uint p = 0; p < SPLIT; ++p) kv_total += kv_s[c + COLS * p];
    const float k_delta = k_scale * (beta * (v_t - k_scale * kv_total));
    float qo = 0.0;
    for (uint i = 0; i < ROWS; ++i) {
      const uint row = r + SPLIT * i;
      if (row < DK) {
        s[i] += k_s[row] * k_delta;
        qo += s[i] * q_s[row];
      }
    }
    out_s[lid] = qo;
    barrier();  // every partial of S^T q is in place; k_s and q_s are free again

    if (r == 0 && live) {
      float total = 0.0;
      for (uint p = 0; p < SPLIT; ++p) total += out_s[c + COLS * p];
      o[t * pc.o_stride + h * pc.d_v + j] = q_scale * total;
    }
  }

  for (uint i = 0; i < ROWS; ++i) {
    const uint row = r + SPLIT * i;
    if (live && row < DK) state[state_base + row * pc.d_v] = s[i];
  }
#ifdef SSM_CONV_INPUT
  if (r == 0 && live) conv_state_store(pc.v_offset + h * pc.d_v + j, kept_v);  // its only reader
  if (lid == 0) arrived_last = arrival == pc.group * gl_NumWorkGroups.x - 1u;
  barrier();
  if (arrived_last) {  // the whole workgroup: arrived_last is shared
    for (uint n = 0; n < STAGE; ++n) {
      const uint d = lid + n * THREADS;
      if (d < DK) {
        conv_state_store(pc.q_offset + kh * DK + d, kept_q[n]);
        conv_state_store(pc.k_offset + kh * DK + d, kept_k[n]);
      }
    }
    if (lid == 0) conv_arrivals[kh] = 0u;  // for the next dispatch, ordered by its barrier
  }
#endif
#ifdef SSM_GNORM_QUANTIZE
  gnorm_quantize_head(h);
#endif
}

#endif  // PB_SSM_DELTA_BODY_GLSL
