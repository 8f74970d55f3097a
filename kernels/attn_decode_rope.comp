#version 450
// Decode attention that also does the query token's q/k norm, RoPE and KV write, in place of a
// qk_norm_rope_kv dispatch before it (kernels/include/attn_decode_main.glsl, ROPE_PROLOGUE).
#extension GL_GOOGLE_include_directive : require
#define ROPE_PROLOGUE
#include "attn_decode_main.glsl"
