#!/bin/sh
# make fuzz: libFuzzer (clang -fsanitize=fuzzer) over nhood's pure core
# (src/core: grid canonicalization, schedule builders and simulator),
# with ASan and UBSan.  Targets: test/fuzz/fuzz_offsets.c (offset lists
# end to end through nh_sim_offsets), test/fuzz/fuzz_graph.c (detection's
# soundness on edited, shuffled graphs), test/fuzz/fuzz_parse.c (the
# settings parsers of src/core/parse.c against an oracle),
# test/fuzz/fuzz_costfile.c and fuzz_tunefile.c (the cost and tuning
# files' parsers, src/core/kvfile.c and tunetext.c: the line of an error,
# each accepted file written back and read again).
#
# Usage: scripts/fuzz.sh [seconds per target] [target...]
#   FUZZ_CC (default clang), FUZZ_JOBS (parallel fuzzing processes, 1),
#   FUZZ_DIR (work directory, default build-fuzz/).
# Inputs are at most 256 bytes (the file targets': 16 KiB, a real cost
# file whole); test/fuzz/<target>.dict, where there is one, gives libFuzzer the
# format's words.
# Each target starts from the committed corpus test/fuzz/corpus/<target>/
# (copied, never written); new inputs go to FUZZ_DIR/corpus_<target>/,
# crashes, timeouts and slow inputs to FUZZ_DIR/ as <target>-crash-*.
# To keep new coverage, minimize into the committed corpus:
#   FUZZ_DIR/fuzz_<target> -set_cover_merge=1 test/fuzz/corpus/<target> FUZZ_DIR/corpus_<target>
# A crash is reproduced without clang by the replay driver `make check` uses:
#   test/fuzz/replay_<target> FUZZ_DIR/<target>-crash-...
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-300}
[ $# -gt 0 ] && shift
targets=${*:-"offsets graph parse costfile tunefile"}
cc=${FUZZ_CC:-clang}
dir=${FUZZ_DIR:-$top/build-fuzz}
command -v "$cc" >/dev/null || { echo "fuzz: $cc not found (scripts/install-deps.sh)" >&2; exit 2; }
mkdir -p "$dir"
for t in $targets; do
    "$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -I"$top/src" -I"$top/include" "$top/test/fuzz/fuzz_$t.c" "$top"/src/core/*.c \
        -o "$dir/fuzz_$t"
    mkdir -p "$dir/corpus_$t"
    cp "$top/test/fuzz/corpus/$t/"* "$dir/corpus_$t/"
    echo "fuzz: $t for $secs s (log: $dir/fuzz_$t.log)"
    case $t in costfile | tunefile) maxlen=16384 ;; *) maxlen=256 ;; esac
    dict=""
    [ -f "$top/test/fuzz/$t.dict" ] && dict="-dict=$top/test/fuzz/$t.dict"
    status=0
    # shellcheck disable=SC2086
    "$dir/fuzz_$t" -max_total_time="$secs" -max_len=$maxlen -print_final_stats=1 $dict \
        -jobs="${FUZZ_JOBS:-1}" -workers="${FUZZ_JOBS:-1}" \
        -artifact_prefix="$dir/$t-" "$dir/corpus_$t" >"$dir/fuzz_$t.log" 2>&1 || status=$?
    grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec)' "$dir/fuzz_$t.log" || true
    grep -E '^#[0-9]+.*(DONE|pulse)' "$dir/fuzz_$t.log" | tail -1 || true
    if [ "$status" -ne 0 ]; then
        echo "fuzz: $t found a failure (exit $status):" >&2
        grep -E '^(fuzz:|==[0-9]+==ERROR|SUMMARY)' "$dir/fuzz_$t.log" >&2 || tail -20 "$dir/fuzz_$t.log" >&2
        exit 1
    fi
done
