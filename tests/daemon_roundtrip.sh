#!/usr/bin/env bash
# `cuzk daemon` and `cuzk client` as processes (issues 8, 21): prove over the unix socket and verify with `cuzk
# verify`; a Filecoin WinningPoSt sent as Curio sends it;
# a daemon killed with SIGKILL in the middle of a job loses nothing (the restarted daemon finishes it); bad
# requests exit 2 with the daemon's message; SIGTERM drains and exits 0. Usage: daemon_roundtrip.sh path/to/cuzk
set -uo pipefail
CUZK=$(realpath "$1")
env_sh=$(realpath "$(dirname "$0")/daemon_env.sh")
dir=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$dir/daemon.log" ] && tail -20 "$dir/daemon.log"; exit 1; }
cd "$dir" || exit 1
# shellcheck source=tests/daemon_env.sh
source "$env_sh"
mkdir -p params
"$CUZK" setup --circuit mulchain --log-size 10 --seed 7 --params params/m10.params > /dev/null || fail "setup"
write_daemon_config
C() { "$CUZK" client --socket state/cuzk.sock "$@"; }
start
[ "$(stat -c %a state/cuzk.sock)" = "600" ] || fail "socket mode $(stat -c %a state/cuzk.sock)"
C prove --circuit mulchain --log-size 10 --partitions 3 --witness-seed 5 --params m10.params \
  --proof p.bin --public p.json --quiet > prove.txt || fail "client prove: $(cat prove.txt)"
grep -q "DONE: 3 proofs (verified)" prove.txt || fail "prove output: $(cat prove.txt)"
"$CUZK" verify --params params/m10.params --proof p.bin --public p.json > /dev/null || fail "the daemon's proofs do not verify"
# A circom job: x * x = y from a hand-written .r1cs, a test zkey, a .wtns sent with the request; snarkjs-format
# outputs that `cuzk verify` (snarkjs's argument order) accepts.
python3 - <<'PY' || fail "writing square.r1cs / w.wtns"
import struct
r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
fe = lambda x: (x % r).to_bytes(32, "little")
def container(magic, version, sections):
    out = magic + struct.pack("<II", version, len(sections))
    for t, body in sections: out += struct.pack("<IQ", t, len(body)) + body
    return out
hdr = struct.pack("<I", 32) + r.to_bytes(32, "little") + struct.pack("<IIIIQI", 3, 1, 0, 1, 3, 1)
lc = lambda w: struct.pack("<II", 1, w) + fe(1)
open("square.r1cs", "wb").write(container(b"r1cs", 1, [(1, hdr), (2, lc(2) + lc(2) + lc(1))]))
wh = struct.pack("<I", 32) + r.to_bytes(32, "little") + struct.pack("<I", 3)
open("w.wtns", "wb").write(container(b"wtns", 2, [(1, wh), (2, fe(1) + fe(49) + fe(7))]))
PY
"$CUZK" zkey new square.r1cs params/square.zkey --seed 3 > /dev/null || fail "zkey new"
C prove --zkey square.zkey --wtns w.wtns --proof-json proof.json --public public.json --quiet > circom.txt \
  || fail "circom prove: $(cat circom.txt)"
"$CUZK" zkey export-verificationkey params/square.zkey vk.json || fail "export vk"
"$CUZK" verify vk.json public.json proof.json > /dev/null || fail "the daemon's circom proof does not verify"
grep -q '"49"' public.json || fail "public.json: $(cat public.json)"
# A Filecoin WinningPoSt as Curio sends it (`client prove --kind`): its parameter file found by Filecoin's name in
# the parameter directory (2 KiB test parameters of the exact circuit, made here), a generated vanilla proof; the
# proof checked by `cuzk filecoin verify post`. The same request_id again answers the same job.
W=StackedDrgWinning2KiBV1
rand=0505050505050505050505050505050505050505050505050505050505050505
"$CUZK" filecoin params gen --proof-type $W --seed 22 --out params --json > pw.json || fail "params gen $W"
"$CUZK" filecoin post-gen --proof-type $W --randomness $rand --sector-id 10 --sector-index 0 --seed 40 \
  --out v0.bin --json > g0.json || fail "post-gen"
cr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["comm_r"])' g0.json)
C prove --kind winning-post --registered-proof 0 --sector-size 2048 --miner-id 1000 --vanilla v0.bin \
  --randomness $rand --request-id winpost-1 --proof w.bin --json --quiet > w.txt || fail "client prove --kind: $(cat w.txt)"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["status"]=="COMPLETED" and j["proof_bytes"]==192, j' \
  w.txt || fail "winning-post: $(cat w.txt)"
wvk=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["vk"])' pw.json)
"$CUZK" filecoin verify post --proof-type $W --vk "$wvk" --proof w.bin --randomness $rand --sector 10:$cr \
  > /dev/null || fail "the daemon's WinningPoSt does not verify"
wid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job_id"])' w.txt)
again=$(C submit --kind winning-post --registered-proof 0 --sector-size 2048 --miner-id 1000 --vanilla v0.bin --randomness $rand \
  --request-id winpost-1) || fail "resubmit"
[ "$again" = "$wid" ] || fail "the same request_id must answer job $wid, got $again"
C status | grep -q "winning-2k: WARM" || fail "status lists the loaded set: $(C status)"
# A long job, then SIGKILL while it runs: the restarted daemon resumes it under the same id.
id=$(C submit --circuit mulchain --log-size 10 --partitions 48 --witness-seed 9 --params m10.params) || fail "submit"
for _ in $(seq 200); do
  C status "$id" --json | python3 -c 'import json,sys; j=json.load(sys.stdin)["job"]; sys.exit(0 if j["partitionsProven"] >= 1 else 1)' && break
  sleep 0.05
done
kill -9 "$pid"; wait "$pid" 2>/dev/null; pid=""
start
C await "$id" --proof long.bin --public long.json --json --timeout 120 > long.txt || fail "await after restart: $(cat long.txt)"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["state"]=="DONE" and j["proofs"]==48 and j["verified"], j' long.txt \
  || fail "resumed job: $(cat long.txt)"
"$CUZK" verify --params params/m10.params --proof long.bin --public long.json > /dev/null || fail "resumed proofs do not verify"
C await "$id" --breakdown > bd.txt || fail "await --breakdown"
grep -q "the prover waited" bd.txt && grep -q "^pipeline  proving" bd.txt || fail "breakdown: $(cat bd.txt)"
# Bad requests: exit 2 with the daemon's reason; the daemon keeps serving.
C submit --circuit mulchain --log-size 10 --params ../cuzk.toml 2> bad.txt; [ $? -eq 2 ] || fail "'..' must give exit 2"
grep -q "refused" bad.txt || fail "bad request message: $(cat bad.txt)"
C submit --circuit nope --params m10.params 2> bad.txt; [ $? -eq 2 ] || fail "unknown circuit must give exit 2"
C await 999999 2> bad.txt; [ $? -eq 2 ] || fail "unknown job must give exit 2"
C metrics > metrics.txt; grep -q "^cuzk_jobs_rejected_total 2$" metrics.txt || fail "metrics: $(grep rejected metrics.txt)"
C status | grep -q "cpu backend" || fail "status"
# SIGTERM while a long job runs: the daemon drains and keeps serving status (a submit is refused); a second
# SIGTERM interrupts (exit 0 at once); the job resumes at the next start.
id=$(C submit --circuit mulchain --log-size 10 --partitions 64 --witness-seed 11 --params m10.params) || fail "submit"
for _ in $(seq 200); do
  C status "$id" --json | python3 -c 'import json,sys; j=json.load(sys.stdin)["job"]; sys.exit(0 if j["partitionsProven"] >= 1 else 1)' && break
  sleep 0.05
done
kill -TERM "$pid"; sleep 0.5
C status "$id" > /dev/null || fail "status must answer while the daemon drains"
C submit --circuit mulchain --log-size 10 --params m10.params 2> bad.txt; [ $? -eq 2 ] || fail "a submit while draining must give exit 2"
grep -q "shutting down" bad.txt || fail "submit while draining: $(cat bad.txt)"
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=""
[ $rc -eq 0 ] || fail "daemon exit code $rc after a second SIGTERM"
start
C await "$id" --json --timeout 300 > int.txt || fail "await after an interrupted drain: $(cat int.txt)"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["state"]=="DONE" and j["proofs"]==64, j' int.txt \
  || fail "the interrupted job: $(cat int.txt)"
# SIGTERM: drain and exit 0, the socket removed.
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=""
[ $rc -eq 0 ] || fail "daemon exit code $rc after SIGTERM"
[ ! -e state/cuzk.sock ] || fail "the socket is left behind"
echo "daemon round trip: all checks passed"
