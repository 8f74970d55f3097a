#version 450
// Greedy sampling: per column c of logits, the index of the maximum (the lowest index among
// equal maxima; NaN never wins), written to tokens[out_index + c], and the top two as
// top2[c] = (index, bits of max, second index, bits of second) for the run's fingerprint,
// which records the margin between them. "Second" is the best element other than the winner,
// so equal maxima give a margin of zero. A missing candidate (an all-NaN column, vocab 1)
// reads index 0xFFFFFFFF with NaN bits.
//
// One workgroup per column: each invocation keeps its own top two over a strided share of
// the vocabulary (increasing indices, so strict > keeps the lowest index), then four
// workgroup reductions pick the winner (max value, then min index holding it) and the
// runner-up the same way among everyone's best non-winner.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 1024) in;

layout(binding = 0) readonly buffer Logits { float logits[]; };  // column c at c * logits_stride
layout(binding = 1) writeonly buffer Tokens { uint tokens[]; };
layout(binding = 2) writeonly buffer Top2 { uvec4 top2[]; };      // one per column

layout(push_constant) uniform Push {
  uint vocab;          // logits per column
  uint logits_stride;  // floats between logits columns
  uint out_index;      // index in the tokens binding of column 0's token
} pc;

#include "workgroup_reduce.glsl"

const uint NONE = 0xFFFFFFFFu;
#define NEG_INF uintBitsToFloat(0xFF800000u)
const uint NAN_BITS = 0x7FC00000u;

// Whether v (at a higher index than the holder's) takes the place held by (value, index).
// Ordered comparisons are false for NaN, and -inf only takes an empty place.
bool takes(float v, float value, uint index) { return index == NONE ? v >= NEG_INF : v > value; }

shared uvec4 result;

void main() {
  const uint c = gl_WorkGroupID.x;
  const uint base = c * pc.logits_stride;
  float v1 = NEG_INF, v2 = NEG_INF;
  uint i1 = NONE, i2 = NONE;
  for (uint i = gl_LocalInvocationID.x; i < pc.vocab; i += gl_WorkGroupSize.x) {
    const float v = logits[base + i];
    if (takes(v, v1, i1)) {
      v2 = v1; i2 = i1;
      v1 = v; i1 = i;
    } else if (takes(v, v2, i2)) {
      v2 = v; i2 = i;
    }
  }
  if (gl_LocalInvocationID.x == 0) result = uvec4(NONE, NAN_BITS, NONE, NAN_BITS);

  const float best = wg_max(v1);
  const uint winner = wg_min(i1 != NONE && v1 == best ? i1 : NONE);
  // Everyone's best element other than the winner; only the winner's holder falls back to
  // its second.
  const bool holds_winner = i1 == winner && winner != NONE;
  const float cv = holds_winner ? v2 : v1;
  const uint ci = holds_winner ? i2 : i1;
  const float second = wg_max(cv);
  const uint runner_up = wg_min(ci != NONE && cv == second ? ci : NONE);

  // The holders report the exact bits (max() may return either zero of +0 == -0).
  if (holds_winner) result.xy = uvec2(winner, floatBitsToUint(v1));
  if (ci == runner_up && runner_up != NONE) result.zw = uvec2(runner_up, floatBitsToUint(cv));
  barrier();
  if (gl_LocalInvocationID.x == 0) {
    tokens[pc.out_index + c] = result.x;
    top2[c] = result;
  }
}
