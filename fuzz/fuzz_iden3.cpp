// circom's .r1cs and .wtns and snarkjs's .zkey (formats/iden3.hpp).
#include "cuzk/formats/iden3.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace cuzk::formats::iden3;
    const auto b = cuzk::fuzz::bytes(data, size);
    cuzk::fuzz::refusal_is_fine([&] { read_r1cs(b, "fuzz.r1cs"); });
    cuzk::fuzz::refusal_is_fine([&] { read_wtns(b, "fuzz.wtns"); });
    cuzk::fuzz::refusal_is_fine([&] { read_zkey(b, "fuzz.zkey"); });
    return 0;
}
