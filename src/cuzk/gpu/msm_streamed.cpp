// StreamedMsm's walk over the chunks (msm_streamed.hpp): host logic only.
#include "cuzk/gpu/msm_streamed.hpp"

namespace cuzk::gpu {

ChunkWalk plan_chunk_walk(size_t chunks, const size_t holds_in[2], bool descending) {
    ChunkWalk w;
    size_t holds[2] = {holds_in[0], holds_in[1]};
    w.descending_next = descending;
    if (!chunks) {
        w.holds_after[0] = holds[0], w.holds_after[1] = holds[1];
        return w;
    }
    const auto holding = [&](size_t chunk) -> unsigned {
        return holds[0] == chunk ? 0u : holds[1] == chunk ? 1u : 2u;
    };
    // Start from a chunk the last call left on the device when there is one at either end.
    const bool desc = holding(chunks - 1) != 2 ? true : holding(0) != 2 ? false : descending;
    w.descending_next = !desc;
    const auto chunk_at = [&](size_t t) { return desc ? chunks - 1 - t : t; };
    if (holding(chunk_at(0)) == 2) {
        // Into the buffer that does not hold the second chunk (which then needs no copy).
        w.first_buffer = chunks > 1 && holds[0] == chunk_at(1) ? 1 : 0;
        w.first_load = chunk_at(0);
        holds[w.first_buffer] = chunk_at(0);
    }
    for (size_t t = 0; t < chunks; t++) {
        ChunkWalk::Step st;
        st.chunk = chunk_at(t);
        st.buffer = holding(st.chunk);
        if (t + 1 < chunks && holding(chunk_at(t + 1)) == 2) {
            st.prefetch = chunk_at(t + 1);
            holds[1 - st.buffer] = st.prefetch;
        }
        w.steps.push_back(st);
    }
    w.holds_after[0] = holds[0], w.holds_after[1] = holds[1];
    return w;
}

}  // namespace cuzk::gpu
