# Shared by tests/daemon_roundtrip.sh and scripts/soak.sh (sourced, in the daemon's working directory): the
# daemon's configuration (CPU backend, one synthesis worker, drain on SIGTERM) and start(), which runs
# `$CUZK daemon` in the background, sets $pid, and waits until it answers (else calls the caller's fail).
write_daemon_config() {
  cat > cuzk.toml <<'TOML'
[paths]
params = "params"
state = "state"
[engine]
backend = "cpu"
synthesis_workers = 1
[jobs]
shutdown = "drain"
TOML
}
start() {
  "$CUZK" daemon --config cuzk.toml >> daemon.log 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    [ -S state/cuzk.sock ] && "$CUZK" client --socket state/cuzk.sock status > /dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "the daemon did not come up"
}
