// What the cooperative-matrix weight source of 2-byte-aligned blocks needs (Q6_K's 210 bytes,
// matmul_weights_q6_k32.glsl): groups of 32 weights decoded straight to f16 (f16_bytes.glsl), and the
// weights bound twice, as 32-bit words for the runs of quants and as 16-bit words for the
// scales and for bytes that a whole word would read past the block.
#ifndef PB_MATMUL_WEIGHTS_WORDS_GLSL
#define PB_MATMUL_WEIGHTS_WORDS_GLSL

#extension GL_EXT_shader_16bit_storage : require

#include "dequant.glsl"
#include "f16_bytes.glsl"
#include "joined_word.glsl"

#define MATMUL_GROUP 32

layout(binding = 0) readonly buffer W { uint w[]; };
layout(binding = 0) readonly buffer W16 { uint16_t w16[]; };

#endif
