#include "cuzk/ec/eip2537.hpp"

#include <algorithm>

#include "cuzk/ec/subgroup.hpp"

namespace cuzk {

namespace {

bool all_zero(std::span<const uint8_t> s) {
    return std::all_of(s.begin(), s.end(), [](uint8_t b) { return b == 0; });
}

// Fq2 in EIP-2537 order: c0 then c1.
Decoded<Fq2> decode_fp2(std::span<const uint8_t> in) {
    auto c0 = eip2537_decode_fp(in.first(EIP2537_FP_BYTES));
    if (!c0) return Decoded<Fq2>::fail(*c0.error());
    auto c1 = eip2537_decode_fp(in.subspan(EIP2537_FP_BYTES, EIP2537_FP_BYTES));
    if (!c1) return Decoded<Fq2>::fail(*c1.error());
    return Decoded<Fq2>::ok(Fq2{*c0, *c1});
}

void put_fp2(uint8_t* out, const Fq2& v) {
    auto c0 = eip2537_encode_fp(v.c0);
    auto c1 = eip2537_encode_fp(v.c1);
    std::copy(c0.begin(), c0.end(), out);
    std::copy(c1.begin(), c1.end(), out + EIP2537_FP_BYTES);
}

struct G1Side {
    using Affine = G1Affine;
    using Jac = G1Jacobian;
    using F = Fq;
    static constexpr size_t POINT = EIP2537_G1_BYTES;
    static Decoded<Fq> coord(std::span<const uint8_t> in) { return eip2537_decode_fp(in); }
    static bool in_subgroup(const G1Affine& p) { return g1_in_subgroup(p); }
    static std::array<uint8_t, POINT> encode(const G1Affine& p) { return eip2537_encode_g1(p); }
};

struct G2Side {
    using Affine = G2Affine;
    using Jac = G2Jacobian;
    using F = Fq2;
    static constexpr size_t POINT = EIP2537_G2_BYTES;
    static Decoded<Fq2> coord(std::span<const uint8_t> in) { return decode_fp2(in); }
    static bool in_subgroup(const G2Affine& p) { return g2_in_subgroup(p); }
    static std::array<uint8_t, POINT> encode(const G2Affine& p) { return eip2537_encode_g2(p); }
};

template <class S>
Decoded<typename S::Affine> decode_point(std::span<const uint8_t> in, bool check_subgroup) {
    using A = typename S::Affine;
    if (in.size() != S::POINT) return Decoded<A>::fail(DecodeError::BadLength);
    auto x = S::coord(in.first(S::POINT / 2));
    if (!x) return Decoded<A>::fail(*x.error());
    auto y = S::coord(in.subspan(S::POINT / 2));
    if (!y) return Decoded<A>::fail(*y.error());
    if (x->is_zero() && y->is_zero()) return Decoded<A>::ok(A::identity());
    A p = A::from_xy(*x, *y);
    if (!p.is_on_curve()) return Decoded<A>::fail(DecodeError::NotOnCurve);
    if (check_subgroup && !S::in_subgroup(p)) return Decoded<A>::fail(DecodeError::NotInSubgroup);
    return Decoded<A>::ok(p);
}

template <class S>
Decoded<Eip2537MsmInput<typename S::Affine>> msm_input(std::span<const uint8_t> in) {
    using R = Decoded<Eip2537MsmInput<typename S::Affine>>;
    constexpr size_t PAIR = S::POINT + EIP2537_SCALAR_BYTES;
    if (in.empty() || in.size() % PAIR != 0) return R::fail(DecodeError::BadLength);
    Eip2537MsmInput<typename S::Affine> out;
    const size_t k = in.size() / PAIR;
    out.points.reserve(k);
    out.scalars.reserve(k);
    for (size_t i = 0; i < k; i++) {
        auto pair = in.subspan(i * PAIR, PAIR);
        auto p = decode_point<S>(pair.first(S::POINT), true);
        if (!p) return R::fail(*p.error());
        out.points.push_back(*p);
        out.scalars.push_back(*eip2537_decode_scalar(pair.subspan(S::POINT)));
    }
    return R::ok(std::move(out));
}

template <class S>
Decoded<std::array<uint8_t, S::POINT>> add_call(std::span<const uint8_t> in) {
    using R = Decoded<std::array<uint8_t, S::POINT>>;
    if (in.size() != 2 * S::POINT) return R::fail(DecodeError::BadLength);
    auto a = decode_point<S>(in.first(S::POINT), false);
    if (!a) return R::fail(*a.error());
    auto b = decode_point<S>(in.subspan(S::POINT), false);
    if (!b) return R::fail(*b.error());
    return R::ok(S::encode((a->to_jacobian() + b->to_jacobian()).to_affine()));
}

template <class S>
Decoded<std::array<uint8_t, S::POINT>> msm_call(std::span<const uint8_t> in) {
    using R = Decoded<std::array<uint8_t, S::POINT>>;
    auto input = msm_input<S>(in);
    if (!input) return R::fail(*input.error());
    typename S::Jac acc = S::Jac::identity();
    for (size_t i = 0; i < input->points.size(); i++) acc += input->points[i].to_jacobian().mul(input->scalars[i]);
    return R::ok(S::encode(acc.to_affine()));
}

}  // namespace

std::array<uint8_t, EIP2537_FP_BYTES> eip2537_encode_fp(const Fq& v) {
    std::array<uint8_t, EIP2537_FP_BYTES> out{};
    v.to_bytes_be(out.data() + EIP2537_FP_PADDING);
    return out;
}

std::array<uint8_t, EIP2537_G1_BYTES> eip2537_encode_g1(const G1Affine& p) {
    std::array<uint8_t, EIP2537_G1_BYTES> out{};
    if (p.infinity) return out;
    auto x = eip2537_encode_fp(p.x);
    auto y = eip2537_encode_fp(p.y);
    std::copy(x.begin(), x.end(), out.begin());
    std::copy(y.begin(), y.end(), out.begin() + EIP2537_FP_BYTES);
    return out;
}

std::array<uint8_t, EIP2537_G2_BYTES> eip2537_encode_g2(const G2Affine& p) {
    std::array<uint8_t, EIP2537_G2_BYTES> out{};
    if (p.infinity) return out;
    put_fp2(out.data(), p.x);
    put_fp2(out.data() + 2 * EIP2537_FP_BYTES, p.y);
    return out;
}

Decoded<Fq> eip2537_decode_fp(std::span<const uint8_t> in) {
    if (in.size() != EIP2537_FP_BYTES) return Decoded<Fq>::fail(DecodeError::BadLength);
    if (!all_zero(in.first(EIP2537_FP_PADDING))) return Decoded<Fq>::fail(DecodeError::NonZeroPadding);
    auto v = Fq::from_bytes_be(in.data() + EIP2537_FP_PADDING);
    if (!v) return Decoded<Fq>::fail(DecodeError::CoordinateNotInField);
    return Decoded<Fq>::ok(*v);
}

Decoded<G1Affine> eip2537_decode_g1(std::span<const uint8_t> in) { return decode_point<G1Side>(in, true); }
Decoded<G2Affine> eip2537_decode_g2(std::span<const uint8_t> in) { return decode_point<G2Side>(in, true); }
Decoded<G1Affine> eip2537_decode_g1_unchecked(std::span<const uint8_t> in) { return decode_point<G1Side>(in, false); }
Decoded<G2Affine> eip2537_decode_g2_unchecked(std::span<const uint8_t> in) { return decode_point<G2Side>(in, false); }

G1Affine eip2537_decode_g1_or_throw(std::span<const uint8_t> in) {
    auto d = eip2537_decode_g1(in);
    if (auto e = d.error()) throw DecodeException(*e, "EIP-2537 G1 point");
    return *d;
}
G2Affine eip2537_decode_g2_or_throw(std::span<const uint8_t> in) {
    auto d = eip2537_decode_g2(in);
    if (auto e = d.error()) throw DecodeException(*e, "EIP-2537 G2 point");
    return *d;
}

Decoded<limbs_t<4>> eip2537_decode_scalar(std::span<const uint8_t> in) {
    if (in.size() != EIP2537_SCALAR_BYTES) return Decoded<limbs_t<4>>::fail(DecodeError::BadLength);
    limbs_t<4> k{};
    for (size_t i = 0; i < EIP2537_SCALAR_BYTES; i++)
        k[i / 8] |= (uint64_t)in[EIP2537_SCALAR_BYTES - 1 - i] << (8 * (i % 8));
    return Decoded<limbs_t<4>>::ok(k);
}

Decoded<Eip2537MsmInput<G1Affine>> eip2537_g1_msm_input(std::span<const uint8_t> in) { return msm_input<G1Side>(in); }
Decoded<Eip2537MsmInput<G2Affine>> eip2537_g2_msm_input(std::span<const uint8_t> in) { return msm_input<G2Side>(in); }

Decoded<Eip2537PairingInput> eip2537_pairing_input(std::span<const uint8_t> in) {
    using R = Decoded<Eip2537PairingInput>;
    if (in.empty() || in.size() % EIP2537_PAIRING_PAIR_BYTES != 0) return R::fail(DecodeError::BadLength);
    Eip2537PairingInput out;
    const size_t k = in.size() / EIP2537_PAIRING_PAIR_BYTES;
    out.g1.reserve(k);
    out.g2.reserve(k);
    for (size_t i = 0; i < k; i++) {
        auto pair = in.subspan(i * EIP2537_PAIRING_PAIR_BYTES, EIP2537_PAIRING_PAIR_BYTES);
        auto p = eip2537_decode_g1(pair.first(EIP2537_G1_BYTES));
        if (!p) return R::fail(*p.error());
        auto q = eip2537_decode_g2(pair.subspan(EIP2537_G1_BYTES));
        if (!q) return R::fail(*q.error());
        out.g1.push_back(*p);
        out.g2.push_back(*q);
    }
    return R::ok(std::move(out));
}

Decoded<std::array<uint8_t, EIP2537_G1_BYTES>> eip2537_g1_add(std::span<const uint8_t> in) {
    return add_call<G1Side>(in);
}
Decoded<std::array<uint8_t, EIP2537_G2_BYTES>> eip2537_g2_add(std::span<const uint8_t> in) {
    return add_call<G2Side>(in);
}
Decoded<std::array<uint8_t, EIP2537_G1_BYTES>> eip2537_g1_msm(std::span<const uint8_t> in) {
    return msm_call<G1Side>(in);
}
Decoded<std::array<uint8_t, EIP2537_G2_BYTES>> eip2537_g2_msm(std::span<const uint8_t> in) {
    return msm_call<G2Side>(in);
}

Decoded<std::array<uint8_t, EIP2537_G1_BYTES>> eip2537_g1_mul(std::span<const uint8_t> in) {
    if (in.size() != EIP2537_G1_MSM_PAIR_BYTES)
        return Decoded<std::array<uint8_t, EIP2537_G1_BYTES>>::fail(DecodeError::BadLength);
    return msm_call<G1Side>(in);
}
Decoded<std::array<uint8_t, EIP2537_G2_BYTES>> eip2537_g2_mul(std::span<const uint8_t> in) {
    if (in.size() != EIP2537_G2_MSM_PAIR_BYTES)
        return Decoded<std::array<uint8_t, EIP2537_G2_BYTES>>::fail(DecodeError::BadLength);
    return msm_call<G2Side>(in);
}

}  // namespace cuzk
