// Which GPUs a build's device code covers (gpu/arch.hpp): CUDA's rules for machine code and PTX. No GPU needed.
#include <gtest/gtest.h>

#include "cuzk/gpu/arch.hpp"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/gpu/device.hpp"
#endif

using namespace cuzk::gpu;

TEST(CudaArchs, ParsesCMakeLists) {
    const auto a = parse_cuda_archs("75-real;90-real,90-virtual; 120");
    ASSERT_TRUE(a.known);
    ASSERT_EQ(a.sass.size(), 3u);
    EXPECT_EQ(a.sass[0].cc, 75u);
    EXPECT_EQ(a.sass[1].cc, 90u);
    EXPECT_EQ(a.sass[2].cc, 120u) << "a plain entry is machine code and PTX";
    ASSERT_EQ(a.ptx.size(), 2u);
    EXPECT_EQ(a.ptx[0].cc, 90u);
    EXPECT_EQ(a.ptx[1].cc, 120u);
    EXPECT_EQ(describe_cuda_archs(a), "sm_75, sm_90, sm_120 and PTX for compute_90, compute_120");
    EXPECT_EQ(parse_cuda_archs("90a-real").sass.at(0).suffix, 'a');
    for (const char* odd : {"all", "native", "all-major", "", "90-fast", "9"})
        EXPECT_FALSE(parse_cuda_archs(odd).known) << odd;
}

TEST(CudaArchs, MachineCodeRunsOnItsMajorFromItsMinorOn) {
    const auto a = parse_cuda_archs("80-real");
    EXPECT_TRUE(cuda_archs_cover(a, 8, 0));
    EXPECT_TRUE(cuda_archs_cover(a, 8, 6)) << "RTX 30";
    EXPECT_TRUE(cuda_archs_cover(a, 8, 9)) << "RTX 40";
    EXPECT_FALSE(cuda_archs_cover(a, 7, 5));
    EXPECT_FALSE(cuda_archs_cover(a, 9, 0)) << "another major";
    const auto b = parse_cuda_archs("86-real");
    EXPECT_FALSE(cuda_archs_cover(b, 8, 0)) << "an older minor";
    const auto c = parse_cuda_archs("90a-real");
    EXPECT_TRUE(cuda_archs_cover(c, 9, 0));
    EXPECT_FALSE(cuda_archs_cover(c, 9, 1)) << "arch-specific code runs on its own capability only";
}

TEST(CudaArchs, PtxRunsOnEveryNewerCapability) {
    const auto a = parse_cuda_archs("90-real;90-virtual");  // what the tests build
    EXPECT_TRUE(cuda_archs_cover(a, 9, 0));
    EXPECT_TRUE(cuda_archs_cover(a, 10, 0)) << "B200 compiles the PTX";
    EXPECT_TRUE(cuda_archs_cover(a, 12, 0)) << "RTX 50 compiles the PTX";
    EXPECT_FALSE(cuda_archs_cover(a, 8, 9)) << "RTX 40: neither";
    EXPECT_FALSE(cuda_archs_cover(a, 8, 6)) << "RTX 30: neither";
    EXPECT_FALSE(cuda_archs_cover(parse_cuda_archs("90-real"), 10, 0)) << "no PTX, another major";
    EXPECT_TRUE(cuda_archs_cover(parse_cuda_archs("all"), 6, 1)) << "a list not understood assumes coverage";
}

TEST(CudaArchs, ThePortableListCoversTuringToBlackwell) {
    // cmake/cuda_archs.cmake's CUZK_CUDA_PORTABLE_ARCHS.
    const auto a = parse_cuda_archs("75-real;80-real;86-real;89-real;90-real;100-real;120-real;120-virtual");
    for (auto [major, minor] : {std::pair{7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {12, 0},
                                {12, 1}, {13, 0}})
        EXPECT_TRUE(cuda_archs_cover(a, major, minor)) << major << "." << minor;
    EXPECT_FALSE(cuda_archs_cover(a, 7, 0)) << "Volta: CUDA 13 compiles nothing for it";
    EXPECT_FALSE(cuda_archs_cover(a, 6, 1));
}

#ifdef CUZK_HAVE_CUDA
TEST(CudaArchs, DevicesAreThoseTheBuildCovers) {
    const auto& built = built_cuda_archs();
    EXPECT_TRUE(built.known) << built.text;
    std::printf("built for %s\n", describe_cuda_archs(built).c_str());
    for (const auto& d : devices()) EXPECT_TRUE(cuda_archs_cover(built, d.cc_major, d.cc_minor)) << d.name;
    for (const auto& u : unusable_devices()) {
        EXPECT_FALSE(cuda_archs_cover(built, u.info.cc_major, u.info.cc_minor)) << u.info.name;
        EXPECT_NE(u.why.find("CUZK_CUDA_ARCHS"), std::string::npos) << u.why;
    }
}
#endif
