// DMMV_NORM_EPILOGUE (dmmv_intdot_body.glsl): a residual projection y += W x of one column that
// also produces the int8 input of the RMSNorm that follows it, so the norm needs no dispatch of
// its own. The norm's scale 1 / rms(y) needs all of y, which no workgroup has; but the
// projection after the norm is linear, so that division is left to it
// (dmmv_intdot_input_rms.glsl). What needs only a block of y is done here:
//   quants and scales  y * w quantized in blocks of 32 (w: the norm's weight), as quantize_x
//                      quantizes (quantize_block_math.glsl); the quants of (y / rms) * w are the
//                      same integers with every scale divided by rms
//   block_squares      sum of y^2 over each block of 32
//
// For that a workgroup owns one whole block: 32 rows, as teams of 32 invocations of ROWS rows
// each (dmmv_intdot_block_teams.glsl), workgroup size 32 * 32 / ROWS.
//
// Needs NUM_COLS = 1, ACCUMULATE = 1 and rows a multiple of 32 (engine/ops/dmmv_intdot_op.cpp
// checks); pc.row_base is the slice's first row in y and in the norm's output.
#ifndef PB_DMMV_INTDOT_NORM_EPILOGUE_GLSL
#define PB_DMMV_INTDOT_NORM_EPILOGUE_GLSL

layout(binding = 4) readonly buffer NormWeight { float norm_weight[]; };
#include "norm_weight_add_one.glsl"
layout(binding = 7) writeonly buffer BlockSquares { float block_squares[]; };

#include "dmmv_intdot_block_teams.glsl"
shared float block_values[TEAM];  // the workgroup's block of y, in order

void main() {
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint t = subgroup_major_index();
  const uint team = t / TEAM, lane = t % TEAM;
  const uint block_row = group * TEAM;  // the workgroup's first row, in this slice
  const uint first_row = block_row + team * ROWS;
  // What the epilogue reads, loaded before the loop so that it waits on no memory at the end:
  // lane r < ROWS of a team its row of y, the block's holders (below) their norm weight.
  const float y_old = lane < ROWS ? y[pc.y_offset + pc.row_base + first_row + lane] : 0.0;
  const bool holds = t < TEAM;
  const uint row = pc.row_base + block_row + t;  // the norm's element, for the holders
  const float weight = holds ? applied_norm_weight(norm_weight[row]) : 0.0;
  accumulate_team_rows(first_row, 0u, lane);

  // Lane r of a team adds row r of its rows into y (acc indexed by constants only).
  [[unroll]] for (int r = 0; r < ROWS; ++r) {
    if (lane == uint(r)) {
      const float value = y_old + acc[r];
      y[pc.y_offset + pc.row_base + first_row + uint(r)] = value;
      block_values[team * ROWS + uint(r)] = value;
    }
  }
  barrier();

  const float value = holds ? block_values[t] : 0.0;
  quantize_owned_block(value * weight, holds, row, pc.row_base + block_row);
  const float squares = block_float_sum(value * value, TEAM);
  if (t == 0u) block_squares[row / TEAM] = squares;
}

#endif  // PB_DMMV_INTDOT_NORM_EPILOGUE_GLSL
