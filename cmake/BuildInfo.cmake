# The tool block of every result names the exact build: version, commit and build type.
find_package(Git QUIET)
set(PHASEBENCH_GIT_COMMIT "unknown")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0)
    set(PHASEBENCH_GIT_COMMIT "${_commit}")
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE _dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_dirty)
      set(PHASEBENCH_GIT_COMMIT "${PHASEBENCH_GIT_COMMIT}-dirty")
    endif()
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/build_info.cpp.in
               ${PROJECT_BINARY_DIR}/generated/build_info.cpp @ONLY)
