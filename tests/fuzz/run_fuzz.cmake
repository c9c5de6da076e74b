# run_fuzz.cmake: one short libFuzzer run (the fuzz.NAME tests).  The work
# corpus starts empty every time, so that a run depends only on the seeds,
# the options (-seed, -runs) and the code; new inputs and any crash go under
# WORK.  cmake -DHARNESS=EXE -DWORK=DIR -DOPTIONS=a;b -DSEEDS=d1;d2 -P run_fuzz.cmake
foreach(_v HARNESS WORK SEEDS)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "run_fuzz.cmake: -D${_v}=... is missing")
  endif()
endforeach()
foreach(_d IN LISTS SEEDS)
  if(NOT IS_DIRECTORY ${_d})
    message(FATAL_ERROR "run_fuzz.cmake: no seed directory ${_d} (build the target fuzz_harnesses)")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/artifacts)
execute_process(COMMAND ${HARNESS} ${OPTIONS} -print_final_stats=1 -artifact_prefix=${WORK}/artifacts/
                        ${WORK}/corpus ${SEEDS}
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "run_fuzz.cmake: ${HARNESS} exited with ${_rc}; its input is in ${WORK}/artifacts")
endif()
