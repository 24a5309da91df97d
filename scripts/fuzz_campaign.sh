#!/usr/bin/env bash
# A longer fuzzing campaign than CTest's bounded runs: each libFuzzer target of tests/fuzz in turn for
# SECONDS seconds (default 600), from its seeds plus the corpus earlier campaigns grew
# (build-sanitize/fuzz-campaign/<target>/corpus, kept between campaigns). Builds ./build-sanitize
# first (scripts/build_sanitize.sh) unless TCEMU_FUZZ_NO_BUILD=1.
#
# usage: scripts/fuzz_campaign.sh [SECONDS] [target...]
#   targets: fuzz_qasm fuzz_knn_dataset fuzz_kmeans_dataset fuzz_hplai_system fuzz_qsim_circuit
#   (default: all). Extra libFuzzer options in TCEMU_FUZZ_ARGS. A finding does not end the campaign:
#   run_fuzz.sh records it (findings.txt: class, report, reproducer) and starts libFuzzer again.
# Output: per target, build-sanitize/fuzz-campaign/<target>/{campaign.log, logs/, findings.txt,
# artifacts/}; a summary (executions, coverage, corpus size, findings) at the end. A reproducer that
# is a real bug goes to tests/fuzz/regressions/<target>/ (CTest replays those).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(fuzz_qasm fuzz_knn_dataset fuzz_kmeans_dataset fuzz_hplai_system fuzz_qsim_circuit)

[ "${TCEMU_FUZZ_NO_BUILD:-0}" = 1 ] || bash scripts/build_sanitize.sh
# shellcheck source=tests/sanitizers/env.sh
source tests/sanitizers/env.sh
b=build-sanitize/tests/fuzz
shared=$(cd .. && pwd)/shared/circuits/qasmbench
declare -A seeds=([fuzz_qasm]="tests/fuzz/seeds/qasm:$shared" [fuzz_knn_dataset]=$b/seeds/knn
                  [fuzz_kmeans_dataset]=$b/seeds/kmeans [fuzz_hplai_system]=$b/seeds/hplai
                  [fuzz_qsim_circuit]=$b/seeds/circuit)
summary=()
for t in "${targets[@]}"; do
  work=build-sanitize/fuzz-campaign/$t
  mkdir -p "$work"
  echo "fuzz_campaign: $t for $secs s (log $work/campaign.log)"
  status=0
  # -seed=0: a new random seed each campaign (in the logs); -max_len 64 KiB as in CTest.
  # shellcheck disable=SC2086  # TCEMU_FUZZ_ARGS is a list of options
  TCEMU_FUZZ_KEEP_CORPUS=1 TCEMU_FUZZ_CONTINUE=1 bash tests/fuzz/run_fuzz.sh "$b/$t" "$work" "${seeds[$t]}" "$secs" \
    -seed=0 -max_len=65536 -timeout=10 -rss_limit_mb=2048 ${TCEMU_FUZZ_ARGS:-} >"$work/campaign.log" 2>&1 || status=$?
  line=$(grep '^run_fuzz: .* executions' "$work/campaign.log" | tail -1)
  execs=$(sed -n 's/.*: \([0-9]*\) executions.*/\1/p' <<<"$line")
  # Coverage: the highest any libFuzzer process of this target reached (edges "cov", features "ft").
  cov=$(cat "$work"/logs/*.log 2>/dev/null | sed -n 's/.* cov: \([0-9]*\).*/\1/p' | sort -n | tail -1)
  ft=$(cat "$work"/logs/*.log 2>/dev/null | sed -n 's/.* ft: \([0-9]*\).*/\1/p' | sort -n | tail -1)
  corpus=$(find "$work/corpus" -type f | wc -l)
  hdf5=$(grep -c '^hdf5 ' "$work/findings.txt" 2>/dev/null || true)
  own=$(grep -vc '^hdf5 ' "$work/findings.txt" 2>/dev/null || true)
  summary+=("$t: ${execs:-?} executions in $secs s, cov ${cov:-?}, ft ${ft:-?}, corpus $corpus files," \
            "findings: ${own:-0} in tcemu, ${hdf5:-0} inside HDF5 (status $status)")
done
printf 'fuzz_campaign: %s\n' "${summary[@]}"
echo "fuzz_campaign: findings per target in build-sanitize/fuzz-campaign/<target>/findings.txt"
