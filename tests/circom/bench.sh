#!/usr/bin/env bash
# cuzk prove vs snarkjs groth16 prove on the same zkey and witness, alternating, REPS times each; prints the median
# wall time of each (whole process: reading the zkey and witness, proving, writing proof.json / public.json).
# Usage: bench.sh CUZK_BIN SNARKJS_BIN circuit.zkey witness.wtns [REPS=5]
set -euo pipefail
cuzk=${1:?usage}; snarkjs=${2:?usage}; zkey=${3:?usage}; wtns=${4:?usage}; reps=${5:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
declare -a tc tu ts
for ((i = 0; i < reps; i++)); do
  t0=$(now); "$cuzk" prove "$zkey" "$wtns" "$tmp/c.json" "$tmp/cp.json" >/dev/null; t1=$(now)
  tc+=("$(echo "$t1 - $t0" | bc)")
  t0=$(now); "$cuzk" prove --unchecked-zkey "$zkey" "$wtns" "$tmp/u.json" "$tmp/up.json" >/dev/null; t1=$(now)
  tu+=("$(echo "$t1 - $t0" | bc)")
  t0=$(now); "$snarkjs" groth16 prove "$zkey" "$wtns" "$tmp/s.json" "$tmp/sp.json" >/dev/null; t1=$(now)
  ts+=("$(echo "$t1 - $t0" | bc)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mc=$(median "${tc[@]}"); mu=$(median "${tu[@]}"); ms=$(median "${ts[@]}")
echo "cuzk prove (checked zkey):   median ${mc} s  [${tc[*]}]"
echo "cuzk prove --unchecked-zkey: median ${mu} s  [${tu[*]}]"
echo "snarkjs groth16 prove:       median ${ms} s  [${ts[*]}]"
echo "speedup: $(echo "scale=1; $ms / $mc" | bc)x (checked), $(echo "scale=1; $ms / $mu" | bc)x (unchecked)"
