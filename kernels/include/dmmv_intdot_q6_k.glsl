// Q6_K for the integer-dot DMMV (dmmv_intdot_body.glsl). A block of 256 is two halves n of 128;
// a chunk is 16 bytes of a half's ql (t = 0..3): byte 64n + 16t + e holds the low 4 bits of
// weight 128n + 16t + e (low nibble, sub-block 8n + t) and of weight 128n + 64 + 16t + e (high
// nibble, sub-block 8n + 4 + t); their top 2 bits sit in qh byte 32n + 16(t & 1) + e at bits
// 2(t >> 1) and 4 + 2(t >> 1). The 6-bit values minus 32 are packed back into signed bytes,
// dotted with the activation quants, and scaled once per 16 weights by d * scales[sub-block].
// In the device layout (q6_k_device_layout.glsl) a chunk's ql and qh bytes are one aligned
// uvec4 each, its two scales lie in one uvec2 and d is one 16-bit load.
#include "q6_k_device_layout.glsl"

#define CHUNKS_PER_ROW(cols) ((cols) / 256 * 8)

layout(binding = 0) readonly buffer W { uvec4 w_body[]; };      // the weights in the device
layout(binding = 0) readonly buffer WS { uvec2 w_pairs[]; };    // layout, read as 16-, 8- and
layout(binding = 0) readonly buffer WD { uint16_t w_halves[]; };  // 2-byte units

struct WeightChunk {
  uvec4 lo;      // q - 32 as int8 bytes: 16 weights of sub-block 8n + t
  uvec4 hi;      // 16 weights of sub-block 8n + 4 + t
  vec2 scales;   // d * scales of the two sub-blocks
};

struct XChunk {
  uvec4 lo, hi;   // the activation quants matching lo and hi
  float dlo, dhi;  // their blocks' scales
};

// Four 6-bit values (0..63, one per byte) minus 32 as int8 bytes: with the top bit of every
// byte set first, the subtraction cannot borrow across bytes.
uint q6k_centered(uint q) { return ((q | 0x80808080u) - 0x20202020u) ^ 0x80808080u; }

// Four weights of the low and of the high sub-block from a word of ql and one of qh.
uvec2 q6k_pair(uint l, uint h, uint shift) {
  return uvec2(q6k_centered((l & 0x0f0f0f0fu) | (((h >> shift) & 0x03030303u) << 4)),
               q6k_centered(((l >> 4) & 0x0f0f0f0fu) | (((h >> (shift + 4u)) & 0x03030303u) << 4)));
}

WeightChunk load_weights(uint row, uint chunk) {
  const uint body = q6_k_body_byte(row, pc.cols, chunk >> 3);
  const uint n = (chunk & 7u) >> 2, t = chunk & 3u;
  const uvec4 ql = w_body[(body >> 4) + 4u * n + t];               // ql[64n + 16t ..]
  const uvec4 qh = w_body[(body >> 4) + 8u + 2u * n + (t & 1u)];  // qh[32n + 16(t & 1) ..]
  const uvec2 sc = w_pairs[(body + 192u + 8u * n) >> 3];         // scales[8n .. 8n + 7]
  const uint shift = 2u * (t >> 1);
  const uvec2 p0 = q6k_pair(ql.x, qh.x, shift);
  const uvec2 p1 = q6k_pair(ql.y, qh.y, shift);
  const uvec2 p2 = q6k_pair(ql.z, qh.z, shift);
  const uvec2 p3 = q6k_pair(ql.w, qh.w, shift);
  WeightChunk c;
  c.lo = uvec4(p0.x, p1.x, p2.x, p3.x);
  c.hi = uvec4(p0.y, p1.y, p2.y, p3.y);
  const float d = unpackHalf2x16(uint(w_halves[q6_k_d_byte(row, pc.cols, chunk >> 3, BINDING_ROWS) >> 1])).x;
  c.scales = d * vec2(float(int(sc.x << (24u - 8u * t)) >> 24), float(int(sc.y << (24u - 8u * t)) >> 24));
  return c;
}

XChunk load_x(uint c, uint chunk) {
  const uint block = chunk >> 3, n = (chunk & 7u) >> 2, t = chunk & 3u;
  const uint k16 = block * 16u + n * 8u + t;  // k = 256 block + 128 n + 16 t
  XChunk x;
  x.lo = x_quants(c, k16);
  x.hi = x_quants(c, k16 + 4u);  // 64 further
  x.dlo = x_scales(c, k16 >> 1).x;
  x.dhi = x_scales(c, (k16 + 4u) >> 1).x;
  return x;
}

float chunk_dot(WeightChunk w, XChunk x) {
  return x.dlo * (w.scales.x * biased_dot_float(dot16(w.lo, x.lo, DOT_BIAS))) +
         x.dhi * (w.scales.y * biased_dot_float(dot16(w.hi, x.hi, DOT_BIAS)));
}
