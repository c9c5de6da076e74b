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
target_include_directories(test_pack PRIVATE ${PROJECT_SOURCE_DIR}/runtime ${PROJECT_SOURCE_DIR}/contract)
target_link_libraries(test_pack PRIVATE cutec_rt m)
target_compile_options(test_pack PRIVATE ${CUTEC_WARNINGS})

add_library(cutec_mock_cublaslt MODULE mock_cublaslt.c)
target_compile_options(cutec_mock_cublaslt PRIVATE ${CUTEC_WARNINGS})
target_link_libraries(cutec_mock_cublaslt PRIVATE ${CMAKE_DL_LIBS} m pthread)
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
# cutec_tune_cli(NAME EXIT OUT_RE ERR_RE ARGS...): cutec-tune ARGS must exit
# with EXIT, print a line matching OUT_RE on stdout and one matching ERR_RE
# on stderr ('-': not checked; EMPTY: nothing printed), through check_cli.sh.
# No ';' in a regular expression: CMake would split the argument there.
# The caller adds NAME to a list of tests (for its labels and environment).
set(_cli_tests)
function(cutec_tune_cli name exit out_re err_re)
  add_test(NAME ${name} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_cli.sh ${exit} ${out_re} ${err_re}
                                $<TARGET_FILE:cutec-tune> ${ARGN})
  set(_cli_tests ${_cli_tests} ${name} PARENT_SCOPE)
endfunction()
add_test(NAME pack_cpu_format COMMAND test_pack format ${_va})
add_test(NAME pack_cpu_manifest COMMAND test_pack manifest)
add_test(NAME pack_cpu_gemm_args COMMAND test_pack gemm_args)
# only regular files up to 1 GiB; NaN / infinite alpha and beta are argument errors
add_test(NAME pack_cpu_files COMMAND test_pack files)
add_test(NAME pack_cpu_gemm_nonfinite COMMAND test_pack gemm_nonfinite)
list(APPEND _pack_cpu_tests pack_cpu_files pack_cpu_gemm_nonfinite)
# the problem's struct_size (older and newer callers); the cache's key API
add_test(NAME pack_cpu_gemm_problem_size COMMAND test_pack gemm_problem_size)
add_test(NAME pack_cpu_cache_keys COMMAND test_pack cache_keys)
list(APPEND _pack_cpu_tests pack_cpu_gemm_problem_size pack_cpu_cache_keys)

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
  # gemm_handles: handles on one runtime are independent, a pack's unload
  # withdraws it from each, a runtime destroyed first detaches them
  foreach(_case gemm gemm_errors layouts gemm_handles)
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
  # fast against exhaustive tuning in one run: both winners' times, their ratio, both tuning times
  add_test(NAME pack_mock_bench_compare_exhaustive
           COMMAND cutec-tune bench ${_test_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --no-cache
                   --shortlist 4 --compare-exhaustive)
  set_tests_properties(pack_mock_bench_compare_exhaustive PROPERTIES
    PASS_REGULAR_EXPRESSION "fast against exhaustive tuning in the same rounds \\(the exhaustive tuning's\\) over [12] of 2 shapes: [0-9.]+ \\(geometric mean\\)")
  add_test(NAME pack_mock_bench_compare_exhaustive_json
           COMMAND cutec-tune bench ${_test_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --no-cache
                   --compare-exhaustive --json)
  set_tests_properties(pack_mock_bench_compare_exhaustive_json PROPERTIES
    PASS_REGULAR_EXPRESSION "\"fast_vs_exhaustive\": [0-9.]+, \"fast_vs_exhaustive_same_rounds\": [0-9.]+, \"exhaustive_tuning_seconds\": [0-9.]+, \"exhaustive_winner_in_fast\": \"the winner\"}")
  # the exhaustive winner's fate in the fast tuning: here the cost model's
  # one-kernel shortlist leaves it out, and the JSON says so
  add_test(NAME pack_mock_bench_compare_exhaustive_fate
           COMMAND cutec-tune bench ${_test_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --no-cache
                   --compare-exhaustive --json --shortlist 1)
  set_tests_properties(pack_mock_bench_compare_exhaustive_fate PROPERTIES
    PASS_REGULAR_EXPRESSION "\"exhaustive_winner_in_fast\": \"not timed: the cost model ranks it [0-9]+ of 12 \\(shortlist 1\\)\"}")
  list(APPEND _pack_mock_tests pack_mock_bench_compare_exhaustive pack_mock_bench_compare_exhaustive_json
       pack_mock_bench_compare_exhaustive_fate)
  add_test(NAME pack_mock_overhead_cli
           COMMAND cutec-tune overhead ${_test_pack} --m 64 --n 64 --k 64 --calls 256 --no-cache)
  set_tests_properties(pack_mock_overhead_cli PROPERTIES PASS_REGULAR_EXPRESSION "us over 256 calls")
  list(APPEND _pack_mock_tests pack_mock_tune_cli pack_mock_bench_cli pack_mock_bench_json pack_mock_bench_no_dsl
       pack_mock_bench_drift pack_mock_bench_warmup pack_mock_bench_no_warmup pack_mock_bench_geomean
       pack_mock_overhead_cli)
  add_test(NAME pack_mock_gemm_nonfinite COMMAND test_pack gemm_nonfinite ${_test_pack})
  list(APPEND _pack_mock_tests pack_mock_gemm_nonfinite)

  # cutec-tune's input: only regular files (a directory used to give an
  # empty table; /dev/zero never ended), shapes files of at most 1 MiB with
  # at least one shape, every I/O error with its reason
  set(_rt ${CMAKE_CURRENT_SOURCE_DIR})
  set(_shapes_limit ${CMAKE_CURRENT_BINARY_DIR}/shapes_1mib.txt)
  set(_shapes_over ${CMAKE_CURRENT_BINARY_DIR}/shapes_over_1mib.txt)
  set(_shapes_empty ${CMAKE_CURRENT_BINARY_DIR}/shapes_empty.txt)
  # exactly 1 MiB: one 16-byte shape line and 65535 16-byte comments; one byte more is too much
  string(REPEAT "#23456789abcdef\n" 65535 _pad)
  file(WRITE ${_shapes_limit} "x 64 64 64     \n${_pad}")
  file(WRITE ${_shapes_over} "x 64 64 64     \n${_pad}\n")
  file(WRITE ${_shapes_empty} "")
  cutec_tune_cli(pack_cpu_tune_list_dev_zero 1 EMPTY "^cutec-tune: error: '/dev/zero' is a character device, not a regular file$"
                 list /dev/zero)
  cutec_tune_cli(pack_cpu_tune_list_dir 1 EMPTY "^cutec-tune: error: '.*' is a directory, not a regular file$"
                 list ${_rt})
  cutec_tune_cli(pack_cpu_tune_list_missing 1 EMPTY
                 "^cutec-tune: error: cannot open '/nonexistent/x.pack': No such file or directory$"
                 list /nonexistent/x.pack)
  # output that cannot be written is a failure (the shell sends stdout to /dev/full)
  add_test(NAME pack_cpu_tune_list_full
           COMMAND sh ${_rt}/check_cli.sh 1 - "^cutec-tune: error: cannot write the output: No space left on device$"
                   sh -c "exec \"$0\" \"$@\" >/dev/full" $<TARGET_FILE:cutec-tune> list ${_test_pack})
  list(APPEND _cli_tests pack_cpu_tune_list_full)
  cutec_tune_cli(pack_mock_bench_shapes_dev_zero 1 EMPTY
                 "^cutec-tune: error: '/dev/zero' is a character device, not a regular file$"
                 bench ${_test_pack} --shapes /dev/zero --no-cache)
  cutec_tune_cli(pack_mock_bench_shapes_dir 1 EMPTY "^cutec-tune: error: '.*' is a directory, not a regular file$"
                 bench ${_test_pack} --shapes ${_rt} --no-cache)
  cutec_tune_cli(pack_mock_bench_shapes_missing 1 EMPTY
                 "^cutec-tune: error: cannot open '/nonexistent/shapes.txt': No such file or directory$"
                 bench ${_test_pack} --shapes /nonexistent/shapes.txt --no-cache)
  cutec_tune_cli(pack_mock_bench_shapes_empty 1 EMPTY "^cutec-tune: error: '.*' is empty"
                 bench ${_test_pack} --shapes ${_shapes_empty} --no-cache)
  cutec_tune_cli(pack_mock_bench_shapes_no_shape 1 EMPTY "^cutec-tune: error: '.*bad_shapes.txt' holds no shape"
                 bench ${_test_pack} --shapes ${_rt}/bad_shapes.txt --no-cache)
  cutec_tune_cli(pack_mock_bench_shapes_too_big 1 EMPTY "^cutec-tune: error: '.*' is larger than 1 MiB .the limit.$"
                 bench ${_test_pack} --shapes ${_shapes_over} --no-cache)
  cutec_tune_cli(pack_mock_bench_shapes_at_limit 0 "^x +64 +64 +64 " -
                 bench ${_test_pack} --shapes ${_shapes_limit} --no-cache --no-warmup)
  # with --json, the same failures as an object on stdout
  cutec_tune_cli(pack_mock_bench_shapes_json 1 "^[{]\"ok\": false, \"status\": \"CUTEC_ERR_IO\", .*is a directory"
                 "is a directory" bench ${_test_pack} --shapes ${_rt} --no-cache --json)

  # numbers: parsed whole and range-checked (--k 99999999999999999999 used
  # to overflow M * K; --runs and --device were truncated to int)
  cutec_tune_cli(pack_mock_tune_k_overflow 2 EMPTY
                 "^cutec-tune: error: option '--k': '99999999999999999999' is out of range .1 to 2147483647.$"
                 tune ${_test_pack} --m 64 --n 64 --k 99999999999999999999 --no-cache)
  cutec_tune_cli(pack_mock_tune_m_range 2 EMPTY "option '--m': '2147483648' is out of range .1 to 2147483647.$"
                 tune ${_test_pack} --m 2147483648 --n 64 --k 64 --no-cache)
  cutec_tune_cli(pack_mock_tune_not_integer 2 EMPTY "option '--n': ' 64' is not an integer$"
                 tune ${_test_pack} --m 64 --n " 64" --k 64 --no-cache)
  cutec_tune_cli(pack_mock_tune_runs_range 2 EMPTY "option '--runs': '4294967316' is out of range .20 to 10000.$"
                 tune ${_test_pack} --m 64 --n 64 --k 64 --runs 4294967316 --no-cache)
  cutec_tune_cli(pack_mock_tune_device_range 2 EMPTY "option '--device': '4294967296' is out of range"
                 tune ${_test_pack} --m 64 --n 64 --k 64 --device 4294967296 --no-cache)
  cutec_tune_cli(pack_mock_overhead_calls_range 2 EMPTY "option '--calls': '-5' is out of range .1 to 1000000000.$"
                 overhead ${_test_pack} --m 64 --n 64 --k 64 --calls -5 --no-cache)
  cutec_tune_cli(pack_mock_bench_shapes_range 0 "^tiny +64 +64 +64 "
                 "warning: .*range_shapes.txt:2: K = '99999999999999999999' is not an integer from 1 to 2147483647. line skipped"
                 bench ${_test_pack} --shapes ${_rt}/range_shapes.txt --no-cache)

  # --layout: a letter per matrix; a bench under the mocks names the layouts it ran
  cutec_tune_cli(pack_mock_tune_layout_bad 2 EMPTY
                 "option '--layout': 'rcx' is not three letters r or c .the layouts of A, B and C.$"
                 tune ${_test_pack} --m 64 --n 64 --k 64 --layout rcx --no-cache)
  cutec_tune_cli(pack_mock_bench_layout 0 "^layout: rcc .A, B as K x N, C.$" -
                 bench ${_test_pack} --shapes ${_rt}/range_shapes.txt --layout rcc --no-cache --no-warmup)

  cutec_tune_cli(pack_mock_bench_shapes_layout 0 "^colc rcc +64 +64 +64 "
                 "layout_shapes.txt:4: 'layout=rxr' is not layout=ABC with a letter r or c each for A, B and C"
                 bench ${_test_pack} --shapes ${_rt}/layout_shapes.txt --no-cache --no-warmup)

  # alpha and beta: finite floats, or a usage error (NaN used to end in
  # "all candidates failed"); finite ones other than 1 and 0 go to cuBLASLt
  cutec_tune_cli(pack_mock_tune_alpha_nan 2 EMPTY "option '--alpha': 'nan' is not a finite float"
                 tune ${_test_pack} --m 64 --n 64 --k 64 --alpha nan --no-cache)
  cutec_tune_cli(pack_mock_tune_beta_inf 2 EMPTY "option '--beta': 'inf' is not a finite float"
                 tune ${_test_pack} --m 64 --n 64 --k 64 --beta inf --no-cache)
  cutec_tune_cli(pack_mock_tune_alpha_float_range 2 EMPTY "option '--alpha': '1e39' is not a finite float"
                 tune ${_test_pack} --m 64 --n 64 --k 64 --alpha 1e39 --no-cache)
  cutec_tune_cli(pack_mock_tune_alpha_beta 0 "\"alpha\": 2, \"beta\": 0.5, " -
                 tune ${_test_pack} --m 64 --n 64 --k 64 --alpha 2 --beta 0.5 --no-cache --json)
  cutec_tune_cli(pack_mock_tune_alpha_beta_winner 0 "^winner: cublasLt algo #" -
                 tune ${_test_pack} --m 64 --n 64 --k 64 --alpha 2 --beta 0.5 --no-cache)

  # --json prints one object also on failure, with the status's name
  cutec_tune_cli(pack_mock_tune_json_failure 1
                 "^[{]\"ok\": false, \"status\": \"CUTEC_ERR_NO_CANDIDATE\", \"code\": 23, \"status_text\": \"no working candidate\", \"message\": \"tuning: "
                 "^cutec-tune: error: tuning: no working candidate: "
                 tune ${_test_pack} --m 64 --n 64 --k 64 --no-cache --json)
  set_property(TEST pack_mock_tune_json_failure APPEND PROPERTY ENVIRONMENT "CUTEC_MOCK_WRONG=T bf16"
               "CUTEC_MOCK_LT_ALGOS=0")
  cutec_tune_cli(pack_mock_tune_json_bad_pack 1 "^[{]\"ok\": false, \"status\": \"CUTEC_ERR_PACK_FORMAT\""
                 "not a cutec kernel pack" tune ${_va} --m 8 --n 8 --k 8 --json)
  cutec_tune_cli(pack_mock_tune_json_ok 0 "\"ok\": true[}]$" - tune ${_test_pack} --m 64 --n 64 --k 64 --no-cache --json)
  # the listing shows each candidate's median in the common rounds beside
  # the one the decision used (the head-to-head pair's own)
  cutec_tune_cli(pack_mock_tune_rounds_column 0 "^ +rank +ms +rounds ms +TFLOP/s +vs cuBLAS +candidate$" -
                 tune ${_test_pack} --m 64 --n 64 --k 64 --no-cache)
  # a screened-out point (12 points, 8 finalists) has no ratio to cuBLASLt's
  # rounds: its ms is the screening's
  cutec_tune_cli(pack_mock_tune_screened_rows 0
                 "^ +[0-9]+ +[0-9.]+ +- +[0-9.]+ +- +gemm_sm80 " -
                 tune ${_test_pack} --m 64 --n 64 --k 64 --no-cache --shortlist 0)
  cutec_tune_cli(pack_mock_tune_screened_legend 0
                 "^[(]rounds ms \"-\": screened out, ms from the screening's few runs" -
                 tune ${_test_pack} --m 64 --n 64 --k 64 --no-cache --shortlist 0)
  # --finalists 0: no screening, every point in the rounds (with the
  # default 8 of 12, the slowest, 64 x 64, would be screened out)
  cutec_tune_cli(pack_mock_tune_finalists 0
                 "^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +gemm_sm80 T=bf16 TC=bf16 BM=64 BN=64 " -
                 tune ${_test_pack} --m 64 --n 64 --k 64 --no-cache --shortlist 0 --finalists 0)
  set_property(TEST pack_mock_tune_json_failure pack_mock_tune_json_bad_pack pack_mock_tune_json_ok
               pack_mock_tune_alpha_beta pack_mock_bench_shapes_json APPEND PROPERTY ENVIRONMENT CHECK_CLI_JSON=1)

  # an option of another command is an error, not ignored
  cutec_tune_cli(pack_cpu_tune_option_elsewhere 2 EMPTY "^cutec-tune: error: option '--shapes' does not apply to 'list'$"
                 list ${_test_pack} --shapes x)
endif()
# User kernels that declare their roles (user_gemm.cute): served where
# their descriptions fit, skipped with the reason logged elsewhere
cutec_test_pack(_user_pack user_gemm ${CMAKE_CURRENT_SOURCE_DIR}/user_gemm.cute "3 kernels")
if(_user_pack)
  add_test(NAME pack_mock_user_kernels COMMAND test_pack user ${_user_pack})
  add_test(NAME pack_gpu_user_kernels COMMAND test_pack user ${_user_pack})
  # cutec-tune --verbose shows why a kernel is skipped
  add_test(NAME pack_mock_user_tune_verbose
           COMMAND cutec-tune tune ${_user_pack} --m 40 --n 24 --k 32 --no-cache --verbose)
  set_tests_properties(pack_mock_user_tune_verbose PROPERTIES PASS_REGULAR_EXPRESSION
    "info: tuning: skipping user_gemm_bias T=bf16 TC=bf16: argument 'bias' has role bias")
  list(APPEND _pack_mock_tests pack_mock_user_kernels pack_mock_user_tune_verbose)
  # cutec-tune --epilogue and its inputs: the bias kernel serves --bias; with
  # an activation it does not apply it is skipped, and cuBLASLt's fused form wins
  # --pack: a second pack's kernels are candidates too (the user pack's bias
  # kernel wins beside the stdlib test pack); a pack that cannot load fails
  cutec_tune_cli(pack_mock_tune_more_packs 0 "^winner: user_gemm_bias T=bf16 TC=bf16$" -
                 tune ${_test_pack} --pack ${_user_pack} --m 40 --n 24 --k 32 --bias --no-cache)
  cutec_tune_cli(pack_mock_tune_more_packs_missing 1 EMPTY "/nonexistent.pack"
                 tune ${_user_pack} --pack /nonexistent.pack --m 40 --n 24 --k 32 --no-cache)
  # the same pack twice (two builds of one template, in one process): each
  # pack kernel's line names its pack, and --json gives its index
  cutec_tune_cli(pack_mock_tune_pack_label 0 "^ +[0-9]+ .* gemm_sm80 T=bf16 .*  [[]pack 2: test_gemm.pack[]]$" -
                 tune ${_test_pack} --pack ${_test_pack} --m 40 --n 24 --k 32 --no-cache --shortlist 0)
  cutec_tune_cli(pack_mock_tune_pack_label_json 0 "\"algo_rank\": -1, \"pack\": 1[}]" -
                 tune ${_test_pack} --pack ${_test_pack} --m 40 --n 24 --k 32 --no-cache --shortlist 0 --json)
  cutec_tune_cli(pack_mock_tune_epilogue_bias 0 "^winner: user_gemm_bias T=bf16 TC=bf16$" -
                 tune ${_user_pack} --m 40 --n 24 --k 32 --bias --no-cache)
  cutec_tune_cli(pack_mock_tune_epilogue_relu 0 "^winner: user_gemm_relu_bias T=bf16 TC=bf16$"
                 "skipping user_gemm_bias T=bf16 TC=bf16: its epilogue applies no activation. the problem asks for 'relu'$"
                 tune ${_user_pack} --m 40 --n 24 --k 32 --epilogue relu --bias --no-cache --verbose)
  cutec_tune_cli(pack_mock_tune_epilogue_json 0 "\"epilogue\": \"gelu_tanh[+]bias[+]aux\""  -
                 tune ${_user_pack} --m 40 --n 24 --k 32 --epilogue gelu_tanh --bias --aux --no-cache --json)
  cutec_tune_cli(pack_mock_tune_epilogue_gated_n 1 EMPTY "N = 24. a gated activation needs a multiple of 16"
                 tune ${_user_pack} --m 40 --n 24 --k 32 --epilogue swiglu --no-cache)
  # bench --epilogue: the same shape's plain GEMM tuned too (the pack has no plain kernel for B K-contiguous:
  # cuBLASLt's decision), and the two decisions timed head to head (vs plain)
  cutec_tune_cli(pack_mock_bench_epilogue 0 "^geometric mean over 2 shapes: ratio " -
                 bench ${_user_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --bias --no-cache --no-warmup)
  cutec_tune_cli(pack_mock_bench_epilogue_json 0
                 "\"ratio_vs_plain_head_to_head\": [1-9][.][0-9]+, \"ratio_vs_plain_tunings\": 0.0000" -
                 bench ${_user_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --bias --no-cache --json)
  set_property(TEST pack_mock_bench_epilogue_json APPEND PROPERTY ENVIRONMENT CHECK_CLI_JSON=1)
  cutec_tune_cli(pack_cpu_tune_epilogue_unknown 2 EMPTY
                 "^cutec-tune: error: option '--epilogue': unknown activation 'foo' .identity, relu, relu6, gelu_tanh"
                 tune ${_user_pack} --m 40 --n 24 --k 32 --epilogue foo)
  list(APPEND _pack_gpu_tests pack_gpu_user_kernels)
endif()
# bench --layouts-h2h over layout_h2h_shapes.txt: x in rcr (the test pack),
# rrr (the user pack's user_gemm_brow) and ccr (no pack kernel), y in rcr
# and rrr, z alone (no head to head).  With the test pack's BM = 128
# kernels wrong, rcr's fastest pack kernel is a 64 x 256 tile, slower in
# the mock's clock (1 + M N K 1e-6 (1 + 64/BM + 64/BN) us) than
# user_gemm_brow's 128 x 128: x 1.5898 against 1.5243 us (1.0430), y
# 1.2212 against 1.1966 us (1.0205); their geometric mean 1.0317.
if(_test_pack AND _user_pack)
  set(_h2h bench ${_test_pack} --pack ${_user_pack} --shapes ${_rt}/layout_h2h_shapes.txt --no-cache --no-warmup)
  cutec_tune_cli(pack_mock_bench_layouts_h2h 0
                 "^ +layouts head to head [(]5 rounds[)]: rcr 0[.]0016 ms 0[.]3 TF/s, rrr 0[.]0015 ms 0[.]3 TF/s [(]1[.]043[)], ccr skipped [(]no pack kernel[)]$"
                 - ${_h2h} --layouts-h2h 5)
  # the value left out: 20 rounds; the summary per layout over the groups
  cutec_tune_cli(pack_mock_bench_layouts_h2h_default 0
                 "^ +layouts head to head [(]20 rounds[)]: rcr 0[.]0012 ms 0[.]2 TF/s, rrr 0[.]0012 ms 0[.]2 TF/s [(]1[.]021[)]$"
                 - ${_h2h} --layouts-h2h)
  cutec_tune_cli(pack_mock_bench_layouts_h2h_summary 0
                 "^layouts head to head over 2 groups [(].*[)]: rrr 1[.]032 [(]geometric mean[)], 1[.]021 [(]worst[)] of 2$"
                 - ${_h2h} --layouts-h2h 5)
  cutec_tune_cli(pack_mock_bench_layouts_h2h_json 0
                 "^  [{]\"shape\": \"x\", \"reference\": \"rcr\", \"lines\": [[][{]\"line\": 3, \"layout\": \"rcr\", \"kernel\": \"gemm_sm80 T=bf16 TC=bf16 BM=(64 BN=256|256 BN=64) [^\"]*\", \"ms\": 0[.]001590, \"tflops\": 0[.]330, \"ratio\": 1[.]0000[}], [{]\"line\": 4, \"layout\": \"rrr\", \"kernel\": \"user_gemm_brow T=bf16 TC=bf16\", \"ms\": 0[.]001524, \"tflops\": 0[.]344, \"ratio\": 1[.]0430[}], [{]\"line\": 5, \"layout\": \"ccr\", \"kernel\": null, \"ms\": null, \"skipped\": \"no pack kernel\"[}]]},$"
                 - ${_h2h} --layouts-h2h 5 --json)
  cutec_tune_cli(pack_mock_bench_layouts_h2h_json_summary 0
                 "^], \"summary\": [[][{]\"layout\": \"rrr\", \"groups\": 2, \"geomean_ratio\": 1[.]0317, \"worst_ratio\": 1[.]0205[}]], \"timed_groups\": 2[}], \"skipped\": 0, \"ok\": true[}]$"
                 - ${_h2h} --layouts-h2h 5 --json)
  set_property(TEST pack_mock_bench_layouts_h2h pack_mock_bench_layouts_h2h_default pack_mock_bench_layouts_h2h_summary
               pack_mock_bench_layouts_h2h_json pack_mock_bench_layouts_h2h_json_summary
               APPEND PROPERTY ENVIRONMENT "CUTEC_MOCK_WRONG=BM 128")
  set_property(TEST pack_mock_bench_layouts_h2h_json pack_mock_bench_layouts_h2h_json_summary
               APPEND PROPERTY ENVIRONMENT CHECK_CLI_JSON=1)
endif()
# The GEMV pack (stdlib/gemv.cute, a few points: the K split over 4 warps,
# STAGES = 4, two k-steps per warp at once): a candidate for M up to its
# BM, skipped above with its condition named; without cuBLASLt's
# algorithms a GEMV point wins M = 13 (only the
# BM = 16 points serve it), and M = 17 has no candidate at all
cutec_test_pack(_gemv_pack gemv ${PROJECT_SOURCE_DIR}/stdlib/gemv.cute "GEMV points" -D KW=4 -D STAGES=4)
if(_gemv_pack)
  cutec_tune_cli(pack_mock_tune_gemv_small_m 0 "^winner: gemv T=bf16 TC=bf16 BM=16 "
                 "skipping gemv T=bf16 TC=bf16 BM=8 .*its condition .M<=8. does not hold for M=13 N=333 K=520$"
                 tune ${_gemv_pack} --m 13 --n 333 --k 520 --no-cache --verbose)
  cutec_tune_cli(pack_mock_tune_gemv_m1 0 "^winner: gemv T=bf16 TC=bf16 BM=(8|16) " -
                 tune ${_gemv_pack} --m 1 --n 4099 --k 72 --no-cache)
  cutec_tune_cli(pack_mock_tune_gemv_refused 1 EMPTY "its condition .M<=16. does not hold for M=17 N=333 K=520$"
                 tune ${_gemv_pack} --m 17 --n 333 --k 520 --no-cache --verbose)
  set_property(TEST pack_mock_tune_gemv_small_m pack_mock_tune_gemv_m1 pack_mock_tune_gemv_refused APPEND PROPERTY
               ENVIRONMENT "CUTEC_MOCK_LT_ALGOS=0")
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
# cutec-tune's usage: --help and -h in every command (exit 0, stdout), an
# unknown option named with a hint (exit 2), a missing value named
foreach(_cmd list tune bench overhead error)
  cutec_tune_cli(pack_cpu_tune_help_${_cmd} 0 "^usage: cutec-tune ${_cmd} PACK" EMPTY ${_cmd} --help)
endforeach()
cutec_tune_cli(pack_cpu_tune_help_short 0 "^usage: cutec-tune tune PACK" EMPTY tune ${_va} -h)
cutec_tune_cli(pack_cpu_tune_help 0 "^usage: cutec-tune list PACK" EMPTY --help)
cutec_tune_cli(pack_cpu_tune_unknown_option 2 EMPTY "^cutec-tune: error: unknown option '--bogus'$" bench --bogus)
cutec_tune_cli(pack_cpu_tune_unknown_option_hint 2 EMPTY "^see 'cutec-tune bench --help'$" bench --bogus)
cutec_tune_cli(pack_cpu_tune_missing_value 2 EMPTY "^cutec-tune: error: option '--shapes' needs a value .FILE.$"
               bench ${_va} --shapes)
cutec_tune_cli(pack_cpu_tune_shortlist_range 2 EMPTY "^cutec-tune: error: option '--shortlist'" bench ${_va}
               --shapes x --shortlist 10001)
cutec_tune_cli(pack_cpu_tune_host_bound_range 2 EMPTY "^cutec-tune: error: option '--host-bound-us': '1000001' is out of range [(]0 to 1000000[)]$"
               bench ${_va} --shapes x --host-bound-us 1000001)
# --layouts-h2h [R]: R rounds, 5 to 10000 (the value optional: a pack or an option may follow)
cutec_tune_cli(pack_cpu_bench_layouts_h2h_range 2 EMPTY
               "^cutec-tune: error: option '--layouts-h2h': '4' is out of range [(]5 to 10000[)]$"
               bench ${_va} --shapes x --layouts-h2h 4)
cutec_tune_cli(pack_cpu_bench_layouts_h2h_not_integer 2 EMPTY
               "^cutec-tune: error: option '--layouts-h2h': '20x' is not an integer$"
               bench ${_va} --shapes x --layouts-h2h 20x)
cutec_tune_cli(pack_cpu_bench_layouts_h2h_list 2 EMPTY
               "^cutec-tune: error: options '--list' and '--layouts-h2h' exclude each other$"
               bench ${_va} --shapes x --list --layouts-h2h)
cutec_tune_cli(pack_cpu_tune_compare_not_tune 2 EMPTY "^cutec-tune: error: option '--compare-exhaustive' does not apply to 'tune'$"
               tune ${_va} --compare-exhaustive)
cutec_tune_cli(pack_cpu_tune_json_no_gpu 77 "^[{]\"ok\": false, \"status\": \"CUTEC_ERR_NO_DRIVER\""
               "CUDA driver not available" tune ${_va} --m 8 --n 8 --k 8 --json)
set_property(TEST pack_cpu_tune_json_no_gpu APPEND PROPERTY ENVIRONMENT "CUTEC_CUDA_DRIVER=/nonexistent"
             CHECK_CLI_JSON=1)
foreach(_t ${_cli_tests})
  if(_t MATCHES "^pack_mock_")
    list(APPEND _pack_mock_tests ${_t})
  else()
    list(APPEND _pack_cpu_tests ${_t})
  endif()
endforeach()

# Fast tuning and the tuning modes (test_tune_modes.c): the cost model's
# ranking (no device); with the test pack, the shortlist, a deferred handle
# (nothing timed, the cache marks the decision modelled, then measured after
# cutec_gemm_tune; with and without cuBLASLt), a background one (its
# worker measures it; destroyed while tuning) and fast tuning's time budget
# (the mock's launches made slow: fewer runs); staged operands (rows off
# 16-byte boundaries: tuned, cached, run by name)
add_executable(test_tune_modes test_tune_modes.c)
target_include_directories(test_tune_modes PRIVATE ${PROJECT_SOURCE_DIR}/runtime ${PROJECT_SOURCE_DIR}/contract)
target_link_libraries(test_tune_modes PRIVATE cutec_rt ${CMAKE_DL_LIBS} m)
target_compile_options(test_tune_modes PRIVATE ${CUTEC_WARNINGS})
add_dependencies(test_tune_modes cutec_mock_cublaslt cutec_mock_driver)
add_test(NAME pack_cpu_tune_model COMMAND test_tune_modes model)
list(APPEND _pack_cpu_tests pack_cpu_tune_model)
if(_test_pack)
  foreach(_case deferred background shortlist check_select run_candidate budget staged)
    add_test(NAME pack_mock_tune_${_case} COMMAND test_tune_modes ${_case} ${_test_pack})
    list(APPEND _pack_mock_tests pack_mock_tune_${_case})
  endforeach()
  # a candidate run by its name is run unchecked: the mock's wrong kernels come back wrong
  add_test(NAME pack_mock_tune_run_candidate_wrong COMMAND test_tune_modes run_candidate ${_test_pack})
  list(APPEND _pack_mock_tests pack_mock_tune_run_candidate_wrong)
  # the device check counts what the host counts, and a tuning checks on the device (GPU only)
  add_test(NAME pack_gpu_tune_check_agree COMMAND test_tune_modes check_agree ${_test_pack})
  list(APPEND _pack_gpu_tests pack_gpu_tune_check_agree)
  # staged operands on the GPU (cuMemcpy2DAsync): tuned without cuBLASLt, right against float64, from the cache
  add_test(NAME pack_gpu_tune_staged COMMAND test_tune_modes staged ${_test_pack})
  list(APPEND _pack_gpu_tests pack_gpu_tune_staged)
  add_test(NAME pack_mock_tune_deferred_no_cublas COMMAND test_tune_modes deferred ${_test_pack})
  set_tests_properties(pack_mock_tune_deferred_no_cublas PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 300
    ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=/nonexistent/libcublasLt.so;TEST_NO_CUBLAS=1")
  # a column-major D through a pack kernel that writes row-major D (its transpose), no cuBLASLt to fall back on
  add_test(NAME pack_mock_tune_col_major_no_cublas COMMAND test_tune_modes col_major ${_test_pack})
  set_tests_properties(pack_mock_tune_col_major_no_cublas PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 300
    ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=/nonexistent/libcublasLt.so;TEST_NO_CUBLAS=1")
endif()

# bench --layouts-h2h's seam (test_layout_h2h.c, runtime/tools/tune_layout_h2h.c):
# each line's fastest pack kernel by name, launched warm-ups + R times on
# its own buffers, a flush and two events per timed run, medians the mock's
# times; a line without a kernel, or with a name no candidate has, noted
if(_test_pack AND _user_pack)
  add_executable(test_layout_h2h test_layout_h2h.c ${PROJECT_SOURCE_DIR}/runtime/tools/tune_layout_h2h.c
                 ${PROJECT_SOURCE_DIR}/runtime/tools/tune_json.c)
  target_include_directories(test_layout_h2h PRIVATE ${PROJECT_SOURCE_DIR}/runtime ${PROJECT_SOURCE_DIR}/runtime/tools
                             ${PROJECT_SOURCE_DIR}/contract)
  target_link_libraries(test_layout_h2h PRIVATE cutec_rt ${CMAKE_DL_LIBS} m)
  target_compile_options(test_layout_h2h PRIVATE ${CUTEC_WARNINGS})
  add_dependencies(test_layout_h2h cutec_mock_cublaslt cutec_mock_driver)
  add_test(NAME pack_mock_bench_layouts_h2h_seam COMMAND test_layout_h2h ${_test_pack} ${_user_pack})
  list(APPEND _pack_mock_tests pack_mock_bench_layouts_h2h_seam)
endif()

# The installed package: cmake --install into a temporary prefix, then a
# consumer project that uses find_package(cutec) and pkg-config, and the
# installed cutec with its installed standard library (install_compiler.cmake).
add_test(NAME pack_cpu_install
  COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR}
          -DCONSUMER_DIR=${CMAKE_CURRENT_SOURCE_DIR}/consumer
          -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install-test
          -DC_COMPILER=${CMAKE_C_COMPILER} -DSANITIZE=${CUTEC_SANITIZE} -DHAVE_SHARED=$<TARGET_EXISTS:cutec_rt_shared>
          -DHAVE_COMPILER=$<TARGET_EXISTS:cutec> -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/install_test.cmake)
list(APPEND _pack_cpu_tests pack_cpu_install)

set_tests_properties(${_pack_cpu_tests} PROPERTIES LABELS "cpu;runtime;pack" TIMEOUT 300)
set_tests_properties(${_pack_mock_tests} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 300)
set_property(TEST ${_pack_mock_tests} APPEND PROPERTY ENVIRONMENT ${_mock_env})
if(_test_pack)
  set_property(TEST pack_mock_tune_run_candidate_wrong APPEND PROPERTY ENVIRONMENT "CUTEC_MOCK_WRONG=BM 64")
endif()
set_tests_properties(${_pack_gpu_tests} PROPERTIES LABELS "gpu;runtime;pack" SKIP_RETURN_CODE 77
                     TIMEOUT 600)
# cutec-tune's checks answer at once; a hang (as /dev/zero used to cause) should not take 5 minutes
set_tests_properties(${_cli_tests} PROPERTIES TIMEOUT 60)

# Block-wise fp8 scales on cuBLASLt's plan (test_lt_scales.c): the scale
# modes, pointers and padded copy the mock cuBLASLt is given, and its D
# against a float64 sum over our scale layouts (block: K of 4, 5, 6 and 9
# blocks, tests/bench/fp8_ragged_shapes.txt's served shapes); the shapes
# cuBLASLt's block scaling does not take refused with why (block_refused:
# the bench's M = 2050 among them)
add_executable(test_lt_scales test_lt_scales.c)
target_include_directories(test_lt_scales PRIVATE ${PROJECT_SOURCE_DIR}/runtime ${PROJECT_SOURCE_DIR}/contract)
target_link_libraries(test_lt_scales PRIVATE cutec_rt ${CMAKE_DL_LIBS} m)
target_compile_options(test_lt_scales PRIVATE ${CUTEC_WARNINGS})
add_dependencies(test_lt_scales cutec_mock_cublaslt)
foreach(_case block block_refused)
  add_test(NAME pack_mock_lt_scales_${_case} COMMAND test_lt_scales ${_case})
  set_tests_properties(pack_mock_lt_scales_${_case} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 60
    ENVIRONMENT "CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>")
endforeach()

# GEMM epilogues (test_epilogue.c): its kernels are descriptions packed
# in-process, so it needs no compiler
add_executable(test_epilogue test_epilogue.c)
target_include_directories(test_epilogue PRIVATE ${PROJECT_SOURCE_DIR}/contract)
target_link_libraries(test_epilogue PRIVATE cutec_rt ${CMAKE_DL_LIBS} m)
target_compile_options(test_epilogue PRIVATE ${CUTEC_WARNINGS})
add_dependencies(test_epilogue cutec_mock_cublaslt cutec_mock_driver)
add_test(NAME pack_cpu_epilogue_args COMMAND test_epilogue args)
set_tests_properties(pack_cpu_epilogue_args PROPERTIES LABELS "cpu;runtime;pack" TIMEOUT 60)
# (mock only: their kernels are descriptions over empty PTX bodies, which
# the mock computes from the descriptions; the GPU runs the compiled ones below)
foreach(_case bind cache clamp)
  add_test(NAME pack_mock_epilogue_${_case} COMMAND test_epilogue ${_case})
  set_tests_properties(pack_mock_epilogue_${_case} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
    ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>")
endforeach()
# the device check on the mock (CUTEC_MOCK_CHECK=1: it runs
# stdlib/check_close.cute's kernel on the host): the epilogue's reference
# streamed up a block of rows at a time, every candidate compared with it
add_test(NAME pack_mock_epilogue_bind_devcheck COMMAND test_epilogue bind)
set_tests_properties(pack_mock_epilogue_bind_devcheck PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
  ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>;CUTEC_MOCK_CHECK=1")
# the mock's epilogue_ref wrong (every D 1% off): the runtime notices at
# its float64 rows and makes the reference on the host, streamed up
add_test(NAME pack_mock_epilogue_bind_devref_wrong COMMAND test_epilogue bind)
set_tests_properties(pack_mock_epilogue_bind_devref_wrong PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
  ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>;CUTEC_MOCK_CHECK=1;CUTEC_MOCK_EPI_REF=wrong")
# fp8 inputs with row-wise and block-wise scales: checked at float64
# samples, and with the device check (CUTEC_MOCK_CHECK=1) every element
# against a reference made on the device, within each element's fp8 bound
# (abs_blocks, check_close_rank1), which finds a kernel wrong at one element
foreach(_case fp8 fp8_block)
  foreach(_check 0 1)
    set(_name pack_mock_epilogue_${_case})
    if(_check)
      set(_name ${_name}_devcheck)
    endif()
    add_test(NAME ${_name} COMMAND test_epilogue ${_case})
    set_tests_properties(${_name} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
      ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>;CUTEC_MOCK_CHECK=${_check}")
  endforeach()
endforeach()
# the mock's epilogue_ref wrong: the fp8 reference disagrees at its float64
# rows and the samples decide, said so
add_test(NAME pack_mock_epilogue_fp8_devref_wrong COMMAND test_epilogue fp8)
set_tests_properties(pack_mock_epilogue_fp8_devref_wrong PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
  ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>;CUTEC_MOCK_CHECK=1;CUTEC_MOCK_EPI_REF=wrong")
# block-wise scales where cuBLASLt has no block-scaled f32 GEMM (the
# mock's CUTEC_MOCK_LT_BLOCK=0): no reference on the device, the samples
# decide, and the log says why
add_test(NAME pack_mock_epilogue_fp8_block_nolt COMMAND test_epilogue fp8_block)
set_tests_properties(pack_mock_epilogue_fp8_block_nolt PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
  ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>;CUTEC_MOCK_CHECK=1;CUTEC_MOCK_LT_BLOCK=0")
# without cuBLASLt: the epilogue checked at float64 samples only
add_test(NAME pack_mock_epilogue_bind_no_cublas COMMAND test_epilogue bind)
set_tests_properties(pack_mock_epilogue_bind_no_cublas PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
  ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=/nonexistent/libcublasLt.so;TEST_NO_CUBLAS=1")
# the compiler's descriptions: a user's act = relu kernel, and the stdlib's
# elementwise kernels (stdlib/epilogue_apply.cute) after cuBLASLt
cutec_test_pack(_ea_pack epilogue_apply ${PROJECT_SOURCE_DIR}/stdlib/epilogue_apply.cute "286 points")
foreach(_c user apply)
  set(_p ${_user_pack})
  if(_c STREQUAL "apply")
    set(_p ${_ea_pack})
  endif()
  if(_p)
    add_test(NAME pack_mock_epilogue_${_c} COMMAND test_epilogue ${_c} ${_p})
    set_tests_properties(pack_mock_epilogue_${_c} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
      ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>")
    add_test(NAME pack_mock_epilogue_${_c}_devcheck COMMAND test_epilogue ${_c} ${_p})
    set_tests_properties(pack_mock_epilogue_${_c}_devcheck PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
      ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>;CUTEC_MOCK_CHECK=1")
    add_test(NAME pack_gpu_epilogue_${_c} COMMAND test_epilogue ${_c} ${_p})
    set_tests_properties(pack_gpu_epilogue_${_c} PROPERTIES LABELS "gpu;runtime;pack" SKIP_RETURN_CODE 77 TIMEOUT 300)
  endif()
endforeach()
# cutec-tune --clamp LO,HI: the user pack has no clamping kernel and
# cuBLASLt no clamp, so its plain GEMM and epilogue_apply's clamping kernel
# (--pack) win; without that pack, no candidate; the usage errors (no GPU)
if(_user_pack AND _ea_pack)
  set(_cli_tests)
  cutec_tune_cli(pack_mock_tune_clamp 0
                 "^winner: cublasLt algo #0 [+] epilogue_apply T=bf16 ACT=relu GLU=0 BIAS=0 AUX=0 VEC=8 CLAMP=1$" -
                 tune ${_user_pack} --pack ${_ea_pack} --m 40 --n 24 --k 32 --epilogue relu --clamp -0.5,0.5 --no-cache)
  cutec_tune_cli(pack_mock_tune_clamp_json 0 "\"epilogue\": \"relu[+]clamp\"" -
                 tune ${_user_pack} --pack ${_ea_pack} --m 40 --n 24 --k 32 --epilogue relu --clamp -inf,0.5 --no-cache
                 --json)
  cutec_tune_cli(pack_mock_tune_clamp_no_ew 1 EMPTY
                 "epilogue=relu[+]clamp align=16:16:16: pack kernels: .* cuBLASLt has no fused form of this epilogue: a clamp"
                 tune ${_user_pack} --m 40 --n 24 --k 32 --epilogue relu --clamp -0.5,0.5 --no-cache)
  cutec_tune_cli(pack_mock_bench_clamp 0 "^tiny +64 +64 +64 .* epilogue_apply T=bf16 ACT=silu GLU=0 BIAS=0 AUX=0 VEC=8 CLAMP=1 " -
                 bench ${_user_pack} --pack ${_ea_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --epilogue silu
                 --clamp -1,1 --no-cache --no-warmup)
  # a shapes line a gated epilogue cannot take (N = 24) is skipped, said
  # so, and the next one benched (and warms up): the exit is 0 (the
  # suite's odd3000 used to stop a whole SwiGLU bench)
  cutec_tune_cli(pack_mock_bench_gated_skip 0 "^1 shape skipped: a size the problem cannot take"
                 "^cutec-tune: warm-up tuning of good32 .not reported.$"
                 bench ${_user_pack} --pack ${_ea_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/gated_shapes.txt
                 --epilogue swiglu --no-cache --verbose)
  cutec_tune_cli(pack_mock_bench_gated_skip_row 0
                 "^odd24 +40 +24 +32  skipped: cutec_gemm_tune_ex: N = 24. a gated activation needs a multiple of 16" -
                 bench ${_user_pack} --pack ${_ea_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/gated_shapes.txt
                 --epilogue swiglu --no-cache)
  cutec_tune_cli(pack_mock_bench_gated_skip_json 0 "\"skipped\": 1, \"ok\": true[}]$" -
                 bench ${_user_pack} --pack ${_ea_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/gated_shapes.txt
                 --epilogue swiglu --no-cache --no-warmup --json)
  set_tests_properties(${_cli_tests} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 60 ENVIRONMENT "${_mock_env}")
  set_property(TEST pack_mock_tune_clamp_json APPEND PROPERTY ENVIRONMENT CHECK_CLI_JSON=1)
  set_property(TEST pack_mock_bench_gated_skip_json APPEND PROPERTY ENVIRONMENT CHECK_CLI_JSON=1)
endif()
set(_cli_tests)
foreach(_bad "one|1|'1' is not two numbers LO,HI" "no_lo|,1|',1' is not two numbers LO,HI"
             "lo_over_hi|2,1|'2,1': LO is greater than HI" "nan|nan,1|'nan,1': LO is not a float or an infinity"
             "past_float|0,1e39|'0,1e39': HI is not a float or an infinity")
  string(REPLACE "|" ";" _parts "${_bad}")
  list(GET _parts 0 _id)
  list(GET _parts 1 _v)
  list(GET _parts 2 _msg)
  cutec_tune_cli(pack_cpu_tune_clamp_${_id} 2 EMPTY "^cutec-tune: error: option '--clamp': ${_msg}$"
                 tune ${_va} --m 8 --n 8 --k 8 --clamp ${_v})
endforeach()
cutec_tune_cli(pack_cpu_tune_clamp_error 2 EMPTY "^cutec-tune: error: option '--clamp' does not apply to 'error'$"
               error ${_va} --m 8 --n 8 --k 64 --clamp 0,1)
set_tests_properties(${_cli_tests} PROPERTIES LABELS "cpu;runtime;pack" TIMEOUT 60)

# Tensor maps that follow the pointers (test_epilogue maps): one sm90
# template point (TMA maps for A, B and D; relu with a bias), its class
# called with two sets of buffers in turn; the mock driver faults a launch
# whose map holds another tensor's address
if(TARGET cutec)
  set(_sm90_one ${CMAKE_CURRENT_BINARY_DIR}/sm90_one.pack)
  add_custom_command(OUTPUT ${_sm90_one}
    COMMAND $<TARGET_FILE:cutec> pack ${PROJECT_SOURCE_DIR}/stdlib/sm90/gemm.cute --arch=sm_90a --no-cubin
            -D ACT=relu -D BIAS=1 -D BM=64 -D BN=64 -D STAGES=4 -D EPI=1 -D CM=1 -D CN=1 -D PP=0 -D SK=0 -D RASTER=0
            -D PROMO=0 -o ${_sm90_one}
    DEPENDS cutec ${PROJECT_SOURCE_DIR}/stdlib/sm90/gemm.cute
    COMMENT "cutec pack stdlib/sm90/gemm.cute -> sm90_one.pack (one point, PTX)"
    VERBATIM)
  add_custom_target(sm90_one_pack ALL DEPENDS ${_sm90_one})
  add_dependencies(test_pack sm90_one_pack)
  add_test(NAME pack_mock_tensor_maps COMMAND test_epilogue maps ${_sm90_one})
  # a candidate's name holds every parameter of the sm90 template, the longest
  add_test(NAME pack_mock_entry_names COMMAND test_pack entry_names ${_sm90_one})
  set_tests_properties(pack_mock_tensor_maps pack_mock_entry_names PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
    ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>")
  # bench --epilogue's "same kernel": the epilogue's fastest pack kernel
  # against the same tune point without the epilogue (its twin, found in
  # sm90_one_plain.pack), in the same rounds; without the twin's pack, the
  # reason it was not timed
  set(_sm90_plain ${CMAKE_CURRENT_BINARY_DIR}/sm90_one_plain.pack)
  add_custom_command(OUTPUT ${_sm90_plain}
    COMMAND $<TARGET_FILE:cutec> pack ${PROJECT_SOURCE_DIR}/stdlib/sm90/gemm.cute --arch=sm_90a --no-cubin
            -D BM=64 -D BN=64 -D STAGES=4 -D EPI=1 -D CM=1 -D CN=1 -D PP=0 -D SK=0 -D RASTER=0 -D PROMO=0 -o ${_sm90_plain}
    DEPENDS cutec ${PROJECT_SOURCE_DIR}/stdlib/sm90/gemm.cute
    COMMENT "cutec pack stdlib/sm90/gemm.cute -> sm90_one_plain.pack (sm90_one.pack's point without its epilogue)"
    VERBATIM)
  add_custom_target(sm90_one_plain_pack ALL DEPENDS ${_sm90_plain})
  add_dependencies(test_pack sm90_one_plain_pack)
  set(_cli_tests)
  cutec_tune_cli(pack_mock_bench_same_kernel 0
                 "^ +same kernel: 0[.][0-9]+ ms with the epilogue, 0[.][0-9]+ ms without [(]1[.][0-9]+[)]$" -
                 bench ${_sm90_one} --pack ${_sm90_plain} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt
                 --epilogue relu --bias --no-cache --no-warmup)
  cutec_tune_cli(pack_mock_bench_same_kernel_json 0
                 "\"same_kernel_plain\": \"gemm_sm90 T=bf16 [^\"]* ACT=identity BIAS=0 SRC=0 ALPHA=0 AUX=0 SCALE=0 GLU=0 CLAMP=0 " -
                 bench ${_sm90_one} --pack ${_sm90_plain} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt
                 --epilogue relu --bias --no-cache --no-warmup --json)
  cutec_tune_cli(pack_mock_bench_same_kernel_absent 0
                 "^ +same kernel: not timed: cutec_gemm_run_candidate: no candidate 'gemm_sm90 T=bf16 .* ACT=identity BIAS=0 " -
                 bench ${_sm90_one} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --epilogue relu --bias --no-cache
                 --no-warmup)
  set_tests_properties(${_cli_tests} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 60 ENVIRONMENT "${_mock_env}")
  set_property(TEST pack_mock_bench_same_kernel_json APPEND PROPERTY ENVIRONMENT CHECK_CLI_JSON=1)
endif()
# The gated epilogue with a bias and aux through the runtime (test_epilogue
# gated): a few points of each template, bound by their own descriptions;
# the mock computes them from the descriptions, the GPU runs them (on a
# machine without the compiler, CUTEC_PREBUILT_PACK_DIR/sm80_glu_aux.pack
# and sm90_glu_aux.pack: scripts/gpu-prepare.sh builds the same points)
foreach(_t sm80 sm90)
  set(_glu_pack "")
  if(TARGET cutec)
    set(_glu_pack ${CMAKE_CURRENT_BINARY_DIR}/${_t}_glu_aux.pack)
    if(_t STREQUAL "sm80")
      set(_glu_args -D ACT=swiglu -D BM=64 -D BK=32 -D STAGES=3 -D FRAGS=2)
    else()
      set(_glu_args -D ACT=geglu -D BM=128 -D BN=128 -D STAGES=4 -D CM=1 -D CN=1 -D PP=0 -D SK=0 -D RASTER=0
                    -D PROMO=0)
    endif()
    add_custom_command(OUTPUT ${_glu_pack}
      COMMAND $<TARGET_FILE:cutec> pack ${PROJECT_SOURCE_DIR}/stdlib/${_t}/gemm.cute --arch=sm_90a --no-cubin
              ${_glu_args} -D GLU=1 -D BIAS=1 -D AUX=1 -o ${_glu_pack}
      DEPENDS cutec ${PROJECT_SOURCE_DIR}/stdlib/${_t}/gemm.cute ${PROJECT_SOURCE_DIR}/stdlib/std/epilogue.cute
      COMMENT "cutec pack stdlib/${_t}/gemm.cute -> ${_t}_glu_aux.pack (gated, bias, aux; PTX)"
      VERBATIM)
    add_custom_target(${_t}_glu_aux_pack ALL DEPENDS ${_glu_pack})
    add_dependencies(test_pack ${_t}_glu_aux_pack)
  elseif(CUTEC_PREBUILT_PACK_DIR AND EXISTS ${CUTEC_PREBUILT_PACK_DIR}/${_t}_glu_aux.pack)
    set(_glu_pack ${CUTEC_PREBUILT_PACK_DIR}/${_t}_glu_aux.pack)
  endif()
  if(_glu_pack)
    # (the sm80 points SwiGLU, the sm90 ones GeGLU)
    set(_glu_act swiglu)
    if(_t STREQUAL "sm90")
      set(_glu_act geglu)
    endif()
    add_test(NAME pack_mock_epilogue_gated_${_t} COMMAND test_epilogue gated ${_glu_pack} ${_glu_act} "gemm_${_t} ")
    set_tests_properties(pack_mock_epilogue_gated_${_t} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
      ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>")
    add_test(NAME pack_gpu_epilogue_gated_${_t} COMMAND test_epilogue gated ${_glu_pack} ${_glu_act} "gemm_${_t} ")
    set_tests_properties(pack_gpu_epilogue_gated_${_t} PROPERTIES LABELS "gpu;runtime;pack" SKIP_RETURN_CODE 77
                         TIMEOUT 300)
    # cutec-tune --epilogue ACT --bias --aux: a gated problem with the
    # pre-activation, served by the pack's points (cuBLASLt has no form of it)
    set(_cli_tests)
    cutec_tune_cli(pack_mock_tune_epilogue_gated_aux_${_t} 0 "^winner: gemm_${_t} .* ACT=${_glu_act} BIAS=1 .*AUX=1 .*GLU=1"
                   "cuBLASLt has no fused form of this epilogue: a gated activation"
                   tune ${_glu_pack} --m 200 --n 272 --k 64 --epilogue ${_glu_act} --bias --aux --no-cache --verbose)
    cutec_tune_cli(pack_mock_tune_epilogue_gated_aux_json_${_t} 0
                   "\"epilogue\": \"${_glu_act}[+]bias[+]aux\"" -
                   tune ${_glu_pack} --m 200 --n 272 --k 64 --epilogue ${_glu_act} --bias --aux --no-cache --json)
    # (180 s: the mock's host-run candidates take 33 s of tuning under
    # ASan alone, and timed out at 60 s on a loaded 2-core machine)
    set_tests_properties(${_cli_tests} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 180)
    foreach(_c ${_cli_tests})
      set_property(TEST ${_c} APPEND PROPERTY ENVIRONMENT ${_mock_env})
    endforeach()
    set_property(TEST pack_mock_tune_epilogue_gated_aux_json_${_t} APPEND PROPERTY ENVIRONMENT CHECK_CLI_JSON=1)
  endif()
endforeach()
if(TEST pack_mock_calls_host_bound)
  set_tests_properties(pack_mock_calls_host_bound PROPERTIES ENVIRONMENT
    "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>;CUTEC_MOCK_LAUNCH_HOST_US=200")
endif()

# A strided-batched GEMM (test_batch.c): the user's batched kernel
# (user_gemm_batched.cute, roles batch and stride_*) serves a batch of 3,
# the rank-2 user kernels are skipped with the reason, cuBLASLt gets the
# batch attributes, every problem's D is right
cutec_test_pack(_batched_pack user_gemm_batched ${CMAKE_CURRENT_SOURCE_DIR}/user_gemm_batched.cute "1 kernel")
if(_batched_pack AND _user_pack)
  add_dependencies(test_batch cutec_mock_cublaslt)
  if(TARGET user_gemm_batched_pack)
    add_dependencies(test_batch user_gemm_batched_pack user_gemm_pack)
  endif()
  add_test(NAME pack_mock_batch_gemm COMMAND test_batch gemm ${_batched_pack} ${_user_pack})
  add_test(NAME pack_gpu_batch_gemm COMMAND test_batch gemm ${_batched_pack} ${_user_pack})
  set_tests_properties(pack_mock_batch_gemm PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
                       ENVIRONMENT "${_mock_env}")
  set_tests_properties(pack_gpu_batch_gemm PROPERTIES LABELS "gpu;runtime;pack" SKIP_RETURN_CODE 77 TIMEOUT 300)
  # cutec-tune: --batch, a shapes file's batch=L column, the reports name the batch
  set(_cli_tests)
  cutec_tune_cli(pack_mock_tune_batch 0 "^problem: M=40 N=24 K=32 batch=3 bf16 -> bf16" -
                 tune ${_batched_pack} --pack ${_user_pack} --m 40 --n 24 --k 32 --batch 3 --no-cache)
  cutec_tune_cli(pack_mock_tune_batch_json 0 "\"k\": 32, \"batch\": 3, " -
                 tune ${_batched_pack} --m 40 --n 24 --k 32 --batch 3 --no-cache --json)
  cutec_tune_cli(pack_mock_bench_batch 0 "^tiny3 x3 +64 +64 +64 " -
                 bench ${_batched_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/batch_shapes.txt --no-cache --no-warmup)
  cutec_tune_cli(pack_mock_bench_batch_bad 0 "^ragged +72 +40 +56 "
                 "bad_batch.txt:2: 'batch=0' is not batch=L with L an integer from 1 to 2147483647. line skipped"
                 bench ${_batched_pack} --shapes ${CMAKE_CURRENT_BINARY_DIR}/bad_batch.txt --no-cache --no-warmup)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/bad_batch.txt "# a batch of none\nzero 64 64 64 batch=0\nragged 72 40 56\n")
  set_tests_properties(${_cli_tests} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 60 ENVIRONMENT "${_mock_env}")
  set_property(TEST pack_mock_tune_batch_json APPEND PROPERTY ENVIRONMENT CHECK_CLI_JSON=1)
endif()
add_test(NAME pack_cpu_batch_statuses COMMAND test_batch statuses)
set_tests_properties(pack_cpu_batch_statuses PROPERTIES LABELS "cpu;runtime;pack" TIMEOUT 60)

# A grouped GEMM (test_grouped.c): the user's grouped kernel
# (user_gemm_grouped.cute, role group_ends) serves 6 groups of rows with
# empty ones, the plain kernels are skipped with the reason, no cuBLASLt
# candidate, every group's rows right and the rows past the last untouched
cutec_test_pack(_grouped_pack user_gemm_grouped ${CMAKE_CURRENT_SOURCE_DIR}/user_gemm_grouped.cute "1 kernel")
if(_grouped_pack AND _user_pack)
  add_dependencies(test_grouped cutec_mock_cublaslt)
  if(TARGET user_gemm_grouped_pack)
    add_dependencies(test_grouped user_gemm_grouped_pack user_gemm_pack)
  endif()
  add_test(NAME pack_mock_grouped_gemm COMMAND test_grouped gemm ${_grouped_pack} ${_user_pack})
  add_test(NAME pack_gpu_grouped_gemm COMMAND test_grouped gemm ${_grouped_pack} ${_user_pack})
  set_tests_properties(pack_mock_grouped_gemm PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
                       ENVIRONMENT "${_mock_env}")
  set_tests_properties(pack_gpu_grouped_gemm PROPERTIES LABELS "gpu;runtime;pack" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# Scratch roles (test_scratch.c): the user's split-K kernel
# (user_gemm_splitk.cute, roles workspace and flags) right on three runs in
# a row, and refused with the bytes it needs by a smaller workspace
cutec_test_pack(_splitk_pack user_gemm_splitk ${CMAKE_CURRENT_SOURCE_DIR}/user_gemm_splitk.cute "1 kernel")
if(_splitk_pack)
  if(TARGET user_gemm_splitk_pack)
    add_dependencies(test_scratch user_gemm_splitk_pack)
  endif()
  add_test(NAME pack_mock_scratch_gemm COMMAND test_scratch gemm ${_splitk_pack})
  add_test(NAME pack_gpu_scratch_gemm COMMAND test_scratch gemm ${_splitk_pack})
  set_tests_properties(pack_mock_scratch_gemm PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
                       ENVIRONMENT "${_mock_env}")
  set_tests_properties(pack_gpu_scratch_gemm PROPERTIES LABELS "gpu;runtime;pack" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# A list of problems (test_grouped.c list): one sm90 template point with
# GRP = 2 (role group_list, its map slots in the workspace), compiled here,
# tuned and run through cutec_gemm_ex on ragged problems (an empty one,
# K = 0); the mock driver computes each problem into its own D
# (on a machine without the compiler, CUTEC_PREBUILT_PACK_DIR/sm90_list.pack:
# scripts/gpu-prepare.sh builds the same point)
if(_user_pack AND (TARGET cutec OR (CUTEC_PREBUILT_PACK_DIR AND EXISTS ${CUTEC_PREBUILT_PACK_DIR}/sm90_list.pack)))
  if(TARGET cutec)
    set(_sm90_list ${CMAKE_CURRENT_BINARY_DIR}/sm90_list.pack)
    add_custom_command(OUTPUT ${_sm90_list}
      COMMAND $<TARGET_FILE:cutec> pack ${PROJECT_SOURCE_DIR}/stdlib/sm90/gemm.cute --arch=sm_90a --no-cubin
              -D GRP=2 -D BM=128 -D BN=128 -D STAGES=5 -D EPI=1 -D CM=1 -D CN=1 -D PP=0 -D SK=0 -D RASTER=0
              -D PROMO=0 -o ${_sm90_list}
      DEPENDS cutec ${PROJECT_SOURCE_DIR}/stdlib/sm90/gemm.cute
      COMMENT "cutec pack stdlib/sm90/gemm.cute -> sm90_list.pack (one GRP = 2 point, PTX)"
      VERBATIM)
    add_custom_target(sm90_list_pack ALL DEPENDS ${_sm90_list})
    add_dependencies(test_grouped sm90_list_pack)
  else()
    set(_sm90_list ${CUTEC_PREBUILT_PACK_DIR}/sm90_list.pack)
  endif()
  if(TARGET user_gemm_pack)
    add_dependencies(test_grouped user_gemm_pack)
  endif()
  add_test(NAME pack_mock_grouped_list COMMAND test_grouped list ${_sm90_list} ${_user_pack})
  add_test(NAME pack_gpu_grouped_list COMMAND test_grouped list ${_sm90_list} ${_user_pack})
  set_tests_properties(pack_mock_grouped_list PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120
                       ENVIRONMENT "${_mock_env}")
  set_tests_properties(pack_gpu_grouped_list PROPERTIES LABELS "gpu;runtime;pack" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
add_test(NAME pack_cpu_grouped_list_statuses COMMAND test_grouped list_statuses)
set_tests_properties(pack_cpu_grouped_list_statuses PROPERTIES LABELS "cpu;runtime;pack" TIMEOUT 60)
add_test(NAME pack_cpu_grouped_statuses COMMAND test_grouped statuses)
set_tests_properties(pack_cpu_grouped_statuses PROPERTIES LABELS "cpu;runtime;pack" TIMEOUT 60)

# cutec-tune's grouped problems: --groups G and --skew S (tune, bench), a
# shapes file's groups=G column; the usage errors (no GPU), and under the
# mocks the reports name the groups and their row split, and bench's
# baseline of a grouped shape is a loop of cuBLASLt calls (a ratio)
cutec_tune_cli(pack_cpu_tune_groups_batch 2 EMPTY
               "^cutec-tune: error: options '--groups' and '--batch' exclude each other .a grouped problem is no batch.$"
               tune ${_va} --m 8 --n 8 --k 8 --groups 2 --batch 2)
cutec_tune_cli(pack_cpu_tune_groups_range 2 EMPTY
               "^cutec-tune: error: option '--groups': '0' is out of range .1 to 2147483647.$"
               tune ${_va} --m 8 --n 8 --k 8 --groups 0)
cutec_tune_cli(pack_cpu_tune_groups_overhead 2 EMPTY "^cutec-tune: error: option '--groups' does not apply to 'overhead'$"
               overhead ${_va} --m 8 --n 8 --k 8 --groups 2)
cutec_tune_cli(pack_cpu_tune_skew_range 2 EMPTY "^cutec-tune: error: option '--skew': '8.5' is out of range .0 to 8.$"
               tune ${_va} --m 8 --n 8 --k 8 --groups 2 --skew 8.5)
cutec_tune_cli(pack_cpu_tune_skew_nan 2 EMPTY "^cutec-tune: error: option '--skew': 'nan' is out of range .0 to 8.$"
               tune ${_va} --m 8 --n 8 --k 8 --groups 2 --skew nan)
cutec_tune_cli(pack_cpu_tune_skew_word 2 EMPTY "^cutec-tune: error: option '--skew': 'high' is not a number$"
               tune ${_va} --m 8 --n 8 --k 8 --groups 2 --skew high)
cutec_tune_cli(pack_cpu_tune_skew_alone 2 EMPTY "^cutec-tune: error: option '--skew' needs --groups$"
               tune ${_va} --m 8 --n 8 --k 8 --skew 1)
set(_groups_cli pack_cpu_tune_groups_batch pack_cpu_tune_groups_range pack_cpu_tune_groups_overhead
    pack_cpu_tune_skew_range pack_cpu_tune_skew_nan pack_cpu_tune_skew_word pack_cpu_tune_skew_alone)
set_tests_properties(${_groups_cli} PROPERTIES LABELS "cpu;runtime;pack" TIMEOUT 60)
if(_grouped_pack AND _user_pack)
  set(_cli_tests)
  cutec_tune_cli(pack_mock_tune_groups_skew 0
                 "^problem: M=300 N=24 K=32 groups=6 skew=1 .rows per group: 20 [.][.] 123, 0 empty. bf16 -> bf16" -
                 tune ${_grouped_pack} --m 300 --n 24 --k 32 --groups 6 --skew 1 --no-cache)
  cutec_tune_cli(pack_mock_tune_groups_balanced 0
                 "^problem: M=5 N=24 K=32 groups=8 skew=0 .rows per group: 0 [.][.] 1, 3 empty. bf16 -> bf16" -
                 tune ${_grouped_pack} --m 5 --n 24 --k 32 --groups 8 --no-cache)
  cutec_tune_cli(pack_mock_tune_groups_json 0 "\"batch\": 1, \"groups\": 7, \"skew\": 0.5, " -
                 tune ${_grouped_pack} --m 300 --n 24 --k 32 --groups 7 --skew 0.5 --no-cache --json)
  cutec_tune_cli(pack_mock_bench_groups 0 "^moe6 g6 +300 +24 +32 "
                 "grouped_shapes.txt:3: batch=2 and groups=3: a grouped problem is no batch. line skipped"
                 bench ${_grouped_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/grouped_shapes.txt --no-cache --no-warmup)
  cutec_tune_cli(pack_mock_bench_groups_json 0
                 "\"groups\": 6, \"skew\": 0.5, \"cublas_tflops\": [0-9.]+, \"dsl_tflops\": [0-9.]+, \"ratio\": [0-9.]*[1-9]" -
                 bench ${_grouped_pack} --shapes ${CMAKE_CURRENT_SOURCE_DIR}/grouped_shapes.txt --skew 0.5 --no-cache
                 --no-warmup --json)
  set_tests_properties(${_cli_tests} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 60 ENVIRONMENT "${_mock_env}")
  set_property(TEST pack_mock_tune_groups_json pack_mock_bench_groups_json APPEND PROPERTY ENVIRONMENT CHECK_CLI_JSON=1)
endif()

# cutec-tune bench --list (runtime/tools/tune_list_bench.c): list_shapes.txt's
# grouped shapes run as lists of their groups' problems over the one GRP = 2
# point above (sm90_list.pack), against the loop of cuBLASLt calls, each
# run's D checked against float64 (exit 1 if wrong); with --skew 2, 7 of
# sparse's 12 groups are empty.  The warm-up tunes the first shape as a
# list too (a list pack serves no other form).  Usage errors need no GPU.
set(_cli_tests)
cutec_tune_cli(pack_cpu_bench_list_ungrouped 2 EMPTY
               "^cutec-tune: error: option '--list' needs grouped shapes: .*mock_shapes.txt:2: 'tiny' has no groups=G column$"
               bench ${_va} --list --shapes ${CMAKE_CURRENT_SOURCE_DIR}/mock_shapes.txt --json)
cutec_tune_cli(pack_cpu_bench_list_exhaustive 2 EMPTY
               "^cutec-tune: error: options '--list' and '--compare-exhaustive' exclude each other$"
               bench ${_va} --list --compare-exhaustive --shapes ${CMAKE_CURRENT_SOURCE_DIR}/list_shapes.txt)
set_tests_properties(${_cli_tests} PROPERTIES LABELS "cpu;runtime;pack" TIMEOUT 60)
if(_sm90_list)
  set(_cli_tests)
  cutec_tune_cli(pack_mock_bench_list 0
                 "^sparse g12 list +40 +40 +64 +[0-9]+[.][0-9] +[0-9]+[.][0-9] +(0[.]0*[1-9]|[1-9][0-9]*[.])[0-9]* +0[.]000 "
                 -
                 bench ${_sm90_list} --list --shapes ${CMAKE_CURRENT_SOURCE_DIR}/list_shapes.txt --skew 2 --no-cache)
  cutec_tune_cli(pack_mock_bench_list_check 0
                 "^ +list: bound m 26. checked 400 elements .10 rows of 5 groups. against float64: max [|]d - v[|] / sum [|]a b[|] [0-9.e-]+ .limit 0[.]00782."
                 -
                 bench ${_sm90_list} --list --shapes ${CMAKE_CURRENT_SOURCE_DIR}/list_shapes.txt --skew 2 --no-cache
                 --no-warmup)
  cutec_tune_cli(pack_mock_bench_list_json 0
                 "\"groups\": 12, \"skew\": 2, \"list\": true, \"list_bound_m\": 26, \"checked_groups\": 5, \"checked_rows\": 10, \"checked_elements\": 400, \"check_max_rel\": [0-9][.][0-9]{3}e-0[0-9], \"check_limit\": 7[.]81[0-9]e-03, \"cublas_tflops\": [0-9.]*[1-9][0-9.]*, \"dsl_tflops\": [0-9.]*[1-9][0-9.]*, \"ratio\": [0-9.]*[1-9]"
                 -
                 bench ${_sm90_list} --list --shapes ${CMAKE_CURRENT_SOURCE_DIR}/list_shapes.txt --skew 2 --no-cache
                 --no-warmup --json)
  set_tests_properties(${_cli_tests} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 60 ENVIRONMENT "${_mock_env}")
  set_property(TEST pack_mock_bench_list_json APPEND PROPERTY ENVIRONMENT CHECK_CLI_JSON=1)
endif()

# cutec-tune error (the accumulation error study, runtime/tools/tune_error.c):
# its usage errors (no GPU); under the mocks its table (every pack kernel
# and cuBLASLt algorithm, the best-tuned one marked, the ratio line), the
# mock's wrong kernels measured as the larger errors they are, --only, and
# the JSON object
set(_cli_tests)
cutec_tune_cli(pack_cpu_tune_error_fp8_out 2 EMPTY
               "^cutec-tune: error: 'error' measures a bf16, f16 or f32 output, not e4m3$"
               error ${_va} --m 8 --n 8 --k 64 --dtype e4m3 --out-dtype e4m3)
cutec_tune_cli(pack_cpu_tune_error_block_bf16 2 EMPTY
               "^cutec-tune: error: option '--scale block' needs fp8 inputs .--dtype e4m3 or e5m2.$"
               error ${_va} --m 8 --n 8 --k 64 --scale block)
cutec_tune_cli(pack_cpu_tune_error_rows_range 2 EMPTY
               "^cutec-tune: error: option '--rows': '0' is out of range .1 to 4096.$"
               error ${_va} --m 8 --n 8 --k 64 --rows 0)
cutec_tune_cli(pack_cpu_tune_error_seed_word 2 EMPTY "^cutec-tune: error: option '--seed': 'x' is not an integer$"
               error ${_va} --m 8 --n 8 --k 64 --seed x)
cutec_tune_cli(pack_cpu_tune_error_needs_mnk 2 EMPTY "^cutec-tune: error: 'error' needs --m, --n and --k$"
               error ${_va} --m 8)
cutec_tune_cli(pack_cpu_tune_error_epilogue 2 EMPTY
               "^cutec-tune: error: option '--epilogue' does not apply to 'error'$"
               error ${_va} --m 8 --n 8 --k 64 --epilogue relu)
cutec_tune_cli(pack_cpu_tune_error_only_elsewhere 2 EMPTY
               "^cutec-tune: error: option '--only' does not apply to 'tune'$"
               tune ${_va} --m 8 --n 8 --k 64 --only BM=64)
set_tests_properties(${_cli_tests} PROPERTIES LABELS "cpu;runtime;pack" TIMEOUT 60)
if(_test_pack)
  set(_cli_tests)
  cutec_tune_cli(pack_mock_tune_error_table 0 "^[*] gemm_sm80 BM=[0-9]+ BN=[0-9]+ FRAGS=[12] +[0-9.]+e-0[0-9] " -
                 error ${_test_pack} --m 64 --n 48 --k 256 --no-cache)
  cutec_tune_cli(pack_mock_tune_error_ratio 0 "^  mean +1[.]000 +1[.]000 +1[.]000$" -
                 error ${_test_pack} --m 64 --n 48 --k 256 --no-cache)
  cutec_tune_cli(pack_mock_tune_error_cublas 0 "^  cublasLt algo #0 +[0-9.]+e-0[0-9] " -
                 error ${_test_pack} --m 64 --n 48 --k 256 --no-cache --rows 8)
  # the mock's BM = 64 kernels compute wrong results: measured, an error of
  # 1 or more where the right ones' is below 1/4 (the normal distribution)
  cutec_tune_cli(pack_mock_tune_error_wrong 0 "^  gemm_sm80 BM=64 BN=64 FRAGS=1 +[1-9][.][0-9]+e[+]0[0-9] " -
                 error ${_test_pack} --m 64 --n 48 --k 256 --no-cache --only BN=64)
  set_property(TEST pack_mock_tune_error_wrong APPEND PROPERTY ENVIRONMENT "CUTEC_MOCK_WRONG=BM 64")
  cutec_tune_cli(pack_mock_tune_error_json 0
                 "\"ratio_vs_algo0\": [{]\"max_abs\": 1[.]0000, \"rms\": 1[.]0000, \"max_rel\": 1[.]0000[}][}]" -
                 error ${_test_pack} --m 64 --n 48 --k 256 --no-cache --json)
  set_tests_properties(${_cli_tests} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 60)
  foreach(_t ${_cli_tests})
    set_property(TEST ${_t} APPEND PROPERTY ENVIRONMENT ${_mock_env})
  endforeach()
  set_property(TEST pack_mock_tune_error_json APPEND PROPERTY ENVIRONMENT CHECK_CLI_JSON=1)
endif()

# What a cached call asks of the driver and cuBLASLt (test_calls.c): D and
# A rotating over a few buffers, the mocks' counts per entry point pinned
add_executable(test_calls test_calls.c)
target_link_libraries(test_calls PRIVATE cutec_rt ${CMAKE_DL_LIBS} m)
target_compile_options(test_calls PRIVATE ${CUTEC_WARNINGS})
add_dependencies(test_calls cutec_mock_cublaslt cutec_mock_driver)
set(_calls_tests)
if(_test_pack)
  add_test(NAME pack_mock_calls_pack COMMAND test_calls pack ${_test_pack})
  add_test(NAME pack_mock_calls_cublas COMMAND test_calls cublas ${_test_pack})
  add_test(NAME pack_mock_calls_callbacks COMMAND test_calls callbacks ${_test_pack})
  # CUTEC_OPT_HOST_BOUND_US: launches that cost the host 200 us each (the
  # variable joins the mock environment below)
  add_test(NAME pack_mock_calls_host_bound COMMAND test_calls host_bound ${_test_pack})
  list(APPEND _calls_tests pack_mock_calls_pack pack_mock_calls_cublas pack_mock_calls_callbacks
       pack_mock_calls_host_bound)
endif()
if(TARGET cutec)
  add_test(NAME pack_mock_calls_maps COMMAND test_calls maps ${_sm90_one})
  list(APPEND _calls_tests pack_mock_calls_maps)
endif()
if(_ea_pack)
  add_test(NAME pack_mock_calls_ew COMMAND test_calls ew ${_ea_pack})
  list(APPEND _calls_tests pack_mock_calls_ew)
endif()
if(_calls_tests)
  set_tests_properties(${_calls_tests} PROPERTIES LABELS "cpu;runtime;pack;mock" TIMEOUT 120 SKIP_RETURN_CODE 77
    ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>")
endif()
