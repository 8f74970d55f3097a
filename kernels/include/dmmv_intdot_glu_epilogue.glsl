// DMMV_GLU_EPILOGUE (dmmv_intdot_body.glsl): the stacked gate and up projection of one column
// (rows [0, n) gate, [n, 2n) up: pc.rows = 2n) that also applies the gated linear unit and
// writes act = glu(gate, up) in the int8 blocks the down projection reads (bindings 5 and 6, as
// quantize_x would), so the GLU needs no dispatch of its own (glu_placement: producer). Neither
// gate, up nor act is written as floats: the down projection is their only reader.
//
// A workgroup owns act elements [32 g, 32 g + 32): team t (dmmv_intdot_block_teams.glsl) takes
// the gate rows 32 g + h t .. + h - 1 and the up rows n + the same, h = ROWS / 2, and puts their
// sums in shared memory; the block's holders (the first team) apply the unit to the 32 elements
// and quantize them.
//
// Where the input is an RMSNorm's output whose division was left to this projection
// (norm_placement: producer; RMS_EPS > 0, binding 4), gate and up are divided by the RMS first;
// only the holders sum it.
// ACTIVATION is glu_activation.glsl's (0 SiLU, 1 GELU with tanh). Needs NUM_COLS = 1,
// ACCUMULATE = 0, n a multiple of 32 and one row slice (engine/ops/dmmv_intdot_op.cpp checks).
#ifndef PB_DMMV_INTDOT_GLU_EPILOGUE_GLSL
#define PB_DMMV_INTDOT_GLU_EPILOGUE_GLSL

layout(constant_id = 7) const int ACTIVATION = 0;
#include "glu_activation.glsl"
#include "dmmv_intdot_input_rms.glsl"  // RMS_EPS = 0 (the default): no division
#include "dmmv_intdot_block_teams.glsl"

shared float block_gate[TEAM], block_up[TEAM];  // the workgroup's gate and up sums, in order

void main() {
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint t = subgroup_major_index();
  const uint team = t / TEAM, lane = t % TEAM;
  const uint half_rows = pc.rows / 2u;  // n: gate rows, then as many up rows
  const uint block = group * TEAM;      // the workgroup's first act element
  const uint first_row = block + team * uint(ROWS / 2);  // DMMV_ROW maps rows past ROWS / 2 to up
  const bool holds = t < TEAM;  // the block's holders (the first team) apply the unit and quantize
  // Only the holders need the RMS: they load their share of the input's block squares before
  // the loop, which does not wait for it. On an H200 every team summing the squares at its
  // start cost the gate/up projection 1.8 us (docs/GPU_FIGURES.md).
  const float squares = RMS_EPS > 0.0 && holds ? input_squares_share(t, TEAM) : 0.0;
  accumulate_team_rows(first_row, half_rows, lane);

  // Lane j of a team puts its element j's sums in place (acc indexed by constants only).
  [[unroll]] for (int j = 0; j < ROWS / 2; ++j) {
    if (lane == uint(j)) {
      block_gate[team * uint(ROWS / 2) + uint(j)] = acc[j];
      block_up[team * uint(ROWS / 2) + uint(j)] = acc[ROWS / 2 + j];
    }
  }
  barrier();

  const float inv_rms = RMS_EPS > 0.0 ? inv_rms_of(block_float_sum(squares, TEAM)) : 1.0;
  const float v = holds ? glu_value(block_gate[t] * inv_rms, block_up[t] * inv_rms) : 0.0;
  quantize_owned_block(v, holds, block + t, block);
}

#endif  // PB_DMMV_INTDOT_GLU_EPILOGUE_GLSL
