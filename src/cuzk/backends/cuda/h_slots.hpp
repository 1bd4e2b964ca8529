// Which of its two sets of H's device arrays ("slots") the GPU prover (prover_gpu.cpp) gives a proof: the policy
// alone, host-only, so that the CPU tests check it (tests/test_h_slots.cpp). The arrays themselves, their making and
// the locking are the prover's.
#pragma once

namespace cuzk::gpu {

// What the prover knows of one slot when a proof claims one.
struct HSlotState {
    bool made = false;        // it holds arrays for the proof's domain
    bool held = false;        // a prepared circuit's data is in it (prepare()'s ticket)
    bool prefetched = false;  // the next circuit of a batch was uploaded into it
};

// The slot a proof that was not prepared takes: `preferred` (0 or 1) unless a prepared circuit holds it, and then
// the other; and the other one too when only the other is made for this domain and free, so that a device with room
// for one slot proves every circuit in it rather than asking for a second. -1 when both hold prepared circuits.
inline int claim_h_slot(int preferred, const HSlotState (&s)[2]) {
    int k = s[preferred].held ? 1 - preferred : preferred;
    if (s[k].held) return -1;
    if (!s[k].prefetched && !s[k].made && !s[1 - k].held && s[1 - k].made) k = 1 - k;
    return k;
}

// The slot prepare() fills: the one the running proof (`active`, -1: none) does not use; slot 1 when none runs, so
// that a proof starting meanwhile (the partition before, or an urgent one) finds slot 0, the one a device with room
// for a single slot has, free.
inline int prepare_h_slot(int active) { return active < 0 ? 1 : 1 - active; }

// GpuProverConfig::share_slot: what prepare() sees of the one slot a device has room for, each time it looks.
struct SharedSlotView {
    bool held = false;         // a prepared circuit holds it (its proof has not started)
    bool running = false;      // the running proof is in it
    bool h_done = false;       // ... and has computed H (its transforms, whose scratch the next witness goes into)
    bool proof_ended = false;  // a proof ended since prepare() began to wait
    bool late = false;         // the short wait (a proof about to start) is over
};
enum class SharedSlotStep {
    hold,          // take it now: the next circuit's witness may go up
    wait,          // until the running proof has computed H or ended (no time limit: it does either)
    wait_briefly,  // until something changes, but not past the short wait
    give_up,       // no ticket (the next circuit goes up when its own proof starts)
};
// Behind the running proof once it has computed H (its H query's MSM reads H's array, not the scratch); with no
// proof in it, once a proof has ended since the wait began (the engine prepares beside the proof before) or the
// short wait is over (that proof failed before it claimed the slot); a slot a prepared circuit holds is waited for
// briefly (its proof starts beside this call in the engine), then given up.
inline SharedSlotStep shared_slot_step(const SharedSlotView& v) {
    if (v.held) return v.late ? SharedSlotStep::give_up : SharedSlotStep::wait_briefly;
    if (v.running) return v.h_done ? SharedSlotStep::hold : SharedSlotStep::wait;
    return v.proof_ended || v.late ? SharedSlotStep::hold : SharedSlotStep::wait_briefly;
}

// Once a shared hold's witness is up: its a, b, c go into H's arrays when the running proof has read H (its H
// query's MSM is done) or is no longer in the slot; a hold taken back meanwhile (a proof claimed the slot) makes
// none.
enum class SharedProductsStep { make, wait, abandon };
inline SharedProductsStep shared_products_step(bool still_held, bool running_in_slot, bool h_read) {
    if (!still_held) return SharedProductsStep::abandon;
    return running_in_slot && !h_read ? SharedProductsStep::wait : SharedProductsStep::make;
}

}  // namespace cuzk::gpu
