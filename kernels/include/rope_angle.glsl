// Rotary-embedding angles accurate at any position. The angle of pair i at position p is
// p * r^i with r = theta^(-2 / rope_dims). In float, the frequency's rounding alone costs
// p * 6e-8 radians (2.4e-4 at position 4096, 0.016 at 262144) and GPU pow/exp2 add more, so
// the angle is carried as a float-float (an unevaluated sum hi + lo, ~44 bits) from a ratio r
// the CPU computed in double, reduced to turns in [-0.5, 0.5] exactly, and only then turned
// into radians in float. What is left is the device's sin/cos on [-pi, pi]: the kernel tests
// measure ~1e-6 absolute on outputs up to ~5 at positions to 262000, on lavapipe and NVIDIA.
//
// Float-float arithmetic relies on correctly rounded float add/mul (which Vulkan requires) and
// on no contraction or reassociation: every step is `precise` (SPIR-V NoContraction, which
// Mesa and the vendor compilers also treat as "do not re-associate").
#ifndef PB_ROPE_ANGLE_GLSL
#define PB_ROPE_ANGLE_GLSL

// Veltkamp split of a into two halves of 12 significant bits each: hi * hi' is exact.
vec2 ff_split(float a) {
  precise float t = 4097.0 * a;
  precise float hi = t - (t - a);
  precise float lo = a - hi;
  return vec2(hi, lo);
}

// a * b as p + e exactly (Dekker's product).
vec2 ff_two_prod(float a, float b) {
  precise float p = a * b;
  const vec2 sa = ff_split(a), sb = ff_split(b);
  precise float e = ((sa.x * sb.x - p) + sa.x * sb.y + sa.y * sb.x) + sa.y * sb.y;
  return vec2(p, e);
}

// a + b renormalized, for |a| >= |b|.
vec2 ff_quick_two_sum(float a, float b) {
  precise float s = a + b;
  precise float e = b - (s - a);
  return vec2(s, e);
}

vec2 ff_mul(vec2 a, vec2 b) {
  const vec2 p = ff_two_prod(a.x, b.x);
  precise float cross = a.x * b.y + a.y * b.x;
  precise float e = p.y + cross;
  return ff_quick_two_sum(p.x, e);
}

// r^i by binary powering: at most 2 * log2(i) float-float products (i < 256 here).
vec2 ff_pow(vec2 r, uint i) {
  vec2 result = vec2(1.0, 0.0);
  vec2 base = r;
  for (uint e = i; e != 0u; e >>= 1) {
    if ((e & 1u) != 0u) result = ff_mul(result, base);
    base = ff_mul(base, base);
  }
  return result;
}

// (cos, sin) of position * r^i; `position` is an integer below 2^24 (exact in float).
vec2 rope_cos_sin(vec2 r, uint i, float position) {
  // 1 / (2 pi) as a float-float: 0.15915493667... + 6.4206382e-09.
  const vec2 inv_two_pi = vec2(uintBitsToFloat(0x3e22f983u), uintBitsToFloat(0x31dc9c88u));
  const vec2 turns = ff_mul(ff_mul(ff_pow(r, i), vec2(position, 0.0)), inv_two_pi);
  // fract of the high part is exact; the low part is below half an ulp of it.
  precise float t = fract(turns.x) + turns.y;
  precise float centered = t - round(t);  // [-0.5, 0.5]: where the device's sin/cos are accurate
  const float angle = centered * 6.28318530717958647692;
  return vec2(cos(angle), sin(angle));
}

#endif  // PB_ROPE_ANGLE_GLSL
