# Writes build_info.cpp (cmake -P, run at every build by BuildInfo.cmake's pb_build_info
# target): the commit as it is now, "-dirty" when tracked files differ from it, and the
# configure-time values passed in with -D. configure_file leaves the file alone when its text
# is unchanged, so a build at the same commit recompiles nothing.
#   -DSOURCE_DIR -DOUTPUT -DGIT_EXECUTABLE and the template's other variables
set(PHASEBENCH_GIT_COMMIT "unknown")
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD
                  WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE _commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0)
    set(PHASEBENCH_GIT_COMMIT "${_commit}")
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
                    WORKING_DIRECTORY ${SOURCE_DIR}
                    OUTPUT_VARIABLE _dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_dirty)
      set(PHASEBENCH_GIT_COMMIT "${PHASEBENCH_GIT_COMMIT}-dirty")
    endif()
  endif()
endif()
configure_file(${SOURCE_DIR}/cmake/build_info.cpp.in ${OUTPUT} @ONLY)
