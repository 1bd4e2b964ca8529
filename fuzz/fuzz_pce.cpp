// The pre-compiled constraint evaluator's file (r1cs/pce.hpp).
#include "cuzk/r1cs/pce.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    cuzk::fuzz::refusal_is_fine([&] { cuzk::r1cs::read_pce(cuzk::fuzz::bytes(data, size), "fuzz.pce"); });
    return 0;
}
