# Finds glslangValidator and probes what it can compile. A glslang built by
# `scripts/setup --glslang-from-source` (third_party/glslang) wins over the system one,
# because Debian 12's glslang 12 lacks GL_KHR_cooperative_matrix and GL_EXT_integer_dot_product.
find_program(GLSLANG_VALIDATOR glslangValidator
             PATHS ${PROJECT_SOURCE_DIR}/third_party/glslang/bin NO_DEFAULT_PATH)
find_program(GLSLANG_VALIDATOR glslangValidator)
phasebench_require(GLSLANG_VALIDATOR "glslangValidator" glslang-tools)

execute_process(COMMAND ${GLSLANG_VALIDATOR} --version OUTPUT_VARIABLE _glslang_version_text)
string(REGEX MATCH "Glslang Version: [0-9]+:([0-9.]+)" _m "${_glslang_version_text}")
set(PHASEBENCH_GLSLANG_VERSION "${CMAKE_MATCH_1}")

set(PHASEBENCH_SPIRV_ENV vulkan1.3)

# Compiles a one-line probe shader using `extension`; sets `result` to ON when it compiles.
function(phasebench_probe_glsl result extension body)
  set(_dir ${PROJECT_BINARY_DIR}/glsl-probes)
  file(MAKE_DIRECTORY ${_dir})
  file(WRITE ${_dir}/${result}.comp
       "#version 450\n#extension ${extension} : require\n"
       "#extension GL_EXT_shader_explicit_arithmetic_types : require\n"
       "layout(local_size_x = 32) in;\n${body}\n")
  execute_process(COMMAND ${GLSLANG_VALIDATOR} -V --target-env ${PHASEBENCH_SPIRV_ENV}
                          ${_dir}/${result}.comp -o ${_dir}/${result}.spv
                  RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
  if(_rc EQUAL 0)
    set(${result} ON PARENT_SCOPE)
  else()
    set(${result} OFF PARENT_SCOPE)
  endif()
endfunction()

phasebench_probe_glsl(PHASEBENCH_HAS_COOPMAT GL_KHR_cooperative_matrix
  "#extension GL_KHR_memory_scope_semantics : require
   void main() { coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a; }")
phasebench_probe_glsl(PHASEBENCH_HAS_INTDOT GL_EXT_integer_dot_product
  "void main() { int r = dotPacked4x8EXT(1, 2); }")

if(PHASEBENCH_HAS_COOPMAT)
  set(PHASEBENCH_HAS_COOPMAT_CPP true)
else()
  set(PHASEBENCH_HAS_COOPMAT_CPP false)
endif()
if(PHASEBENCH_HAS_INTDOT)
  set(PHASEBENCH_HAS_INTDOT_CPP true)
else()
  set(PHASEBENCH_HAS_INTDOT_CPP false)
endif()

message(STATUS "phasebench: glslang ${PHASEBENCH_GLSLANG_VERSION} at ${GLSLANG_VALIDATOR}")
message(STATUS "phasebench: cooperative-matrix shaders (GL_KHR_cooperative_matrix): ${PHASEBENCH_HAS_COOPMAT}")
message(STATUS "phasebench: integer-dot shaders (GL_EXT_integer_dot_product): ${PHASEBENCH_HAS_INTDOT}")
if(NOT PHASEBENCH_HAS_COOPMAT)
  message(STATUS "phasebench: kernels that need cooperative matrix are left out; "
                 "`scripts/setup --glslang-from-source` builds a glslang that has it")
endif()
