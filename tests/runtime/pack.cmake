# pack.cmake - included from tests/runtime/CMakeLists.txt: tests of kernel
# packs, launch from manifests, the autotuned GEMM, cutec-tune and the
# installed package.  Labels: cpu;runtime;pack for the CPU cases (the mock
# ones also carry "mock"), gpu;runtime;pack for the GPU ones (exit 77 = no GPU).
#
# The GEMM cases use a small pack of the stdlib GEMM (12 tune points, PTX
# only, sm_80 so that it also runs on later GPUs), built with cutec when the
# compiler is built, or taken from CUTEC_PREBUILT_PACK_DIR/test_gemm.pack on
# the GPU machine (which has no LLVM).

add_executable(test_pack test_pack.c)
target_include_directories(test_pack PRIVATE ${PROJECT_SOURCE_DIR}/runtime)
target_link_libraries(test_pack PRIVATE cutec_rt m)
target_compile_options(test_pack PRIVATE ${CUTEC_WARNINGS})

add_library(cutec_mock_cublaslt MODULE mock_cublaslt.c)
target_compile_options(cutec_mock_cublaslt PRIVATE ${CUTEC_WARNINGS})
target_link_libraries(cutec_mock_cublaslt PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(test_pack cutec_mock_cublaslt cutec_mock_driver)

set(CUTEC_PREBUILT_PACK_DIR "" CACHE PATH
    "Directory holding prebuilt kernel packs (test_gemm.pack, gemm_sm80.pack) for machines without the compiler")
# A test pack: OUT_VAR gets CUTEC_PREBUILT_PACK_DIR/NAME.pack where that
# exists (the GPU machine has no compiler), else NAME.pack built here from
# SOURCE with the remaining arguments (PTX only, sm_80), else "".
function(cutec_test_pack OUT_VAR NAME SOURCE WHAT)
  set(_pack "")
  if(CUTEC_PREBUILT_PACK_DIR AND EXISTS ${CUTEC_PREBUILT_PACK_DIR}/${NAME}.pack)
    set(_pack ${CUTEC_PREBUILT_PACK_DIR}/${NAME}.pack)
  elseif(TARGET cutec)
    set(_pack ${CMAKE_CURRENT_BINARY_DIR}/${NAME}.pack)
    file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${SOURCE})
    add_custom_command(OUTPUT ${_pack}
      COMMAND $<TARGET_FILE:cutec> pack ${SOURCE} --arch=sm_80 --no-cubin ${ARGN} -o ${_pack}
      DEPENDS cutec ${SOURCE}
      COMMENT "cutec pack ${_rel} -> ${NAME}.pack (${WHAT}, PTX)"
      VERBATIM)
    add_custom_target(${NAME}_pack ALL DEPENDS ${_pack})
    add_dependencies(test_pack ${NAME}_pack)
  endif()
  set(${OUT_VAR} ${_pack} PARENT_SCOPE)
endfunction()
cutec_test_pack(_test_pack test_gemm ${PROJECT_SOURCE_DIR}/stdlib/sm80/gemm.cute "12 points"
                -D BK=32 -D STAGES=3 -D WM=2 -D WN=2)

set(_va ${CMAKE_CURRENT_SOURCE_DIR}/vector_add.ptx)
set(_pack_cpu_tests pack_cpu_format pack_cpu_manifest pack_cpu_gemm_args)
add_test(NAME pack_cpu_format COMMAND test_pack format ${_va})
add_test(NAME pack_cpu_manifest COMMAND test_pack manifest)
add_test(NAME pack_cpu_gemm_args COMMAND test_pack gemm_args)

set(_mock_env "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>"
              "CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>"
              "CUTEC_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-unused")
set(_pack_mock_tests pack_mock_arch pack_mock_launch)
add_test(NAME pack_mock_arch COMMAND test_pack arch ${_va})
add_test(NAME pack_mock_launch COMMAND test_pack launch ${_va})
set(_pack_gpu_tests pack_gpu_arch pack_gpu_launch)
add_test(NAME pack_gpu_arch COMMAND test_pack arch ${_va})
add_test(NAME pack_gpu_launch COMMAND test_pack launch ${_va})
if(_test_pack)
  foreach(_case gemm gemm_errors layouts)
    add_test(NAME pack_mock_${_case} COMMAND test_pack ${_case} ${_test_pack})
    add_test(NAME pack_gpu_${_case} COMMAND test_pack ${_case} ${_test_pack})
    list(APPEND _pack_mock_tests pack_mock_${_case})
    list(APPEND _pack_gpu_tests pack_gpu_${_case})
  endforeach()
  # candidates with BM=64 compute wrong results in the mock: they must score +inf
  set_property(TEST pack_mock_gemm APPEND PROPERTY ENVIRONMENT "CUTEC_MOCK_WRONG=BM 64")
  # a candidate that faults while tuned is quarantined; the next runtime skips it (mock only: it faults on request)
  add_test(NAME pack_mock_gemm_quarantine COMMAND test_pack gemm_quarantine ${_test_pack})
  list(APPEND _pack_mock_tests pack_mock_gemm_quarantine)
  add_test(NAME pack_cpu_tune_list COMMAND cutec-tune list ${_test_pack})
  set_tests_properties(pack_cpu_tune_list PROPERTIES PASS_REGULAR_EXPRESSION "12 entries, arch sm_80")
  list(APPEND _pack_cpu_tests pack_cpu_tune_list)
  add_test(NAME pack_mock_tune_cli
           COMMAND cutec-tune tune ${_test_pack} --m 64 --n 64 --k 64 --no-cache --json)
  set_tests_properties(pack_mock_tune_cli PROPERTIES PASS_REGULAR_EXPRESSION "\"winner\": \"gemm_sm80")
  add_test(NAME pack_mock_bench_cli
           COMMAND cutec-tune bench ${_test_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --no-cache)
  set_tests_properties(pack_mock_bench_cli PROPERTIES PASS_REGULAR_EXPRESSION "tiny +64 +64 +64")
  # --json names the fastest pack kernel even where cuBLASLt wins
  add_test(NAME pack_mock_bench_json
           COMMAND cutec-tune bench ${_test_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --no-cache --json)
  set_tests_properties(pack_mock_bench_json PROPERTIES PASS_REGULAR_EXPRESSION "\"best_dsl\": \"gemm_sm80 T=bf16")
  # every pack kernel wrong: cuBLASLt wins and no DSL kernel is named
  add_test(NAME pack_mock_bench_no_dsl
           COMMAND cutec-tune bench ${_test_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --no-cache)
  set_tests_properties(pack_mock_bench_no_dsl PROPERTIES PASS_REGULAR_EXPRESSION "cublasLt algo #0 \\(best DSL: none\\)")
  set_property(TEST pack_mock_bench_no_dsl APPEND PROPERTY ENVIRONMENT "CUTEC_MOCK_WRONG=T bf16")
  # a GPU that slows down launch by launch (the mock's CUTEC_MOCK_DRIFT): the
  # tuner still finds the pack's fastest kernel (128 x 128 in the mock's cost
  # model) on both shapes, because it times all candidates in the same
  # rounds; timed one after another (before 2026-11-22) it picked 64 x 64
  # and 64 x 128 kernels, timed early
  add_test(NAME pack_mock_bench_drift
           COMMAND cutec-tune bench ${_test_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --no-cache --json)
  set_tests_properties(pack_mock_bench_drift PROPERTIES
    PASS_REGULAR_EXPRESSION "\"best_dsl\": \"gemm_sm80 T=bf16 TC=bf16 BM=128 BN=128 "
    FAIL_REGULAR_EXPRESSION "\"best_dsl\": \"gemm_sm80 T=bf16 TC=bf16 BM=(64|256) ;\"best_dsl\": \"gemm_sm80 T=bf16 TC=bf16 BM=128 BN=(64|256) ;\"best_dsl\": null")
  set_property(TEST pack_mock_bench_drift APPEND PROPERTY ENVIRONMENT "CUTEC_MOCK_DRIFT=0.02")
  # bench first tunes its first shape once, unreported (the first tuning in
  # a process measured pack kernels slower on the H100); --no-warmup skips it
  add_test(NAME pack_mock_bench_warmup
           COMMAND cutec-tune bench ${_test_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --no-cache --verbose)
  set_tests_properties(pack_mock_bench_warmup PROPERTIES
    PASS_REGULAR_EXPRESSION "warm-up tuning of tiny \\(not reported\\)")
  add_test(NAME pack_mock_bench_no_warmup
           COMMAND cutec-tune bench ${_test_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --no-cache --verbose --no-warmup)
  set_tests_properties(pack_mock_bench_no_warmup PROPERTIES
    PASS_REGULAR_EXPRESSION "tiny +64 +64 +64" FAIL_REGULAR_EXPRESSION "warm-up")
  # the bench's geometric means, recomputed from its per-shape ratios
  add_test(NAME pack_mock_bench_geomean
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_geomean.sh $<TARGET_FILE:cutec-tune> bench ${_test_pack}
                   --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --no-cache --json)
  set_tests_properties(pack_mock_bench_geomean PROPERTIES PASS_REGULAR_EXPRESSION "check_geomean: PASS: 2 shapes"
                       FAIL_REGULAR_EXPRESSION "FAIL")
  add_test(NAME pack_mock_overhead_cli
           COMMAND cutec-tune overhead ${_test_pack} --m 64 --n 64 --k 64 --calls 256 --no-cache)
  set_tests_properties(pack_mock_overhead_cli PROPERTIES PASS_REGULAR_EXPRESSION "us over 256 calls")
  list(APPEND _pack_mock_tests pack_mock_tune_cli pack_mock_bench_cli pack_mock_bench_json pack_mock_bench_no_dsl
       pack_mock_bench_drift pack_mock_bench_warmup pack_mock_bench_no_warmup pack_mock_bench_geomean
       pack_mock_overhead_cli)
endif()
# The quarantine on the GPU: a pack whose BM = 128 kernel really faults
# (fault_gemm.cute), built here or taken from CUTEC_PREBUILT_PACK_DIR
cutec_test_pack(_fault_pack fault_gemm ${CMAKE_CURRENT_SOURCE_DIR}/fault_gemm.cute "2 points")
if(_fault_pack)
  add_test(NAME pack_gpu_gemm_quarantine COMMAND test_pack gemm_quarantine_gpu ${_fault_pack})
  list(APPEND _pack_gpu_tests pack_gpu_gemm_quarantine)
endif()
add_test(NAME pack_cpu_tune_no_gpu COMMAND cutec-tune tune ${_va} --m 8 --n 8 --k 8)
set_tests_properties(pack_cpu_tune_no_gpu PROPERTIES ENVIRONMENT "CUTEC_CUDA_DRIVER=/nonexistent"
                     PASS_REGULAR_EXPRESSION "CUDA driver not available")
list(APPEND _pack_cpu_tests pack_cpu_tune_no_gpu)

# The installed package: cmake --install into a temporary prefix, then a
# consumer project that uses find_package(cutec) and pkg-config, and the
# installed cutec with its installed standard library (install_compiler.cmake).
add_test(NAME pack_cpu_install
  COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR}
          -DCONSUMER_DIR=${CMAKE_CURRENT_SOURCE_DIR}/consumer
          -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install-test
          -DC_COMPILER=${CMAKE_C_COMPILER} -DSANITIZE=${CUTEC_SANITIZE}
          -DHAVE_COMPILER=$<TARGET_EXISTS:cutec> -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/install_test.cmake)
list(APPEND _pack_cpu_tests pack_cpu_install)

set_tests_properties(${_pack_cpu_tests} PROPERTIES LABELS "cpu;runtime;pack" TIMEOUT 300)
set_tests_properties(${_pack_mock_tests} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 300)
set_property(TEST ${_pack_mock_tests} APPEND PROPERTY ENVIRONMENT ${_mock_env})
set_tests_properties(${_pack_gpu_tests} PROPERTIES LABELS "gpu;runtime;pack" SKIP_RETURN_CODE 77
                     TIMEOUT 600)
