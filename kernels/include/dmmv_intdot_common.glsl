// Declarations every integer-dot DMMV kernel shares, included before its format file: the
// extensions, the quantized activations at bindings 1 and 2, and the push constants
// (engine/ops/dmmv_intdot_op.h, DmmvIntdotPush; with MOE_DMMV defined, the expert form's).
#extension GL_EXT_integer_dot_product : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require

#define QX_QUANTS_BINDING 1
#define QX_SCALES_BINDING 2
#include "dmmv_intdot_quantized_x.glsl"

#ifdef MOE_DMMV
// The expert form (moe_dmmv_intdot_main.glsl; engine/ops/moe_dmmv_intdot_op.h, MoeIntdotPush):
// a column is the input column of the pass's c-th assignment, which the main defines.
layout(push_constant) uniform Push {
  uint rows;          // rows of one expert's matrix
  uint cols;          // input length
  uint top_k;         // K: assignment a belongs to token a / K
  uint y_stride;      // floats between y columns
  uint y_offset;      // floats from the y binding's start to column 0
  uint xq_offset;     // uvec4s from the quants binding's start to column 0
  uint xs_offset;     // vec2s from the scales binding's start to column 0
  uint expert_first;  // expert held first by this dispatch's weight binding
  uint expert_count;  // experts in the binding; items of other experts exit at once
} pc;

uint moe_input_column(uint c);
#define QX_COLUMN(c) moe_input_column(c)
// The weight binding's rows (Q6_K's device layout needs them): its experts', or with the SwiGLU
// (moe_dmmv_intdot_glu_main.glsl) the gate experts' and as many up rows.
#ifdef DMMV_GLU_EPILOGUE
#define BINDING_ROWS (2u * pc.expert_count * pc.rows)
#else
#define BINDING_ROWS (pc.expert_count * pc.rows)
#endif
#else
layout(push_constant) uniform Push {
  uint rows;       // rows of this dispatch's weight slice
  uint cols;       // input length
  uint y_stride;   // floats between y columns
  uint row_base;   // row index in y of the slice's first row
  uint y_offset;   // floats from the y binding's start to column 0
  uint xq_offset;  // uvec4s from the quants binding's start to column 0
  uint xs_offset;  // vec2s from the scales binding's start to column 0
} pc;
#define QX_COLUMN(c) (c)
#define BINDING_ROWS pc.rows
#endif

// 16 quants of column c starting at k = 16 * k16, and the scales of its block of 32.
uvec4 x_quants(uint c, uint k16) { return xq[pc.xq_offset + QX_COLUMN(c) * (pc.cols >> 4) + k16]; }
vec2 x_scales(uint c, uint block) { return xs[pc.xs_offset + QX_COLUMN(c) * (pc.cols >> 5) + block]; }

// Sum of the four byte products of two words of packed int8, added to `sum`.
int dot4(uint a, uint b, int sum) { return sum + dotPacked4x8EXT(int(a), int(b)); }
int dot16(uvec4 a, uvec4 b, int sum) { return dot4(a.w, b.w, dot4(a.z, b.z, dot4(a.y, b.y, dot4(a.x, b.x, sum)))); }
int dot16(uvec4 a, uvec4 b) { return dot16(a, b, 0); }
// The same with b's bytes read as unsigned (0..255): Q4_K's high nibbles dot in place, masked
// but not shifted down, for 16 times their sum (dmmv_intdot_q4_k.glsl).
int dot4u(uint a, uint b, int sum) { return sum + dotPacked4x8EXT(int(a), b); }
int dot16u(uvec4 a, uvec4 b, int sum) { return dot4u(a.w, b.w, dot4u(a.z, b.z, dot4u(a.y, b.y, dot4u(a.x, b.x, sum)))); }
int dot16u(uvec4 a, uvec4 b) { return dot16u(a, b, 0); }

// A chunk's integer sum as a float without an int -> float conversion (a quarter-rate
// instruction on NVIDIA): the products accumulate onto DOT_BIAS, the bits of the float
// 1.5 * 2^23, whose unit in the last place is 1. For |sum| < 2^22 (every chunk here: at most
// 32 products of 8-bit values, 975360 for Q4_K's in-place high nibbles) the word is then the
// float 1.5 * 2^23 + sum exactly, and one exact subtraction leaves float(sum): the same float,
// bit for bit. The Q4_K and Q6_K chunks use it. On an H200 (docs/GPU_FIGURES.md) the 8-column
// kernels, which convert 8 times as often per weight, did not get faster, so the conversions
// were not what bound them. The driver's register allocation changed, though, and some kernels
// got faster: decode's fused one-column kernels (the norm-writing ffn_down 13.83 -> 13.21 us;
// llama3-8b int8 decode with the fused producers 471 -> 476 tok/s in one session) and Q6_K's
// attn at 8 columns (20.7 -> 15.1 us). Q8_0's chunks keep float(): with the bias their 4- and
// 8-column kernels on ffn_down 4096x14336 took 24.1 -> 25.5 and 28.8 -> 29.5 us.
const int DOT_BIAS = 0x4B400000;
float biased_dot_float(int biased) { return intBitsToFloat(biased) - 12582912.0; }
