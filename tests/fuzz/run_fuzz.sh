#!/usr/bin/env bash
# Runs one libFuzzer target on its corpus: CTest's bounded runs (tests/fuzz/CMakeLists.txt) and the
# campaigns of scripts/fuzz_campaign.sh.
#
# usage: run_fuzz.sh FUZZER WORKDIR SEED_DIRS SECONDS [libFuzzer options...]
#        run_fuzz.sh --replay FUZZER WORKDIR FILE...   (runs the target once on each file)
#   FUZZER     the fuzz target executable
#   WORKDIR    scratch folder: corpus/ (the seeds, plus what the runs add), artifacts/ (crash-*,
#              leak-*, timeout-*, oom-* reproducers), logs/, tmp/ (the HDF5 targets' input files)
#   SEED_DIRS  ':'-separated folders whose files seed the corpus; missing ones are skipped
#              (../shared/circuits is absent in some clones)
#   SECONDS    the time budget of the whole run
# Environment (campaigns, scripts/fuzz_campaign.sh): TCEMU_FUZZ_KEEP_CORPUS=1 keeps WORKDIR's corpus
# and reproducers from an earlier run instead of starting again from the seeds;
# TCEMU_FUZZ_CONTINUE=1 records findings in tcemu's code too and goes on (the exit status is still
# non-zero at the end).
#
# HDF5 1.10.8 (Debian 12; not instrumented) crashes, hangs or reads out of bounds on many corrupt
# files, and the HDF5 targets find such an input within a few hundred executions. So when libFuzzer
# stops on an input, the report is classified (triage.awk): a finding in tcemu's code (or a leak, or
# anything unclear) fails the run at once; one inside HDF5, in memory HDF5 allocated, is recorded in
# WORKDIR/findings.txt with its reproducer, listed at the end, and fuzzing goes on (a new libFuzzer
# process, next seed, the grown corpus) until the time budget is spent. No sanitizer report is
# suppressed for this; docs/reliability.md lists the HDF5 findings.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# Run-time options added to those of tests/sanitizers/env.sh (which scripts/test.sh sources):
#  allocator_may_return_null=1  a request above ASan's maximum allocation size (HDF5 asks for 2^63
#      bytes on some corrupt headers) returns NULL as glibc's malloc does in production (operator
#      new then throws std::bad_alloc, which the harness counts as a finding) instead of aborting;
#      big allocations that do succeed are still caught by libFuzzer's -malloc_limit_mb.
#  fast_unwind_on_malloc=0  (HDF5 targets) whole allocation stacks: HDF5 has no frame pointers, so
#      the fast unwinder stops at its first frame, and LeakSanitizer could not tell HDF5's own leaks
#      on corrupt files (suppressed by function in tests/sanitizers/lsan.supp) from buffers HDF5
#      hands to tcemu to free (which must stay reported); triage.awk needs whole stacks too. It
#      costs speed, so the test suites do not use it, nor does the QASM target (no HDF5 calls, many
#      allocations: 4x faster with the fast unwinder).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
target=$1
[ "$1" != --replay ] || target=$2
case "$(basename "$target")" in
  fuzz_qasm) ;;
  *) export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0" ;;
esac
case "${LSAN_OPTIONS:-}" in
  *suppressions=*) ;;
  *) export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$src/tests/sanitizers/lsan.supp" ;;
esac

if [ "$1" = --replay ]; then
  fuzzer=$2 work=$3
  shift 3
  mkdir -p "$work"
  export TCEMU_FUZZ_TMPDIR="$work"
  exec "$fuzzer" -rss_limit_mb=2048 -timeout=20 "$@"
fi

fuzzer=$1 work=$2 seeds=$3 budget=$4
shift 4
name=$(basename "$fuzzer")
mkdir -p "$work"
if [ "${TCEMU_FUZZ_KEEP_CORPUS:-0}" != 1 ]; then rm -rf "$work/corpus" "$work/artifacts" "$work/logs" "$work/findings.txt"; fi
rm -rf "$work/tmp"
mkdir -p "$work/corpus" "$work/artifacts" "$work/logs" "$work/tmp"
IFS=: read -r -a seed_dirs <<<"$seeds"
n=0
for d in "${seed_dirs[@]}"; do
  [ -d "$d" ] || { echo "run_fuzz: seed folder $d absent; skipped"; continue; }
  for f in "$d"/*; do
    [ -f "$f" ] || continue
    case "$f" in */LICENSE|*/README*|*/stamp) continue ;; esac
    # Named by folder and file, so that seeds of the same name from two folders both survive.
    dest="$work/corpus/seed-$(basename "$d")-$(basename "$f")"
    cp "$f" "$dest" && chmod u+w "$dest"
    n=$((n + 1))
  done
done
echo "run_fuzz: $name: $n seed files, corpus $work/corpus, $budget s"
export TCEMU_FUZZ_TMPDIR="$work/tmp"

# Options given as -seed=S are the first process's; each restart takes the next seed.
seed=1 opts=()
for o in "$@"; do case "$o" in -seed=*) seed=${o#-seed=} ;; *) opts+=("$o") ;; esac; done
deadline=$((SECONDS + budget)) restarts=0 execs=0 status=0 failed=0
while :; do
  left=$((deadline - SECONDS))
  ((left > 0)) || break
  log="$work/logs/run-$(date +%s)-$restarts.log"
  before=$(ls "$work/artifacts")
  status=0
  "$fuzzer" -artifact_prefix="$work/artifacts/" -print_final_stats=1 -seed="$seed" "${opts[@]}" \
    -max_total_time="$left" "$work/corpus" >"$log" 2>&1 || status=$?
  e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  execs=$((execs + ${e:-0}))
  last=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -1 | tr '\t' ' ' || true)
  ((status != 0)) || break
  # The reproducer libFuzzer wrote last (an earlier one in the log can be a forked child's).
  artifact=$(sed -n 's|.*Test unit written to .*/||p' "$log" | tail -1)
  [ -n "$artifact" ] || artifact=$(comm -13 <(echo "$before") <(ls "$work/artifacts") | head -1)
  # An input that stops libFuzzer while it reads the corpus would stop every restart: out of the
  # corpus with it (the reproducer in artifacts/ is a copy, named after the same SHA-1).
  [ -z "$artifact" ] || rm -f "$work/corpus/${artifact#*-}"
  verdict=$(awk -v src="$src" -f "$here/triage.awk" "$log")
  echo "$verdict: $work/artifacts/$artifact" >>"$work/findings.txt"
  if [ "${verdict%% *}" != hdf5 ]; then
    failed=1
    if [ "${TCEMU_FUZZ_CONTINUE:-0}" != 1 ]; then
      cat "$log"
      echo "run_fuzz: $name FAILED (status $status): ${verdict#* }"
      echo "run_fuzz: reproducer: $work/artifacts/$artifact"
      echo "run_fuzz: replay: bash $0 --replay $fuzzer /tmp/replay <file>;" \
           "keep a real bug's reproducer as tests/fuzz/regressions/$name/<name>"
      exit "$status"
    fi
  fi
  restarts=$((restarts + 1))
  [ "$seed" = 0 ] || seed=$((seed + 1))  # -seed=0: libFuzzer draws one
  if ((restarts >= 200)); then echo "run_fuzz: 200 restarts; stopping early"; break; fi
done
echo "run_fuzz: $name: $execs executions, $restarts stops on a finding; last status: ${last:-none}"
if [ -s "$work/findings.txt" ]; then
  echo "run_fuzz: findings (class, report, reproducer; hdf5 = a bug inside HDF5 1.10.8 on a corrupt file," \
       "recorded, not a failure; docs/reliability.md):"
  sed 's/^/  /' "$work/findings.txt"
fi
exit "$failed"
