# The tool block of every result names the exact build: version, commit and build type. The
# commit is read again at every build (target pb_build_info, cmake/WriteBuildInfo.cmake), not
# only at configure time: a rebuild after a commit must not report the commit before it.
find_package(Git QUIET)
set(PHASEBENCH_BUILD_INFO_CPP ${PROJECT_BINARY_DIR}/generated/build_info.cpp)
set(_pb_build_info_command
    ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUTPUT=${PHASEBENCH_BUILD_INFO_CPP}
    -DGIT_EXECUTABLE=${GIT_EXECUTABLE} -DPROJECT_VERSION=${PROJECT_VERSION}
    -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE} -DCMAKE_CXX_COMPILER_ID=${CMAKE_CXX_COMPILER_ID}
    -DCMAKE_CXX_COMPILER_VERSION=${CMAKE_CXX_COMPILER_VERSION}
    -DPHASEBENCH_GLSLANG_VERSION=${PHASEBENCH_GLSLANG_VERSION}
    -DPHASEBENCH_HAS_COOPMAT_CPP=${PHASEBENCH_HAS_COOPMAT_CPP}
    -DPHASEBENCH_HAS_INTDOT_CPP=${PHASEBENCH_HAS_INTDOT_CPP}
    -P ${PROJECT_SOURCE_DIR}/cmake/WriteBuildInfo.cmake)
execute_process(COMMAND ${_pb_build_info_command})  # the file exists before the first build
add_custom_target(pb_build_info COMMAND ${_pb_build_info_command} BYPRODUCTS ${PHASEBENCH_BUILD_INFO_CPP}
                  COMMENT "phasebench: build info (commit)" VERBATIM)
