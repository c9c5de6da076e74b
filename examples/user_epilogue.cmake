# user_epilogue.cmake - the user-epilogue example (examples/user_epilogue.c):
# examples/my_epilogue.cute's squared_relu fused into the stdlib sm90 GEMM
# (with a bias), tuned and checked against float64.  Include from
# examples/CMakeLists.txt.  Its two packs:
#   GEMM: cutec pack stdlib/sm90/gemm.cute --import examples/my_epilogue.cute
#         -D ACT=squared_relu -D BIAS=1
#   EW:   the elementwise kernels of the unfused baseline (cuBLASLt's GEMM,
#         then the activation): stdlib/epilogue_apply.cute with squared_relu
#         as its tune clause's only ACT (a -D of a tune variable only picks
#         among the listed values, and the stdlib lists its own functions),
#         a copy made at configure time
# On the GPU machine (no LLVM) both come from CUTEC_PREBUILT_PACK_DIR
# (scripts/gpu-prepare.sh packs every tune point); where the compiler is
# built, a few points are packed here (PTX, sm_90a) for the mock test.
# CTest: example_user_epilogue (gpu;examples, 77 = skipped without a GPU)
# and example_user_epilogue_mock, _mock_no_ew (the same program on the mock
# driver and mock cuBLASLt of tests/runtime, which compute kernels from
# their roles; the mock knows squared_relu).

add_executable(user_epilogue ${CMAKE_CURRENT_LIST_DIR}/user_epilogue.c)
target_link_libraries(user_epilogue PRIVATE cutec_rt m)
target_compile_options(user_epilogue PRIVATE ${CUTEC_WARNINGS})

set(_ue_src ${PROJECT_SOURCE_DIR}/stdlib/epilogue_apply.cute)
set(_ue_list "ACT in [identity, relu, relu6, gelu_tanh, gelu_erf, silu, sigmoid, swiglu, geglu];")
set(_ue_gemm "")
set(_ue_ew "")
if(CUTEC_PREBUILT_PACK_DIR AND EXISTS ${CUTEC_PREBUILT_PACK_DIR}/gemm_sm90_squared_relu_bias.pack
   AND EXISTS ${CUTEC_PREBUILT_PACK_DIR}/epilogue_apply_squared_relu.pack)
  set(_ue_gemm ${CUTEC_PREBUILT_PACK_DIR}/gemm_sm90_squared_relu_bias.pack)
  set(_ue_ew ${CUTEC_PREBUILT_PACK_DIR}/epilogue_apply_squared_relu.pack)
elseif(TARGET cutec)
  file(READ ${_ue_src} _ue_text)
  string(FIND "${_ue_text}" "${_ue_list}" _ue_at)
  if(_ue_at EQUAL -1)
    message(FATAL_ERROR "user_epilogue.cmake: stdlib/epilogue_apply.cute's line '${_ue_list}' changed")
  endif()
  string(REPLACE "${_ue_list}" "ACT in [squared_relu];" _ue_text "${_ue_text}")
  set(_ue_copy ${CMAKE_CURRENT_BINARY_DIR}/epilogue_apply_squared_relu.cute)
  file(WRITE ${_ue_copy} "${_ue_text}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_ue_src})
  set(_ue_gemm ${CMAKE_CURRENT_BINARY_DIR}/gemm_sm90_squared_relu_bias.pack)
  set(_ue_ew ${CMAKE_CURRENT_BINARY_DIR}/epilogue_apply_squared_relu.pack)
  set(_ue_import --import ${CMAKE_CURRENT_SOURCE_DIR}/my_epilogue.cute)
  # two points: the register stores and the whole-tile TMA store
  add_custom_command(OUTPUT ${_ue_gemm}
    COMMAND $<TARGET_FILE:cutec> pack ${PROJECT_SOURCE_DIR}/stdlib/sm90/gemm.cute ${_ue_import} -D ACT=squared_relu
            -D BIAS=1 -D BM=128 -D BN=128 -D STAGES=4 -D CM=1 -D CN=1 -D PP=0 -D SK=0 -D RASTER=0 -D PROMO=0
            --arch=sm_90a --no-cubin -o ${_ue_gemm}
    DEPENDS cutec ${PROJECT_SOURCE_DIR}/stdlib/sm90/gemm.cute ${CMAKE_CURRENT_SOURCE_DIR}/my_epilogue.cute
    COMMENT "cutec pack stdlib/sm90/gemm.cute -D ACT=squared_relu -D BIAS=1 -> gemm_sm90_squared_relu_bias.pack (2 points)"
    VERBATIM)
  add_custom_command(OUTPUT ${_ue_ew}
    COMMAND $<TARGET_FILE:cutec> pack ${_ue_copy} ${_ue_import} -D GLU=0 -D BIAS=1 -D AUX=0 -D CLAMP=0
            --arch=sm_90a --no-cubin -o ${_ue_ew}
    DEPENDS cutec ${_ue_copy} ${CMAKE_CURRENT_SOURCE_DIR}/my_epilogue.cute
    COMMENT "cutec pack epilogue_apply_squared_relu.cute -> epilogue_apply_squared_relu.pack (2 points)"
    VERBATIM)
  add_custom_target(user_epilogue_packs ALL DEPENDS ${_ue_gemm} ${_ue_ew})
  add_dependencies(user_epilogue user_epilogue_packs)
  # the mock: small ragged shapes (it computes in float64 on the CPU); every
  # result right (exit 0), nothing logged, the unfused baseline compared;
  # without the elementwise pack, the pack kernels alone
  set(_ue_check sh ${PROJECT_SOURCE_DIR}/tests/runtime/check_cli.sh 0)
  add_test(NAME example_user_epilogue_mock
           COMMAND ${_ue_check} "^  unfused: +[0-9.]+ ms  cublasLt algo #0 [+] epilogue_apply T=bf16 ACT=squared_relu GLU=0 BIAS=1 AUX=0 VEC=8 CLAMP=0$"
                   EMPTY $<TARGET_FILE:user_epilogue> ${_ue_gemm} ${_ue_ew} 40x24x32 77x136x64)
  add_test(NAME example_user_epilogue_mock_no_ew
           COMMAND ${_ue_check} "^  unfused: none [(]cuBLASLt has no fused form of a user's activation" EMPTY
                   $<TARGET_FILE:user_epilogue> ${_ue_gemm} 77x136x64)
  set_tests_properties(example_user_epilogue_mock example_user_epilogue_mock_no_ew PROPERTIES
    LABELS "cpu;examples;mock" TIMEOUT 120
    ENVIRONMENT "CUTEC_CUDA_DRIVER=$<TARGET_FILE:cutec_mock_driver>;CUTEC_CUBLASLT=$<TARGET_FILE:cutec_mock_cublaslt>")
  add_dependencies(user_epilogue cutec_mock_driver cutec_mock_cublaslt)
endif()

if(_ue_gemm)
  add_test(NAME example_user_epilogue COMMAND user_epilogue ${_ue_gemm} ${_ue_ew})
  set_tests_properties(example_user_epilogue PROPERTIES LABELS "gpu;examples" SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
