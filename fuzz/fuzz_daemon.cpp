// The daemon's inputs: its TOML configuration and a request's validation (daemon/config.hpp, requests.hpp). The
// first byte picks which; a request is the rest as a serialized SubmitProofRequest, checked against a configuration whose
// directories do not exist (every file a request names is then refused, after the checks before it ran).
#include "cuzk/daemon/config.hpp"
#include "cuzk/daemon/requests.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace cuzk::daemon;
    if (size == 0) return 0;
    const auto rest = cuzk::fuzz::text(data + 1, size - 1);
    if (data[0] & 1) {
        cuzk::fuzz::refusal_is_fine([&] { parse_config(std::string(rest), "/nonexistent"); });
    } else {
        cuzk::fuzz::refusal_is_fine([&] {
            cuzk::v1::SubmitProofRequest r;
            if (!r.ParseFromArray(rest.data(), (int)rest.size())) return;
            DaemonConfig cfg;
            cfg.params_dir = "/nonexistent/params";
            cfg.circuits_dir = "/nonexistent/circuits";
            plan_request(r, cfg);
        });
    }
    return 0;
}
