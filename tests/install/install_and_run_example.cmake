# CTest script (tests/CMakeLists.txt, label "install"): installs the built tcemu into a fresh prefix,
# configures and builds examples/gemm_schemes and examples/gemm_views against it with
# find_package(tcemu CONFIG), runs them and checks that every scheme ran as asked with an FP32-level
# error (gemm_views: real and complex products, on the GPU in a CUDA build with a CUDA Kokkos).
# Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR, CXX_COMPILER, CXX_FLAGS, LINKER_FLAGS (the build's own).
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
if(NOT EXISTS ${WORK_DIR}/prefix/lib/cmake/tcemu/tcemuConfig.cmake OR NOT EXISTS ${WORK_DIR}/prefix/include/tcemu/gemm.hpp)
  message(FATAL_ERROR "the install lacks the package configuration or the headers")
endif()
# The apps' plumbing (apps/common: arguments, --device, HDF5 I/O) is not core's public API.
foreach(app_header io app_args.hpp device.hpp app_common)
  if(EXISTS ${WORK_DIR}/prefix/include/tcemu/${app_header} OR EXISTS ${WORK_DIR}/prefix/include/${app_header})
    message(FATAL_ERROR "the install ships the apps' ${app_header}")
  endif()
endforeach()
function(build_example name)
  step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/${name} -B ${WORK_DIR}/build-${name} -DCMAKE_BUILD_TYPE=Release
       -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
       "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
  step(${CMAKE_COMMAND} --build ${WORK_DIR}/build-${name})
endfunction()
# `output` must hold a row "<prefix><scheme> <scheme> <error>" per scheme with error <= 1e-5.
function(check_rows output prefix)
  foreach(scheme fp32 fp16x2 bf16x3 tf32x2)
    if(NOT output MATCHES "${prefix}${scheme} +${scheme} +([0-9.]+e[-+][0-9]+)")
      message(FATAL_ERROR "no row for ${prefix}${scheme} (or it ran another scheme)")
    endif()
    if(CMAKE_MATCH_1 GREATER 1e-5)
      message(FATAL_ERROR "${prefix}${scheme}: relative error ${CMAKE_MATCH_1} above 1e-5")
    endif()
  endforeach()
endfunction()

# examples/gemm_schemes: tcemu::gemm on host Views without an instance.
build_example(gemm_schemes)
step(${WORK_DIR}/build-gemm_schemes/gemm_schemes 128)
message("${step_output}")
check_rows("${step_output}" "")
# examples/gemm_views: the execution-space entry with tcemu::Resources, real and complex Views, on
# Kokkos::Cuda with CudaSpace Views when the package has CUDA (and its Kokkos too), else on the host.
build_example(gemm_views)
step(${WORK_DIR}/build-gemm_views/gemm_views 128)
message("${step_output}")
check_rows("${step_output}" "real:")
check_rows("${step_output}" "complex:")
file(REMOVE_RECURSE ${WORK_DIR})
