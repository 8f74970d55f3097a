#version 450
// Decode's experts' down projection over stacked Q4_K weights that also adds the K experts into the
// residual and writes the next RMSNorm's int8 input (include/moe_dmmv_intdot_acc_norm.glsl), in
// the dense kernel's chunks (include/dmmv_intdot_q4_k.glsl).
#extension GL_GOOGLE_include_directive : require

#define MOE_DMMV
#define MOE_ACC_NORM_EPILOGUE
#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q4_k.glsl"
#include "dmmv_intdot_body.glsl"
