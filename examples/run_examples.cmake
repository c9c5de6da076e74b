# run_examples.cmake - included from examples/CMakeLists.txt.  Builds the host
# program that runs the bundled examples (transpose.cute, sgemm.cute) through
# the runtime, and registers the CTest test `example_run` (labels gpu;examples;
# exit 77 = skipped when there is no GPU).  The PTX comes from the cutec
# compiler when the target `cutec` exists, or from CUTEC_PREBUILT_PTX_DIR
# (for the GPU machine, which has no LLVM and so cannot build cutec).

add_executable(run_examples ${CMAKE_CURRENT_LIST_DIR}/run_examples.c)
target_link_libraries(run_examples PRIVATE cutec_rt)
if(UNIX)
  target_link_libraries(run_examples PRIVATE m)
endif()
target_compile_options(run_examples PRIVATE ${CUTEC_WARNINGS})

set(CUTEC_PREBUILT_PTX_DIR "" CACHE PATH
    "Directory holding transpose.ptx and sgemm.ptx to use instead of compiling the examples with cutec")

set(_example_ptx_dir "")
if(CUTEC_PREBUILT_PTX_DIR)
  set(_example_ptx_dir ${CUTEC_PREBUILT_PTX_DIR})
elseif(TARGET cutec)
  set(_example_ptx_dir ${CMAKE_CURRENT_BINARY_DIR})
  set(_example_ptx)
  foreach(_ex transpose sgemm)
    add_custom_command(
      OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${_ex}.ptx
      COMMAND $<TARGET_FILE:cutec> ${CMAKE_CURRENT_SOURCE_DIR}/${_ex}.cute
              -o ${CMAKE_CURRENT_BINARY_DIR}/${_ex}.ptx
      DEPENDS cutec ${CMAKE_CURRENT_SOURCE_DIR}/${_ex}.cute
      COMMENT "cutec ${_ex}.cute -> ${_ex}.ptx"
      VERBATIM)
    list(APPEND _example_ptx ${CMAKE_CURRENT_BINARY_DIR}/${_ex}.ptx)
  endforeach()
  add_custom_target(example_ptx ALL DEPENDS ${_example_ptx})
  # Building run_examples (e.g. --target run_examples) also builds its input.
  add_dependencies(run_examples example_ptx)
endif()

if(_example_ptx_dir)
  add_test(NAME example_run
           COMMAND run_examples ${_example_ptx_dir}/transpose.ptx ${_example_ptx_dir}/sgemm.ptx)
  set_tests_properties(example_run PROPERTIES LABELS "gpu;examples" SKIP_RETURN_CODE 77
                       TIMEOUT 600)
endif()
