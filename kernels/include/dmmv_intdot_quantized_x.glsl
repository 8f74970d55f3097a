// The quantized activations that quantize_x writes and the integer-dot DMMV kernels read
// (engine/ops/quantize_x_op.h, QuantizedX). Per column, cols / 32 blocks:
//   quants  32 int8 per block, column c at byte c * cols: 16 of them are one uvec4, so a thread
//           reads 16 activations with one load
//   scales  one vec2 per block, column c at vec2 c * cols / 32: (d, d * sum of the block's
//           quants), so that x[k] ~ d * q[k] and the block sum of the dequantized x is exact
// d has at most 11 significant bits (quantize_x.comp says why), so q * d, (q + 0.5) * d and
// d * sum(q) are exact in float32.
//
// Binding numbers are the including kernel's; it defines QX_QUANTS_BINDING and
// QX_SCALES_BINDING and whether they are written (QX_WRITE) or read.
#ifdef QX_WRITE
#define QX_QUALIFIER writeonly
#else
#define QX_QUALIFIER readonly
#endif
layout(binding = QX_QUANTS_BINDING) QX_QUALIFIER buffer XQuants { uvec4 xq[]; };
layout(binding = QX_SCALES_BINDING) QX_QUALIFIER buffer XScales { vec2 xs[]; };
#undef QX_QUALIFIER

const uint QX_BLOCK = 32;  // activations per block
