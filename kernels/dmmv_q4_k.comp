#version 450
// DMMV over Q4_K weights (144-byte blocks of 256: f16 d, f16 dmin, 12 bytes of 6-bit scales and
// mins, 128 bytes of nibbles). A slot is 16 weights: 8 low nibbles of sub-block 2j and the 8
// high nibbles of sub-block 2j+1 from the same 8 bytes.
#extension GL_GOOGLE_include_directive : require

#define DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_format_q4_k.glsl"
#undef DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_body.glsl"
#include "dmmv_format_q4_k.glsl"
