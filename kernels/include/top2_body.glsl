// Greedy sampling's top two, shared by argmax.comp and its sliced form (argmax_slices.comp): per
// column, the index of the maximum (the lowest index among equal maxima; NaN never wins) and the best
// element other than it, so equal maxima give a margin of zero. A missing candidate reads
// index NONE with NaN bits.
//
// Each invocation keeps its own top two over elements it is offered in increasing index order
// (strict > keeps the lowest index), then four workgroup reductions pick the winner (max value,
// then min index holding it) and the runner-up the same way among everyone's best non-winner.
// Candidates may be logits or the top twos of slices (argmax_slices.comp's last workgroup of a
// column): a top two of a slice offers its winner as a best and its second as
// the fallback, which is all the runner-up can come from, so the result is the same.
//
// The includer declares its workgroup size and includes workgroup_reduce.glsl first.
const uint NONE = 0xFFFFFFFFu;
#define NEG_INF uintBitsToFloat(0xFF800000u)
const uint NAN_BITS = 0x7FC00000u;

struct TopTwo {
  float v1, v2;  // best and second value (NEG_INF while empty)
  uint i1, i2;   // their indices (NONE while empty)
};

TopTwo empty_top_two() { return TopTwo(NEG_INF, NEG_INF, NONE, NONE); }

// Whether v (at a higher index than the holder's) takes the place held by (value, index).
// Ordered comparisons are false for NaN, and -inf only takes an empty place.
bool takes(float v, float value, uint index) { return index == NONE ? v >= NEG_INF : v > value; }

void offer(inout TopTwo t, float v, uint i) {
  if (takes(v, t.v1, t.i1)) {
    t.v2 = t.v1;
    t.i2 = t.i1;
    t.v1 = v;
    t.i1 = i;
  } else if (takes(v, t.v2, t.i2)) {
    t.v2 = v;
    t.i2 = i;
  }
}

// (index, bits of max, second index, bits of second) as a uvec4, missing ones (NONE, NaN).
uvec4 packed_top_two(TopTwo t) {
  return uvec4(t.i1, t.i1 == NONE ? NAN_BITS : floatBitsToUint(t.v1), t.i2,
               t.i2 == NONE ? NAN_BITS : floatBitsToUint(t.v2));
}

TopTwo unpacked_top_two(uvec4 p) {
  return TopTwo(p.x == NONE ? NEG_INF : uintBitsToFloat(p.y), p.z == NONE ? NEG_INF : uintBitsToFloat(p.w), p.x, p.z);
}

shared uvec4 top_two_result;

// The workgroup's top two, packed, in every invocation. Called by every invocation.
uvec4 workgroup_top_two(TopTwo t) {
  if (gl_LocalInvocationID.x == 0) top_two_result = uvec4(NONE, NAN_BITS, NONE, NAN_BITS);
  const float best = wg_max(t.v1);
  const uint winner = wg_min(t.i1 != NONE && t.v1 == best ? t.i1 : NONE);
  // Everyone's best element other than the winner; only the winner's holder falls back to
  // its second.
  const bool holds_winner = t.i1 == winner && winner != NONE;
  const float cv = holds_winner ? t.v2 : t.v1;
  const uint ci = holds_winner ? t.i2 : t.i1;
  const float second = wg_max(cv);
  const uint runner_up = wg_min(ci != NONE && cv == second ? ci : NONE);
  // The holders report the exact bits (max() may return either zero of +0 == -0).
  if (holds_winner) top_two_result.xy = uvec2(winner, floatBitsToUint(t.v1));
  if (ci == runner_up && runner_up != NONE) top_two_result.zw = uvec2(runner_up, floatBitsToUint(cv));
  barrier();
  const uvec4 result = top_two_result;
  barrier();  // free for the next call
  return result;
}
