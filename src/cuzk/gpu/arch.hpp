// Which GPUs a build's device code runs on (no CUDA headers here: the CPU tests check it). nvcc embeds machine code
// (SASS, "sm_XY", CMake's "XY-real") and PTX ("compute_XY", "XY-virtual"). The driver runs SASS for sm_XY on a
// device of compute capability X.Z with Z >= Y (the same major), and compiles PTX for compute_XY at load time for
// any device of capability >= X.Y; arch-specific code ("90a") runs on X.Y alone, family code ("100f") on X.Z,
// Z >= Y. A device none of them covers fails every kernel launch with "no kernel image is available".
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::gpu {

struct CudaArchs {
    struct Code {
        unsigned cc = 0;   // 10 * major + minor
        char suffix = 0;   // 0, 'a' (this capability only) or 'f' (its family: the same major)
    };
    std::vector<Code> sass, ptx;
    bool known = true;  // false: a list this parser does not understand ("all", "native"): assume it covers all
    std::string text;   // as given
};

// A CMake CUDA_ARCHITECTURES list ("75-real;90-real;90-virtual"; "90" is both), entries separated by ';' or ','.
inline CudaArchs parse_cuda_archs(std::string_view list) {
    CudaArchs out;
    out.text = std::string(list);
    size_t pos = 0;
    while (pos <= list.size()) {
        size_t end = list.find_first_of(";,", pos);
        if (end == std::string_view::npos) end = list.size();
        std::string_view item = list.substr(pos, end - pos);
        pos = end + 1;
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (item.empty()) continue;
        bool real = true, virt = true;
        if (const size_t dash = item.find('-'); dash != std::string_view::npos) {
            const std::string_view kind = item.substr(dash + 1);
            item = item.substr(0, dash);
            if (kind == "real") virt = false;
            else if (kind == "virtual") real = false;
            else out.known = false;
        }
        CudaArchs::Code code;
        if (!item.empty() && (item.back() == 'a' || item.back() == 'f')) {
            code.suffix = item.back();
            item.remove_suffix(1);
        }
        if (item.size() < 2 || item.size() > 3 || !std::all_of(item.begin(), item.end(), [](char c) {
                return c >= '0' && c <= '9';
            })) {
            out.known = false;
            continue;
        }
        for (char c : item) code.cc = 10 * code.cc + (unsigned)(c - '0');
        if (real) out.sass.push_back(code);
        if (virt) out.ptx.push_back(code);
    }
    if (out.sass.empty() && out.ptx.empty()) out.known = false;
    return out;
}

// True when the build has code a device of capability major.minor can run.
inline bool cuda_archs_cover(const CudaArchs& a, int major, int minor) {
    if (!a.known) return true;
    const unsigned cc = 10u * (unsigned)major + (unsigned)minor;
    const auto same_major = [&](unsigned x) { return x / 10 == cc / 10; };
    for (const auto& s : a.sass) {
        if (s.suffix == 'a' ? s.cc == cc : same_major(s.cc) && s.cc <= cc) return true;
    }
    for (const auto& p : a.ptx) {
        if (p.suffix == 'a' ? p.cc == cc : p.suffix == 'f' ? same_major(p.cc) && p.cc <= cc : p.cc <= cc) return true;
    }
    return false;
}

// "sm_75, sm_90 and PTX for compute_90", for messages.
inline std::string describe_cuda_archs(const CudaArchs& a) {
    if (!a.known) return "CUDA architectures \"" + a.text + "\"";
    auto name = [](const char* prefix, const CudaArchs::Code& c) {
        std::string s = prefix + std::to_string(c.cc);
        if (c.suffix) s += c.suffix;
        return s;
    };
    std::string out;
    for (size_t i = 0; i < a.sass.size(); i++) out += (i ? ", " : "") + name("sm_", a.sass[i]);
    if (!a.ptx.empty()) {
        out += out.empty() ? "PTX for " : " and PTX for ";
        for (size_t i = 0; i < a.ptx.size(); i++) out += (i ? ", " : "") + name("compute_", a.ptx[i]);
    }
    return out;
}

}  // namespace cuzk::gpu
