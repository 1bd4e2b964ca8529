#include "cuzk/util/random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace cuzk {

void OsRng::fill(void* out, size_t bytes) {
    auto* p = static_cast<uint8_t*>(out);
    while (bytes > 0) {
        ssize_t n = getrandom(p, bytes, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(std::string("getrandom failed: ") + std::strerror(errno));
        }
        p += n;
        bytes -= (size_t)n;
    }
}

OsRng::result_type OsRng::operator()() {
    uint64_t v;
    fill(&v, sizeof v);
    return v;
}

void secure_wipe(void* p, size_t bytes) { explicit_bzero(p, bytes); }

}  // namespace cuzk
