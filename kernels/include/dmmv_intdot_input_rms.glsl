// DMMV_INPUT_RMS (dmmv_intdot_body.glsl): the DMMV's input is an RMSNorm's output whose division
// by the RMS was left to it. The producer (a residual projection with
// dmmv_intdot_norm_epilogue.glsl) quantized x * w, the norm's input times its weight, and wrote
// the sum of x^2 of each block of 32; since the projection is linear, the norm is applied by
// scaling the projection's sums:
//   W ((x / rms) * w) = (W (x * w)) / rms,   rms = sqrt(sum(x^2) / n + eps)
// One column (decode), whose n = pc.cols inputs are its blocks' squares' source.
#ifndef PB_DMMV_INTDOT_INPUT_RMS_GLSL
#define PB_DMMV_INTDOT_INPUT_RMS_GLSL

// The norm's epsilon (> 0); 0 where the input is no deferred norm (dmmv_intdot_glu_epilogue.glsl).
layout(constant_id = 6) const float RMS_EPS = 0.0;
layout(binding = 4) readonly buffer InputSquares { float input_squares[]; };  // per block of 32 inputs

// Lane `lane` of `lanes`' share of the sum of the input's block squares: blocks lane,
// lane + lanes, ..., in that order.
float input_squares_share(uint lane, uint lanes) {
  const uint blocks = pc.cols / 32u;
  float squares = 0.0;
  for (uint b = lane; b < blocks; b += lanes) squares += input_squares[b];
  return squares;
}

// 1 / rms from the sum of the input's squares.
float inv_rms_of(float squares) { return inversesqrt(squares / float(pc.cols) + RMS_EPS); }

// 1 / rms of the input. Each subgroup adds the blocks' squares in the same order (lane l takes
// blocks l, l + S, ..., then a subgroup sum), so every workgroup of the dispatch applies the
// same scale, without shared memory or a barrier. Called before the projection's loop: on an
// H200 that was faster (llama3-8b decode 446 tok/s) than loading the squares there and adding
// them after the loop (436-440), or loading and adding them after it (442).
float input_inv_rms() {
  return inv_rms_of(subgroupAdd(input_squares_share(gl_SubgroupInvocationID, gl_SubgroupSize)));
}

#endif  // PB_DMMV_INTDOT_INPUT_RMS_GLSL
