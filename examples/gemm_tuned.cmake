# gemm_tuned.cmake - the example that embeds the runtime and multiplies
# through the autotuned GEMM (examples/gemm_tuned.c), and the kernel pack of
# the stdlib GEMM it loads.  Include from examples/CMakeLists.txt with
#   include(${CMAKE_CURRENT_SOURCE_DIR}/gemm_tuned.cmake)
# The pack comes from `cutec pack stdlib/sm80/gemm.cute` (every tune point,
# PTX and cubin, for CUTEC_GEMM_PACK_ARCH, default sm_90a = H100/H200) when
# the compiler is built, or from CUTEC_PREBUILT_PACK_DIR/gemm_sm80.pack on
# the GPU machine (no LLVM there).  CTest: example_gemm_tuned (gpu;examples,
# 77 = skipped without a GPU).

add_executable(gemm_tuned ${CMAKE_CURRENT_LIST_DIR}/gemm_tuned.c)
target_link_libraries(gemm_tuned PRIVATE cutec_rt m)
target_compile_options(gemm_tuned PRIVATE ${CUTEC_WARNINGS})

set(CUTEC_GEMM_PACK_ARCH "sm_90a" CACHE STRING "Target of the stdlib GEMM pack built for the examples (sm_90a or sm_80)")
set(CUTEC_PREBUILT_PACK_DIR "" CACHE PATH
    "Directory holding prebuilt kernel packs (gemm_sm80.pack, test_gemm.pack) for machines without the compiler")
set(_gemm_pack "")
if(CUTEC_PREBUILT_PACK_DIR AND EXISTS ${CUTEC_PREBUILT_PACK_DIR}/gemm_sm80.pack)
  set(_gemm_pack ${CUTEC_PREBUILT_PACK_DIR}/gemm_sm80.pack)
elseif(TARGET cutec)
  set(_gemm_pack ${CMAKE_CURRENT_BINARY_DIR}/gemm_sm80.pack)
  add_custom_command(OUTPUT ${_gemm_pack}
    COMMAND $<TARGET_FILE:cutec> pack ${PROJECT_SOURCE_DIR}/stdlib/sm80/gemm.cute
            --arch=${CUTEC_GEMM_PACK_ARCH} -o ${_gemm_pack}
    DEPENDS cutec ${PROJECT_SOURCE_DIR}/stdlib/sm80/gemm.cute
    COMMENT "cutec pack stdlib/sm80/gemm.cute -> gemm_sm80.pack (every tune point, ${CUTEC_GEMM_PACK_ARCH})"
    VERBATIM)
  add_custom_target(gemm_pack ALL DEPENDS ${_gemm_pack})
  add_dependencies(gemm_tuned gemm_pack)
endif()

if(_gemm_pack)
  add_test(NAME example_gemm_tuned COMMAND gemm_tuned ${_gemm_pack})
  set_tests_properties(example_gemm_tuned PROPERTIES LABELS "gpu;examples" SKIP_RETURN_CODE 77
                       TIMEOUT 900
                       ENVIRONMENT "CUTEC_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/tune-cache")
endif()
