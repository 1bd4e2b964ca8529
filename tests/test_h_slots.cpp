// The GPU prover's choice of H slot (backends/cuda/h_slots.hpp), on the CPU: which set of H's device arrays a proof
// takes, and which one prepare() fills. GpuGroth16.OneHSlotProvesEveryCircuitInIt runs the same on a GPU.
#include "cuzk/backends/cuda/h_slots.hpp"

#include <gtest/gtest.h>

namespace cuzk::gpu {
namespace {

constexpr HSlotState kFree{true, false, false};      // made for the domain, nothing in it
constexpr HSlotState kMissing{false, false, false};  // not made (or made for another domain)
constexpr HSlotState kHeld{true, true, false};       // a prepared circuit's data
constexpr HSlotState kNext{true, false, true};       // the next circuit of a batch, uploaded

int claim(int preferred, HSlotState a, HSlotState b) {
    const HSlotState s[2] = {a, b};
    return claim_h_slot(preferred, s);
}

TEST(HSlots, AProofTakesThePreferredSlotUnlessAPreparedCircuitHoldsIt) {
    for (int p = 0; p < 2; p++) {
        EXPECT_EQ(claim(p, kFree, kFree), p);
        EXPECT_EQ(claim(p, kMissing, kMissing), p) << "neither made: the preferred one is made";
    }
    EXPECT_EQ(claim(0, kHeld, kFree), 1);
    EXPECT_EQ(claim(1, kFree, kHeld), 0);
    EXPECT_EQ(claim(0, kHeld, kMissing), 1) << "the only free slot, made if it must be";
    EXPECT_EQ(claim(0, kHeld, kHeld), -1);
    EXPECT_EQ(claim(1, kHeld, kHeld), -1);
}

// A device with room for one slot: the proof takes the slot that is made rather than asking for the other (the
// failure an emulated 24 GiB card showed: a batch's second circuit, or a partition proven while the next was being
// prepared, claimed slot 1 while slot 0 stood idle).
TEST(HSlots, OnlyOneSlotMadeServesEveryProof) {
    EXPECT_EQ(claim(1, kFree, kMissing), 0);
    EXPECT_EQ(claim(0, kMissing, kFree), 1);
    // A slot that holds the next circuit's upload, or a prepared one, is not taken from it.
    EXPECT_EQ(claim(1, kFree, kNext), 1);
    EXPECT_EQ(claim(0, kMissing, kHeld), 0);
}

TEST(HSlots, PrepareFillsTheSlotNoProofUsesAndSlotOneWhenIdle) {
    EXPECT_EQ(prepare_h_slot(0), 1);
    EXPECT_EQ(prepare_h_slot(1), 0);
    EXPECT_EQ(prepare_h_slot(-1), 1);
    // Idle, with only slot 0 made: prepare asks for slot 1 (which such a device does not make: no ticket), and a
    // proof that starts meanwhile still finds slot 0 free.
    EXPECT_EQ(claim(0, kFree, kMissing), 0);
}

// share_slot: prepare() takes the one slot only behind a proof that has computed H (the next witness goes into the
// transforms' scratch), or when no proof is in it and one has ended since it began to wait (or the short wait is
// over); a slot a prepared circuit holds is waited for only briefly. A running proof that has not computed H is
// waited for without a time limit: it does or it ends.
TEST(HSlots, SharedSlotIsTakenBehindAProofThatHasComputedH) {
    using S = SharedSlotStep;
    auto step = [](bool held, bool running, bool h_done, bool ended, bool late) {
        return shared_slot_step(SharedSlotView{held, running, h_done, ended, late});
    };
    EXPECT_EQ(step(false, true, false, false, false), S::wait);
    EXPECT_EQ(step(false, true, false, true, true), S::wait) << "no time limit behind a running proof";
    EXPECT_EQ(step(false, true, true, false, false), S::hold);
    EXPECT_EQ(step(false, false, false, false, false), S::wait_briefly) << "the proof beside it may not have started";
    EXPECT_EQ(step(false, false, false, true, false), S::hold) << "the proof before has ended";
    EXPECT_EQ(step(false, false, false, false, true), S::hold) << "none started within the short wait";
    EXPECT_EQ(step(true, false, false, false, false), S::wait_briefly) << "a prepared circuit's proof is to start";
    EXPECT_EQ(step(true, false, false, true, false), S::wait_briefly);
    EXPECT_EQ(step(true, false, false, false, true), S::give_up);
}

// The shared hold's products go into H's arrays only once the running proof has read H from them (or left the
// slot); a hold taken back makes none, whatever the slot's proof.
TEST(HSlots, SharedProductsWaitForTheHQuerysMsm) {
    using P = SharedProductsStep;
    EXPECT_EQ(shared_products_step(true, true, false), P::wait) << "the H query's MSM still reads the arrays";
    EXPECT_EQ(shared_products_step(true, true, true), P::make);
    EXPECT_EQ(shared_products_step(true, false, false), P::make) << "the proof before ended (or failed)";
    EXPECT_EQ(shared_products_step(false, true, false), P::abandon);
    EXPECT_EQ(shared_products_step(false, true, true), P::abandon);
    EXPECT_EQ(shared_products_step(false, false, true), P::abandon) << "taken back by a proof that claimed the slot";
}

}  // namespace
}  // namespace cuzk::gpu
