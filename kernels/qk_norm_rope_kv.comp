#version 450
// qk_norm_rope.comp that also writes the column's k and v into the layer's float16 KV cache
// (kernels/include/qk_norm_rope_body.glsl): the RoPE and the KV write in one dispatch.
#extension GL_GOOGLE_include_directive : require
#define WRITE_KV
#include "qk_norm_rope_body.glsl"
