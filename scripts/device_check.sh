#!/usr/bin/env bash
# Everything that needs the GPU, in as few calls as possible. Run from the repository root on
# the GPU machine; logs go to $OUT (default ./out), and a short summary is printed last.
#
#   scripts/device_check.sh tests   # build, every GPU test, compute-sanitizer at small sizes
#   scripts/device_check.sh bench   # build, the default cured-bench run, the ladder tables, the plot
#   scripts/device_check.sh all     # both
set -uo pipefail
mode=${1:-all}
out=${OUT:-out}
mkdir -p "$out"
build=build/device
summary=()
note() { summary+=("$1"); }

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv >"$out/device.txt" 2>&1
note "device: $(tail -1 "$out/device.txt")"

if [[ $mode == tests || $mode == all ]]; then
  for t in cpu ladder library bench; do
    bin="$build/tests/$t/cured_tests_$t"
    [[ -x $bin ]] || continue
    "$bin" --gtest_brief=1 >"$out/test_$t.log" 2>&1
    note "tests $t: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/test_$t.log" | tr '\n' ' ')"
  done
  # Small sizes only: the sanitizers slow kernels down a hundredfold or more.
  export CURED_TEST_MAX_N=5000
  for tool in memcheck racecheck initcheck synccheck; do
    for t in ladder library; do
      bin="$build/tests/$t/cured_tests_$t"
      filter='*'
      [[ $tool == racecheck || $tool == initcheck ]] && filter='-*Large*:*SeveralStreams*'
      compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin" --gtest_brief=1 --gtest_filter="$filter" \
        >"$out/sanitize_${tool}_$t.log" 2>&1
      note "compute-sanitizer $tool $t: rc=$? $(grep -E 'ERROR SUMMARY' "$out/sanitize_${tool}_$t.log" | tail -1)"
    done
  done
  unset CURED_TEST_MAX_N
fi

if [[ $mode == bench || $mode == all ]]; then
  bench="$build/bench/cured-bench"
  "$bench" --format json --out "$out/bench_default.json" 2>"$out/bench_default.err"
  note "bench default: rc=$?"
  python3 scripts/plot_bandwidth.py "$out/bench_default.json" -o "$out/bandwidth.png" >"$out/plot.log" 2>&1
  note "plot: rc=$?"
  "$bench" --impl ladder,cub,thrust --types int32 --sizes 2^22 --mode cold --format md --out "$out/ladder_int32_2p22.md" \
    2>"$out/ladder_int32.err"
  note "ladder int32 2^22: rc=$?"
  "$bench" --impl ladder,cub,thrust --types float --sizes 2^28 --mode cold --format md --out "$out/ladder_float_2p28.md" \
    2>"$out/ladder_float.err"
  note "ladder float 2^28: rc=$?"
fi

echo "==== summary"
printf '%s\n' "${summary[@]}"
