// The accumulators of the DMMV bodies (dmmv_body.glsl, moe_dmmv_body.glsl,
// dmmv_intdot_body.glsl): each invocation adds its share of ROWS rows x NUM_COLS columns into
// acc, then the workgroup combines them, within subgroups and then across them in subgroup
// order through shared memory.
//
// The includer declares ROWS, NUM_COLS and its workgroup size first, and enables
// GL_KHR_shader_subgroup_basic and _arithmetic.
#ifndef PB_ROW_ACCUMULATORS_GLSL
#define PB_ROW_ACCUMULATORS_GLSL
#extension GL_EXT_control_flow_attributes : require

float acc[ROWS * NUM_COLS];

// Subgroup partial sums, one row of ROWS * NUM_COLS per subgroup. Sized for the smallest
// subgroup phasebench runs on (8, lavapipe).
shared float partial[(gl_WorkGroupSize.x / 8) * ROWS * NUM_COLS];

// Every invocation calls this (it has a barrier): each subgroup's sums of acc go to partial.
// Unrolled, so that acc[] is indexed by constants and can live in registers (a rolled loop
// indexes it at run time); the float DMMV's 8 columns of F16 took 135 instead of 185 us on an
// H200 (ffn_down 4096x14336), and the other spec DMMVs measured within 3% of before.
void publish_partials() {
  [[unroll]] for (int i = 0; i < ROWS * NUM_COLS; ++i) {
    const float sum = subgroupAdd(acc[i]);
    if (subgroupElect()) partial[gl_SubgroupID * (ROWS * NUM_COLS) + i] = sum;
  }
  barrier();
}

// The workgroup's sum of acc[i] (i = r * NUM_COLS + c), after publish_partials.
float workgroup_total(uint i) {
  float total = 0.0;
  for (uint g = 0; g < gl_NumSubgroups; ++g) total += partial[g * (ROWS * NUM_COLS) + i];
  return total;
}

#endif  // PB_ROW_ACCUMULATORS_GLSL
