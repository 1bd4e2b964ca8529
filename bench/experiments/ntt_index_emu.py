# Pure-Python emulation of src/cuzk/gpu/ntt.cu's pass index arithmetic (tile loads, line DFTs, four-step twiddles, the
# last pass's digit reversal, the in-place schedule's flat pass and transpose, coset_inverse's post-scaling) over
# p = 998244353, checked against the DFT by definition. A small tile (TILE_LOG = T, radices <= R) makes one, two and
# three passes occur at small sizes. Usage: python3 ntt_index_emu.py T R LOG_N...   (e.g. 4 3 4 6 7 8 9; 5 4 8 10 11 12)
import sys
p = 998244353; G = 3
def root(n): return pow(G, (p - 1) // n, p)
def dft(x):
    N = len(x); w = root(N)
    return [sum(x[j] * pow(w, i * j, p) for j in range(N)) % p for i in range(N)]
def ntt(vals, log_n, in_place, T, R, post=False):
    n = 1 << log_n
    P = 1 if log_n <= T else -(-log_n // R)
    flat = P > 1 and in_place and (P == 2 and log_n % 2 == 0 or P == 3)
    radix = [log_n // P + (1 if i < log_n % P else 0) for i in range(P)]
    if flat and P == 3:
        radix[0] = radix[2] = (log_n + 2) // 3; radix[1] = log_n - 2 * radix[0]
    assert max(radix) <= T
    buf = list(vals); scratch = [None] * n; done = 0
    for i in range(P):
        r = radix[i]; log_s = log_n - done - r; tile_log = min(T, log_n); log_c = tile_log - r
        isflat = flat and i == P - 1; last = i == P - 1 and not flat
        src = list(buf if i == 0 or flat else scratch)
        dst_arr = buf if last or flat else scratch
        tile = 1 << tile_log; C = 1 << log_c; N = 1 << r; s_mask = (1 << log_s) - 1
        dig = radix[:i]
        def line_of_output(q):
            total = sum(dig); line = 0; qs = 0
            for d_ in dig:
                d = (q >> qs) & ((1 << d_) - 1); qs += d_; total -= d_; line |= d << total
            return line
        M = 1 << (r + log_s); wM = root(M)
        for b in range(n >> tile_log):
            line0 = b << log_c
            smem = [None] * tile
            for idx in range(tile):
                if isflat: addr = (line0 << r) + idx
                elif not last:
                    line = idx & (C - 1); j = idx >> log_c; L = line0 + line
                    addr = ((L >> log_s) << (r + log_s)) + (j << log_s) + (L & s_mask)
                else:
                    line = idx >> r; j = idx & (N - 1); addr = (line_of_output(line0 + line) << r) + j
                e = idx if (last or isflat) else ((idx & (C - 1)) << r) + (idx >> log_c)
                smem[e] = src[addr]
            out = []
            for l in range(C): out += dft(smem[l * N:(l + 1) * N])
            for idx in range(tile):
                if isflat:
                    line = idx >> r; k = idx & (N - 1); dst_arr[(line0 << r) + idx] = out[(line << r) + k]; continue
                line = idx & (C - 1); k = idx >> log_c; x = out[(line << r) + k]
                if not last:
                    L = line0 + line; s = L & s_mask
                    dst = ((L >> log_s) << (r + log_s)) + (k << log_s) + s; x = x * pow(wM, s * k, p) % p
                else:
                    dst = line0 + line + (k << (log_n - r))
                    if post: x = x * pow(G, dst, p) % p
                dst_arr[dst] = x
        done += r
    if flat:
        a = radix[0]; m = radix[1] if P == 3 else 0; TR = min(4, 1 << a)
        tiles = (1 << a) // TR; snap = list(buf)
        for bx in range(tiles * tiles):
            ti, tl = bx // tiles, bx % tiles
            if ti > tl: continue
            for j in range(1 << m):
                at = lambda i_, l_: (((i_ << m) + j) << a) + l_
                sa = [[snap[at(ti * TR + ty, tl * TR + tx)] for tx in range(TR)] for ty in range(TR)]
                sb = [[snap[at(tl * TR + ty, ti * TR + tx)] for tx in range(TR)] for ty in range(TR)]
                for ty in range(TR):
                    for tx in range(TR):
                        pa = at(ti * TR + ty, tl * TR + tx); pb = at(tl * TR + ty, ti * TR + tx)
                        v = sa[tx][ty]
                        buf[pb] = v * pow(G, pb, p) % p if post else v
                        if ti != tl:
                            u = sb[tx][ty]
                            buf[pa] = u * pow(G, pa, p) % p if post else u
    return buf, radix
import random
random.seed(1)
T, R = int(sys.argv[1]), int(sys.argv[2])
for k in [int(a) for a in sys.argv[3:]]:
    n = 1 << k; v = [random.randrange(p) for _ in range(n)]
    ref = dft(v); refg = [x * pow(G, i, p) % p for i, x in enumerate(ref)]
    for ip in (False, True):
        got, rad = ntt(v, k, ip, T, R); gotg, _ = ntt(v, k, ip, T, R, True)
        print(k, rad, 'in_place' if ip else 'scratch', got == ref, gotg == refg, flush=True)
