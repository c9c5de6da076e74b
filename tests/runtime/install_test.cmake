# install_test.cmake - run by the CTest pack_cpu_install (cmake -P): installs
# the build tree into a fresh prefix, then configures, builds and runs the
# consumer project (find_package(cutec) and pkg-config) against it.  With
# the compiler (HAVE_COMPILER), the installed cutec must compile from a
# directory outside the source tree with its installed standard library
# (share/cutec/stdlib, found relative to the binary), not the source tree's.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
foreach(f include/cutec/cutec.h include/cutec/runtime.h include/cutec/pack.h include/cutec/gemm.h
          bin/cutec-tune)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# the shared runtime for the Python package, apart from the archive (where
# built: not under the sanitizers)
file(GLOB shared_rt ${prefix}/lib*/cutec/libcutec_rt.so)
if(HAVE_SHARED AND NOT shared_rt)
  message(FATAL_ERROR "not installed: lib/cutec/libcutec_rt.so")
endif()
if(HAVE_COMPILER)
  include(${CMAKE_CURRENT_LIST_DIR}/install_compiler.cmake)
endif()
file(GLOB pc ${prefix}/lib*/pkgconfig/cutec.pc)
file(GLOB cfg ${prefix}/lib*/cmake/cutec/cutecConfig.cmake)
if(NOT pc OR NOT cfg)
  message(FATAL_ERROR "cutec.pc or cutecConfig.cmake not installed")
endif()
set(flags "")
if(SANITIZE)
  set(flags "-fsanitize=address,undefined")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build
                        -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER}
                        "-DCMAKE_C_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "building the consumer failed:\n${out}")
endif()
execute_process(COMMAND ${WORK_DIR}/build/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "the consumer failed (${rc}):\n${out}")
endif()
# pkg-config, where installed
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  get_filename_component(pcdir ${pc} DIRECTORY)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pcdir}
                          ${PKG_CONFIG} --cflags --libs cutec
                  RESULT_VARIABLE rc OUTPUT_VARIABLE pcflags OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc)
    message(FATAL_ERROR "pkg-config --cflags --libs cutec failed")
  endif()
  separate_arguments(pcflags UNIX_COMMAND "${pcflags}")
  separate_arguments(sflags UNIX_COMMAND "${flags}")
  execute_process(COMMAND ${C_COMPILER} ${sflags} ${CONSUMER_DIR}/main.c -o ${WORK_DIR}/consumer_pc
                          ${pcflags}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc)
    message(FATAL_ERROR "building with pkg-config flags failed:\n${out}")
  endif()
  execute_process(COMMAND ${WORK_DIR}/consumer_pc RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "the pkg-config consumer failed (${rc})")
  endif()
endif()
message(STATUS "install test: ok (${prefix})")
