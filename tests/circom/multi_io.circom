pragma circom 2.0.0;

// Several public inputs and several public outputs, in an order that exercises circom's wire numbering
// (outputs first, then public inputs, then private inputs).
template MultiIO() {
    signal input a;
    signal input b;
    signal input c;
    signal input secret;
    signal output sum;
    signal output prod;
    signal output mixed;

    signal ab;
    ab <== a * b;
    prod <== ab * c;
    sum <== a + b + c + secret;
    signal s2;
    s2 <== secret * secret;
    mixed <== s2 * a + 7;
}

component main {public [a, b, c]} = MultiIO();
