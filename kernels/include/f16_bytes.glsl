// Bytes to f16 without conversion instructions, for the kernels that feed cooperative
// matrices. int -> float and float -> f16 conversions run at a quarter of the FMA rate on
// NVIDIA; instead, (b | 0x6400) read as f16 is 1024 + b exactly, so one mask makes two of
// them, and a subtraction and a fused multiply-add in f16 pairs give the value, rounded once.
// The masks pick bytes 0 and 2, then 1 and 3, of each word, so the results come in "k_order":
// k 0, 2, 1, 3 of the word. A kernel that uses them keeps both operands of its products in
// that order, which leaves the sums unchanged. Needs
// GL_EXT_shader_explicit_arithmetic_types_float16.
#ifndef PB_F16_BYTES_GLSL
#define PB_F16_BYTES_GLSL

// 1024 + the unsigned bytes 0 and 2 (pair 0) and 1 and 3 (pair 1) of a word, exactly, in f16.
f16vec2 biased_bytes(uint word, uint pair) {
  return unpackFloat2x16(((word >> (8u * pair)) & 0x00ff00ffu) | 0x64006400u);
}

// Unsigned bytes 0..255 times `scale` minus `offset`, in k_order, each rounded once to f16.
f16vec4 unsigned_bytes_f16(uint word, float16_t scale, float16_t offset) {
  const f16vec2 s = f16vec2(scale), o = f16vec2(offset), bias = f16vec2(1024.0hf);
  return f16vec4((biased_bytes(word, 0u) - bias) * s - o, (biased_bytes(word, 1u) - bias) * s - o);
}

// Signed bytes times `scale`, in k_order, each rounded once to f16.
f16vec4 signed_bytes_f16(uint word, float16_t scale) {
  const uint u = word ^ 0x80808080u;  // q + 128
  const f16vec2 s = f16vec2(scale), bias = f16vec2(1152.0hf);
  return f16vec4((biased_bytes(u, 0u) - bias) * s, (biased_bytes(u, 1u) - bias) * s);
}

#endif
