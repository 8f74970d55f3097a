// Q4_K for the integer-dot DMMV (dmmv_intdot_body.glsl). A block is 9 uvec4: a header (d, dmin,
// 12 bytes of 6-bit scales and mins) and 8 of nibbles. A chunk is one of those 8: byte l of
// chunk i = 2j + h holds weight 64j + 16h + l in its low nibble (sub-block 2j) and weight
// 64j + 32 + 16h + l in its high nibble (sub-block 2j + 1). Masked into bytes, the nibbles
// (0..15) are int8 as they are, so they dot with the activation quants directly:
//   sum w x = d sc dx sum(q qx) - dmin m (dx sum qx)
// and the second term, needing the whole sub-block's activation sum, is added by the h = 0
// chunk only.
#define CHUNKS_PER_ROW(cols) ((cols) / 256 * 8)

layout(binding = 0) readonly buffer W { uvec4 w[]; };  // 9 uvec4 per block

struct WeightChunk {
  uvec4 lo;     // low nibbles, one per byte: 16 weights of sub-block 2j
  uvec4 hi;     // high nibbles: 16 weights of sub-block 2j + 1
  vec4 scales;  // d sc and dmin m of sub-block 2j, then of 2j + 1 (the mins 0 when h = 1)
};

struct XChunk {
  uvec4 lo, hi;   // the activation quants matching lo and hi
  vec2 slo, shi;  // (d, d sum q) of their blocks
};

uint q4k_byte(uint word, uint i) { return (word >> (8u * i)) & 0xffu; }

// Scale and min of sub-block `is` (ggml's get_scale_min_k4), by shifts only (dynamic vector
// indexing may go to local memory).
vec2 q4k_scale_min(uint is, uvec4 header) {
  if (is < 4u) return vec2(float(q4k_byte(header.y, is) & 63u), float(q4k_byte(header.z, is) & 63u));
  const uint i = is - 4u;
  const uint packed = q4k_byte(header.w, i);
  return vec2(float((packed & 0xfu) | ((q4k_byte(header.y, i) >> 6) << 4)),
              float((packed >> 4) | ((q4k_byte(header.z, i) >> 6) << 4)));
}

WeightChunk load_weights(uint row, uint chunk) {
  const uint base = (row * (pc.cols / 256u) + (chunk >> 3)) * 9u;
  const uvec4 header = w[base];
  const uvec4 q = w[base + 1u + (chunk & 7u)];
  const uint j = (chunk & 7u) >> 1;
  const vec2 dm = unpackHalf2x16(header.x);
  const vec2 min_on = vec2(1.0, (chunk & 1u) == 0u ? 1.0 : 0.0);
  WeightChunk c;
  c.lo = q & 0x0f0f0f0fu;
  c.hi = (q >> 4) & 0x0f0f0f0fu;
  c.scales = vec4(q4k_scale_min(2u * j, header) * dm * min_on, q4k_scale_min(2u * j + 1u, header) * dm * min_on);
  return c;
}

XChunk load_x(uint c, uint chunk) {
  const uint block = chunk >> 3, j = (chunk & 7u) >> 1, h = chunk & 1u;
  const uint k16 = block * 16u + j * 4u + h;  // k = 256 block + 64 j + 16 h
  XChunk x;
  x.lo = x_quants(c, k16);
  x.hi = x_quants(c, k16 + 2u);  // 32 further
  x.slo = x_scales(c, block * 8u + 2u * j);
  x.shi = x_scales(c, block * 8u + 2u * j + 1u);
  return x;
}

float chunk_dot(WeightChunk w, XChunk x) {
  return x.slo.x * (w.scales.x * float(dot16(w.lo, x.lo))) - w.scales.y * x.slo.y +
         x.shi.x * (w.scales.z * float(dot16(w.hi, x.hi))) - w.scales.w * x.shi.y;
}
