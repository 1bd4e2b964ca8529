# Fails when a PTX file contains a `trap` instruction. nvcc compiles device code that reads host memory (for
# example a static constexpr array bound by reference) into an unconditional trap without any diagnostic; this
# check catches that in CI, where there is no GPU to run the kernel. Usage: cmake -DPTX=file.ptx -P check_ptx.cmake
file(READ "${PTX}" ptx)
string(REGEX MATCHALL "[ \t]trap;" traps "${ptx}")
list(LENGTH traps n)
if(n GREATER 0)
  message(FATAL_ERROR "${PTX}: ${n} trap instruction(s): some device code reads host memory or is undefined")
endif()
string(REGEX MATCHALL "\\.entry" entries "${ptx}")
list(LENGTH entries m)
if(m EQUAL 0)
  message(FATAL_ERROR "${PTX}: no kernels")
endif()
message(STATUS "${PTX}: ${m} kernels, no trap")
