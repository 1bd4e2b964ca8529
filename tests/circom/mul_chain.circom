pragma circom 2.0.0;

// y = x^(n+1) * k through a chain of n multiplications; one public output, one public input, one private input.
template MulChain(n) {
    signal input x;
    signal input k;
    signal output y;
    signal t[n + 1];
    t[0] <== x * k;
    for (var i = 0; i < n; i++) {
        t[i + 1] <== t[i] * x;
    }
    y <== t[n];
}

component main {public [k]} = MulChain(MUL_CHAIN_LENGTH);
