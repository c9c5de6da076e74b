# install_compiler.cmake - included by install_test.cmake (prefix, WORK_DIR,
# SOURCE_DIR set): the installed cutec compiles, from a directory outside
# the source tree, the examples and a kernel importing std.* modules, with
# the standard library installed beside it.  It must not fall back on the
# source tree's stdlib/ (which is still there): the dependency file and the
# message for a missing module name the installed one.
file(REAL_PATH ${prefix}/share/cutec/stdlib stdlib)
foreach(f bin/cutec share/cutec/stdlib/std/bounds.cute share/cutec/stdlib/std/sm80/mma.cute
          share/cutec/stdlib/std/sm90/pipeline.cute share/cutec/stdlib/sm80/gemm.cute share/cutec/stdlib/sm90/gemm.cute)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# a working directory outside the source and build trees
if(DEFINED ENV{TMPDIR} AND IS_DIRECTORY "$ENV{TMPDIR}")
  set(tmproot $ENV{TMPDIR})
else()
  set(tmproot /tmp)
endif()
string(RANDOM LENGTH 8 tag)
set(out ${tmproot}/cutec-install-test-${tag})
file(MAKE_DIRECTORY ${out})
file(WRITE ${out}/k.cute "import std.sm80.mma;\nimport std.bounds;\n\nkernel k(M: i32, x: tensor<f32, gmem, (M):(1)>) threads(32) {\n  let i = i32(threadIdx.x);\n  if in_bounds2(i, 0, M, 1) { x(i) = 1.5e0; }\n}\n")
file(WRITE ${out}/missing.cute "import std.not_a_module;\n")
set(env ${CMAKE_COMMAND} -E env --unset=CUTEC_STDLIB)
function(run_cutec what)
  execute_process(COMMAND ${env} ${prefix}/bin/cutec ${ARGN} WORKING_DIRECTORY ${out}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE o)
  if(rc)
    file(REMOVE_RECURSE ${out})
    message(FATAL_ERROR "the installed cutec failed to compile ${what} (${rc}):\n${o}")
  endif()
endfunction()
run_cutec(k.cute k.cute -MD -o k.ptx)
run_cutec(examples/transpose.cute ${SOURCE_DIR}/examples/transpose.cute -o transpose.ptx)
run_cutec(examples/sgemm.cute ${SOURCE_DIR}/examples/sgemm.cute -o sgemm.ptx)
run_cutec("a pack of k.cute" pack k.cute --no-cubin -j 1 -o k.pack)
file(READ ${out}/k.d deps)
foreach(m std/sm80/mma.cute std/bounds.cute)
  string(FIND "${deps}" "${stdlib}/${m}" at)
  if(at LESS 0)
    file(REMOVE_RECURSE ${out})
    message(FATAL_ERROR "the installed cutec did not use ${stdlib}/${m}; its dependencies:\n${deps}")
  endif()
endforeach()
execute_process(COMMAND ${env} ${prefix}/bin/cutec missing.cute WORKING_DIRECTORY ${out}
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE o)
string(FIND "${o}" "'${stdlib}' (standard library)" at)
file(REMOVE_RECURSE ${out})
if(NOT rc EQUAL 1 OR at LESS 0)
  message(FATAL_ERROR "a missing module should name the installed standard library ${stdlib} (exit ${rc}):\n${o}")
endif()
