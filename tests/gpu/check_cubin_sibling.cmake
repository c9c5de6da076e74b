# check_cubin_sibling.cmake: gemm_check loads X.cubin instead of X.ptx where
# it lies beside it and is no older (module_image), and the PTX otherwise.
# On the mock driver, which takes PTX text only, the "cubin" is a copy of
# the PTX: the runtime recognises images by content, so it loads either way,
# and the line gemm_check prints says which file it chose.
# Run as: cmake -DGEMM_CHECK=... -DPTX=file.ptx -DWORK=dir -P check_cubin_sibling.cmake
# (with CUTEC_CUDA_DRIVER naming the mock driver in the environment)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
get_filename_component(stem ${PTX} NAME_WE)
set(ptx ${WORK}/${stem}.ptx)
set(cubin ${WORK}/${stem}.cubin)
file(COPY_FILE ${PTX} ${ptx})
function(run_check expect_cubin what)
  execute_process(COMMAND ${GEMM_CHECK} --ragged-only --batch 1 ${ptx} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "1/1 cases passed, 0 failure")
    message(FATAL_ERROR "${what}: gemm_check failed (${rc}):\n${out}${err}")
  endif()
  set(line "gemm_check: 1 of 1 file[(]s[)] loaded from the cubin beside the PTX")
  if(expect_cubin AND NOT out MATCHES "${line}")
    message(FATAL_ERROR "${what}: the cubin beside the PTX was not loaded:\n${out}")
  elseif(NOT expect_cubin AND out MATCHES "${line}")
    message(FATAL_ERROR "${what}: a cubin was loaded where none should be:\n${out}")
  endif()
endfunction()
run_check(0 "no cubin")
file(COPY_FILE ${PTX} ${cubin})
file(TOUCH ${cubin})
run_check(1 "a newer cubin")
# a cubin older than its PTX (the PTX compiled again since) is stale
execute_process(COMMAND touch -d "2001-01-01 00:00:00" ${cubin})
run_check(0 "an older cubin")
message("cubin beside the PTX: taken when no older, passed over when older or missing")
