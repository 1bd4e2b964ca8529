// bellman/bellperson parameter and verifying-key files (formats/bellman_params.hpp).
#include "cuzk/formats/bellman_params.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace cuzk;
    const auto b = fuzz::bytes(data, size);
    fuzz::refusal_is_fine([&] { formats::parse_parameters_layout(b, "fuzz.params"); });
    fuzz::refusal_is_fine([&] { formats::read_parameters(b, "fuzz.params"); });
    fuzz::refusal_is_fine([&] { formats::read_verifying_key(b, "fuzz.vk"); });
    return 0;
}
