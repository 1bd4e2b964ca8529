#!/usr/bin/env bash
# Soak test of `cuzk daemon` (issue 20; run on a development machine and recorded in docs/daemon.md, not in CI):
# JOBS mixed small jobs (mul chains of 2^4..2^7 constraints, 1..4 partitions, random priorities) submitted by a few
# concurrent clients through `cuzk client`, with random cancels, interleaved bad requests, and KILLS `kill -9`
# restarts of the daemon at random moments. Then every accepted job is awaited. It checks:
#   - nothing lost: every accepted job ends (DONE with verified proofs, or CANCELLED), none unknown to the daemon;
#   - nothing proven twice once recorded: the daemon's log ends each job at most once;
#   - no crash: every daemon that was not killed exits 0 on SIGTERM, no core dump;
#   - memory flat: the daemon's resident set late in the run is within 1.5x (+ 64 MiB) of early in the run.
# Usage: scripts/soak.sh path/to/cuzk [JOBS=1000] [KILLS=10]
set -uo pipefail
CUZK=$(realpath "$1")
jobs=${2:-1000}
kills=${3:-10}
env_sh=$(realpath "$(dirname "$0")/../tests/daemon_env.sh")
dir=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "SOAK FAIL: $*"; [ -f "$dir/daemon.log" ] && tail -20 "$dir/daemon.log"; exit 1; }
cd "$dir" || exit 1
# shellcheck source=tests/daemon_env.sh
source "$env_sh"
mkdir -p params
for k in 4 5 6 7; do
  "$CUZK" setup --circuit mulchain --log-size $k --seed $k --params params/m$k.params > /dev/null || fail "setup $k"
done
write_daemon_config
start
export CUZK pid
python3 - "$jobs" "$kills" <<'PY' || fail "the driver failed"
import json, os, random, signal, subprocess, sys, threading, time

jobs, kills = int(sys.argv[1]), int(sys.argv[2])
cuzk = os.environ["CUZK"]
rng = random.Random(int(os.environ.get("SOAK_SEED", "0")) or time.time_ns())
lock = threading.Lock()
accepted, cancelled_ok, bad_ok, rss = [], 0, 0, []
pid = [int(os.environ["pid"])]
daemon = [None]  # the Popen of a daemon this driver started (after a kill)
restarting = threading.Event()

def client(*args, timeout=600):
    return subprocess.run([cuzk, "client", "--socket", "state/cuzk.sock", *args], capture_output=True, text=True,
                          timeout=timeout)

def submit_loop(n, seed):
    global cancelled_ok, bad_ok
    r = random.Random(seed)
    for i in range(n):
        while restarting.is_set():
            time.sleep(0.05)
        if r.random() < 0.05:  # a bad request: refused with exit 2, the daemon keeps serving
            bad = r.choice([["--circuit", "nope", "--params", "m4.params"],
                            ["--circuit", "mulchain", "--log-size", "4", "--params", "../cuzk.toml"],
                            ["--circuit", "mulchain", "--log-size", "4", "--partitions", "100000", "--params", "m4.params"]])
            p = client("submit", *bad)
            if p.returncode == 2:
                with lock: bad_ok += 1
            elif "UNAVAILABLE" not in p.stderr and "connect" not in p.stderr:
                print("bad request not refused:", bad, p.returncode, p.stderr, file=sys.stderr); sys.exit(1)
            continue
        k = r.choice([4, 5, 6, 7])
        args = ["submit", "--circuit", "mulchain", "--log-size", str(k), "--partitions", str(r.randint(1, 4)),
                "--witness-seed", str(r.randint(1, 1 << 30)), "--params", f"m{k}.params",
                "--priority", r.choice(["low", "normal", "high"])]
        p = client(*args)
        if p.returncode != 0:
            continue  # the daemon was being restarted: not accepted, nothing to check
        jid = p.stdout.strip().split()[-1]
        with lock: accepted.append((jid, k))
        if r.random() < 0.1:
            c = client("cancel", jid)
            if c.returncode == 0:
                with lock: cancelled_ok += 1

def killer():
    for i in range(kills):
        time.sleep(rng.uniform(1.0, 4.0))
        restarting.set()
        os.kill(pid[0], signal.SIGKILL)
        try:
            os.waitpid(pid[0], 0)
        except ChildProcessError:  # the first daemon is the shell's child: wait until it is gone
            while os.path.exists(f"/proc/{pid[0]}"): time.sleep(0.02)
        d = subprocess.Popen([cuzk, "daemon", "--config", "cuzk.toml"], stdout=open("daemon.log", "a"),
                             stderr=subprocess.STDOUT)
        pid[0], daemon[0] = d.pid, d
        for _ in range(100):
            if client("status").returncode == 0: break
            time.sleep(0.1)
        restarting.clear()

def sampler():
    while not done.is_set():
        p = client("status", "--json")
        if p.returncode == 0:
            try: rss.append(int(json.loads(p.stdout).get("rssBytes", 0)))
            except Exception: pass
        time.sleep(0.5)

done = threading.Event()
threads = [threading.Thread(target=submit_loop, args=(jobs // 4, s)) for s in range(4)]
kt = threading.Thread(target=killer)
st = threading.Thread(target=sampler)
for t in threads + [kt, st]: t.start()
for t in threads + [kt]: t.join()

lost, bad_end = [], []
for jid, k in accepted:
    p = client("await", jid, "--json", "--timeout", "600")
    if p.returncode not in (0, 1):
        lost.append((jid, p.returncode, p.stderr.strip())); continue
    j = json.loads(p.stdout)
    if j["state"] == "DONE" and not j.get("verified"):
        bad_end.append((jid, j))
    elif j["state"] not in ("DONE", "CANCELLED"):
        bad_end.append((jid, j))
done.set(); st.join()
if daemon[0]:  # this driver's child: it ends it and records how it exited
    daemon[0].send_signal(signal.SIGTERM)
    open("rc", "w").write(str(daemon[0].wait(timeout=300)))
else:
    open("pid", "w").write(str(pid[0]))
print(json.dumps({"accepted": len(accepted), "cancelled_by_request": cancelled_ok, "bad_requests_refused": bad_ok,
                  "lost": len(lost), "bad_ends": len(bad_end), "rss_samples": len(rss),
                  "rss_early_mib": round(sum(rss[:len(rss)//4 or 1]) / max(1, len(rss[:len(rss)//4 or 1])) / 2**20, 1),
                  "rss_late_mib": round(sum(rss[-(len(rss)//4 or 1):]) / max(1, len(rss[-(len(rss)//4 or 1):])) / 2**20, 1),
                  # the mean of each tenth of the samples, in order: the shape of the resident set over the run
                  "rss_tenths_mib": [round(sum(t) / len(t) / 2**20, 1) for t in
                                     (rss[i * len(rss) // 10:(i + 1) * len(rss) // 10] for i in range(10)) if t]}))
for x in lost[:5] + bad_end[:5]: print(x, file=sys.stderr)
if lost or bad_end: sys.exit(1)
if rss:
    q = max(1, len(rss) // 4)
    early, late = sum(rss[:q]) / q, sum(rss[-q:]) / q
    if late > 1.5 * early + 64 * 2**20: print("RSS grew", early, late, file=sys.stderr); sys.exit(1)
PY
if [ -f rc ]; then
  rc=$(cat rc); pid=""
else
  kill -TERM "$pid"; wait "$pid" 2>/dev/null; rc=$?; pid=""
fi
[ $rc -eq 0 ] || fail "the last daemon exited $rc on SIGTERM"
# Each job ended at most once in the log (a job recorded as ended is never proven again after a restart).
twice=$(grep -oE "job [0-9]+ (done|failed|cancelled)" daemon.log | awk '{print $2}' | sort | uniq -d | head -5)
[ -z "$twice" ] || fail "jobs ended twice: $twice"
ls core* 2>/dev/null && fail "a core dump"
echo "soak: all checks passed"
