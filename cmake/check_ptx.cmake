# Fails when a PTX file contains a `trap` instruction. nvcc compiles device code that reads host memory (for
# example a static constexpr array bound by reference) into an unconditional trap without any diagnostic; this
# check catches that in CI, where there is no GPU to run the kernel.
# Usage: cmake -DPTX=file.ptx -P check_ptx.cmake, or cmake -DPTX_DIR=dir -DPTX_NAME=name -P check_ptx.cmake for the
# PTX nvcc kept while compiling name.cu (dir/name.ptx, or dir/name.compute_XX.ptx per virtual architecture).
cmake_policy(VERSION 3.16)
if(DEFINED PTX_DIR)
  file(GLOB files "${PTX_DIR}/${PTX_NAME}.ptx" "${PTX_DIR}/${PTX_NAME}.compute_*.ptx")
  if(NOT files)
    message(FATAL_ERROR "${PTX_DIR}: no PTX kept for ${PTX_NAME}.cu (is it compiled with --keep?)")
  endif()
else()
  set(files "${PTX}")
endif()
foreach(f ${files})
  file(READ "${f}" ptx)
  string(REGEX MATCHALL "[ \t]trap;" traps "${ptx}")
  list(LENGTH traps n)
  if(n GREATER 0)
    message(FATAL_ERROR "${f}: ${n} trap instruction(s): some device code reads host memory or is undefined")
  endif()
  string(REGEX MATCHALL "\\.entry" entries "${ptx}")
  list(LENGTH entries m)
  if(m EQUAL 0)
    message(FATAL_ERROR "${f}: no kernels")
  endif()
  message(STATUS "${f}: ${m} kernels, no trap")
endforeach()
