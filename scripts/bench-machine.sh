#!/usr/bin/env bash
# What this machine gives two concurrent workers, with no oracle and no Docker: each workload run
# alone, then two copies at once. "speedup" is 2 x alone / together: 2.00 is perfect scaling on two
# cores, 1.00 is none, below 1 means two at once finish later than one after the other.
#   cpu    a Python loop (no syscalls, no new memory)
#   fault  Python touching fresh anonymous pages (mmap 1 MiB, one write per 4 KiB page, munmap)
#   unmap  the same with one page per mapping: as many munmaps (TLB flushes) as faults
#   spawn  fork + exec + exit of /bin/true from sh
# A grade is made of all three (the suites are mostly cpu; a container's start and a checkout are
# mostly fault and spawn), so the sweep's speedup at concurrency 2 is bounded by their mix.
#
#   bash scripts/bench-machine.sh [ROUNDS]     (default 3 rounds; needs python3)
set -euo pipefail
rounds=${1:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "usage: bash scripts/bench-machine.sh [ROUNDS]" >&2; exit 2; }
# Ctrl-C: background copies do not get it without job control; stop them with the script.
trap 'kill $(jobs -p) 2>/dev/null; exit 130' INT TERM

cpu() { python3 -c 'exec("s = 0\nfor i in range(10_000_000): s += i")'; }
fault() {
  python3 -c '
import mmap
for _ in range(300):
    m = mmap.mmap(-1, 1 << 20)
    for i in range(0, 1 << 20, 4096): m[i] = 1
    m.close()'
}
unmap() {
  python3 -c '
import mmap
for _ in range(20000):
    m = mmap.mmap(-1, 1 << 16)
    m[0] = 1
    m.close()'
}
spawn() { for _ in $(seq 1000); do /bin/true; done; }

now() { date +%s%N; }
for workload in cpu fault unmap spawn; do
  for round in $(seq "$rounds"); do
    s=$(now); $workload; alone=$(( ($(now) - s) / 1000000 ))
    s=$(now)
    $workload & first=$!
    $workload & second=$!
    wait "$first" && wait "$second"
    together=$(( ($(now) - s) / 1000000 ))
    printf '%-6s round %s: alone %5d ms, two at once %5d ms, speedup %s\n' \
      "$workload" "$round" "$alone" "$together" "$(awk -v a="$alone" -v t="$together" 'BEGIN { printf "%.2f", 2 * a / t }')"
  done
done
printf 'page faults so far: %s (from /proc/vmstat); cores: %s\n' "$(awk '/^pgfault /{print $2}' /proc/vmstat)" "$(nproc)"
