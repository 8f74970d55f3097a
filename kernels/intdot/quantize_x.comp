#version 450
// Quantizes activation columns for the integer-dot DMMV kernels, per block of 32 floats
// (quantize_block.glsl says how, and why it is bit-exact on every device). One invocation per
// activation, the workgroup quantizing its 8 blocks together; workgroup row y is the column. Where the activations come from a norm or a gated unit, the forward pass
// uses rmsnorm_quantize / glu_quantize instead and saves this dispatch.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256) in;

layout(binding = 0) readonly buffer X { float x[]; };  // column c at c * x_stride floats
#define QX_QUANTS_BINDING 1
#define QX_SCALES_BINDING 2
#define QX_WRITE
#include "dmmv_intdot_quantized_x.glsl"
#include "quantize_block.glsl"

layout(push_constant) uniform Push {
  uint cols;      // floats per column, a multiple of 32
  uint ncols;     // columns
  uint x_stride;  // floats between x columns
  uint x_offset;  // floats from the x binding's start to column 0
} pc;  // the quants and scales bindings start at column 0

void main() {
  const uint i = subgroup_major_global_index();  // the numbering quantize_block.glsl needs
  const uint c = gl_WorkGroupID.y;
  const bool valid = i < pc.cols;  // whole blocks: cols is a multiple of 32
  const float v = valid ? x[pc.x_offset + c * pc.x_stride + i] : 0.0;
  quantize_blocks_cooperative(v, valid, c, i, pc.cols);
}
