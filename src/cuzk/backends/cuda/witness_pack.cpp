#include "cuzk/backends/cuda/witness_pack.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

namespace cuzk::gpu {

std::optional<PackedWitness> pack_witness(std::span<const Fr> values, size_t max_others, ThreadPool& pool) {
    const size_t n = values.size();
    if (n >= (size_t{1} << 32))
        throw std::invalid_argument("pack_witness: " + std::to_string(n) + " values (positions are 32-bit)");
    PackedWitness p;
    p.size = n;
    const size_t words = (n + 63) / 64;
    p.ones.resize(words);
    // Chunks of whole words, several a thread (the others are not spread evenly); each keeps its others apart,
    // and they are joined in order once every chunk is read.
    const size_t chunks = std::min(words, 8 * pool.size());
    std::vector<std::vector<uint32_t>> idx(chunks);
    std::vector<std::vector<Fr>> val(chunks);
    std::atomic<size_t> others{0};
    std::atomic<bool> over{false};
    const Fr one_value = Fr::one();
    const uint64_t o0 = one_value.mont_limbs()[0], o1 = one_value.mont_limbs()[1], o2 = one_value.mont_limbs()[2],
                   o3 = one_value.mont_limbs()[3];
    static_assert(sizeof(one_value.mont_limbs()) == 4 * sizeof(uint64_t));
    const Fr* const vals = values.data();
    pool.parallel_for(chunks, [&](size_t c0, size_t c1) {
        for (size_t c = c0; c < c1 && !over.load(std::memory_order_relaxed); c++) {
            const size_t w0 = c * words / chunks, w1 = (c + 1) * words / chunks;
            for (size_t w = w0; w < w1; w++) {
                // No branch on a value: zeros and ones come about equally often in no order (with branches on them
                // one core of the development machine packed 2.8 GB/s of a PoRep-like mix, without 5.3; memcpy 14);
                // the rare others are found in their own bitmap.
                uint64_t ones_bits = 0, other_bits = 0;
                const size_t b = 64 * w, e = std::min(n, b + 64);
                for (size_t i = b; i < e; i++) {
                    const auto& l = vals[i].mont_limbs();
                    const uint64_t zl = l[0] | l[1] | l[2] | l[3];
                    const uint64_t ol = (l[0] ^ o0) | (l[1] ^ o1) | (l[2] ^ o2) | (l[3] ^ o3);
                    ones_bits |= uint64_t{ol == 0} << (i - b);
                    other_bits |= uint64_t((zl != 0) & (ol != 0)) << (i - b);
                }
                p.ones[w] = ones_bits;
                for (uint64_t m = other_bits; m; m &= m - 1) {
                    const size_t i = b + (size_t)__builtin_ctzll(m);
                    idx[c].push_back((uint32_t)i);
                    val[c].push_back(vals[i]);
                }
            }
            if (others.fetch_add(idx[c].size(), std::memory_order_relaxed) + idx[c].size() > max_others)
                over.store(true, std::memory_order_relaxed);
        }
    });
    if (over.load()) return std::nullopt;
    const size_t total = others.load();  // every chunk was read
    p.other_indices.reserve(total);
    p.other_values.reserve(total);
    for (size_t c = 0; c < chunks; c++) {
        p.other_indices.insert(p.other_indices.end(), idx[c].begin(), idx[c].end());
        p.other_values.insert(p.other_values.end(), val[c].begin(), val[c].end());
    }
    return p;
}

std::optional<PackedWitness> pack_from_split(const ScalarSplit& split, size_t max_others) {
    if (!split.montgomery)
        throw std::invalid_argument("pack_from_split: the split's scalars are canonical (Montgomery form needed)");
    if (split.size >= (size_t{1} << 32))
        throw std::invalid_argument("pack_from_split: " + std::to_string(split.size) +
                                    " values (positions are 32-bit)");
    if (split.other_indices.size() != split.other_scalars.size() && !split.dense)
        throw std::invalid_argument("pack_from_split: other indices and scalars of different counts");
    if (split.dense || split.other_indices.size() > max_others) return std::nullopt;
    PackedWitness p;
    p.size = split.size;
    const size_t words = (split.size + 63) / 64;
    if (!split.one_bits.empty()) {
        if (split.one_bits.size() != words)
            throw std::invalid_argument("pack_from_split: a bitmap of " + std::to_string(split.one_bits.size()) +
                                        " words for " + std::to_string(split.size) + " values");
        p.ones.assign(split.one_bits.begin(), split.one_bits.end());
    } else {
        p.ones.assign(words, 0);
        for (uint32_t i : split.one_indices) {
            if (i >= split.size) throw std::invalid_argument("pack_from_split: a one's position out of range");
            p.ones[i / 64] |= uint64_t(1) << (i % 64);
        }
    }
    p.other_indices.assign(split.other_indices.begin(), split.other_indices.end());
    p.other_values.reserve(split.other_scalars.size());
    for (const limbs_t<4>& l : split.other_scalars) p.other_values.push_back(Fr::from_mont_limbs(l));
    return p;
}

std::vector<Fr> unpack_witness(const PackedWitness& p) {
    if (p.ones.size() != (p.size + 63) / 64 || p.other_indices.size() != p.other_values.size())
        throw std::invalid_argument("unpack_witness: inconsistent packing");
    std::vector<Fr> v(p.size, Fr::zero());
    for (size_t i = 0; i < p.size; i++)
        if ((p.ones[i / 64] >> (i & 63)) & 1) v[i] = Fr::one();
    for (size_t k = 0; k < p.other_indices.size(); k++) {
        if (p.other_indices[k] >= p.size) throw std::invalid_argument("unpack_witness: a position out of range");
        v[p.other_indices[k]] = p.other_values[k];
    }
    return v;
}

}  // namespace cuzk::gpu
