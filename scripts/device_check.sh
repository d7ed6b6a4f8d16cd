#!/usr/bin/env bash
# Everything that needs the GPU, in as few calls as possible. Run from the repository root on
# the GPU machine; logs and reports go to device-out/ (packed into $OUT/device-out.tgz when
# $OUT is set, beside the main reports), and a short summary is printed last.
#
#   scripts/device_check.sh build   # the build alone (every target), for a first call that may run long
#   scripts/device_check.sh tests   # build, every GPU test, example and the Python package's tests
#   scripts/device_check.sh sanitize # compute-sanitizer memcheck, racecheck, initcheck, synccheck at small sizes
#   scripts/device_check.sh bench   # build, the default cured-bench run, the sweep, the ladder tables, the plot
#   scripts/device_check.sh perf    # the library against CUB and Thrust, 2^10..2^32
#   scripts/device_check.sh exact   # the exact tests, then exact_sum against cured::sum (every floating type and data
#                                   # family) and exact_dot against CUB's fused dot and cuBLAS's
#   scripts/device_check.sh profile # ncu counters of every ladder step, the library and CUB
#   scripts/device_check.sh axes    # builds cured-bench only; the axis grid (cured, CUB's segmented
#                                   # reduce and the floor over 2-D and 3-D shapes), its plots and
#                                   # the targets table (axes.md)
#   scripts/device_check.sh segments # builds cured-bench only; the segment grid (cured, CUB's
#                                   # segmented reduce and the floor over int64 offsets of every
#                                   # distribution) and its targets table (segments.md)
#   scripts/device_check.sh nccl    # the reductions across GPUs (needs NCCL): the simulated-rank
#                                   # tests, the C interface's test of the caller's device (two
#                                   # GPUs), the NCCL tests and cured-nccl-bench on 1, 2, 4 and 8
#                                   # ranks (as many as there are GPUs), the example, then
#                                   # cured.distributed under torchrun (python/tests/dist_check.py
#                                   # and the example) on as many ranks, and the NCCL tests of the
#                                   # elementwise exact all-reduce under compute-sanitizer (one rank)
#   scripts/device_check.sh pip     # the package as a user installs it: `python3 -m pip install
#                                   # --no-build-isolation .` into this machine's python3 (a venv;
#                                   # setup.py builds libcured_c in build/pip), the package's tests
#                                   # from that install (device ones required), Numba and JAX
#                                   # inputs with torch and CuPy hidden, then the wheel of the same
#                                   # build in a second venv that sees the first's torch: one reduction
#   scripts/device_check.sh readme  # the README's two commands verbatim, as a newcomer runs them, each in a
#                                   # fresh build directory on README_CORES cores (default 16, taskset) and
#                                   # stopped at README_LIMIT s (default 520 for the two together); their
#                                   # output timestamped (readme_1.log, readme_2.log) and the times of the
#                                   # build, of the pip install, of the first row and of the end in the
#                                   # summary, written to $OUT/summary.txt as each is known; README_COMMANDS=1
#                                   # runs the first command alone
#   scripts/device_check.sh all     # tests and bench
#   scripts/device_check.sh compare BASE_SRC [RENAME ...]
#                                   # another source tree's cured-bench (say, git archive of the
#                                   # last release) against this one's in one run: base, new, new,
#                                   # base; the cub/cured tables side by side and whether each
#                                   # kernel's SASS is the same (RENAME: compare_sass.py rules)
#
#   scripts/device_check.sh walks   # the segments probe (bench/probe/segments.cu): every distribution's
#                                   # sums and max through each walk of segments_kernel, the mean's
#                                   # marked, times, % of the floor, same results as the chunks
#
# DEVICE_OUT names the logs' folder (default device-out), so that modes can run side by side on
# different GPUs (CUDA_VISIBLE_DEVICES); DEVICE_SKIP_BUILD=1 skips the configure and build (one
# build shared by such runs).
# SANITIZE_TOOLS and SANITIZE_SUITES narrow the sanitize mode (default: every tool, the suites
# ladder library exact axes segments statistics). AXES_TYPES narrows the axes mode (default: float int32 half double),
# SEG_TYPES the segments mode (default: float int32 double).
set -uo pipefail
mode=${1:-all}
out=$(realpath -m "${DEVICE_OUT:-device-out}")
mkdir -p "$out"
build=build/device
summary=()
note() { summary+=("$1"); }

mkdir -p "$build"
if [[ $mode != walks && $mode != pip && $mode != readme && ${DEVICE_SKIP_BUILD:-0} != 1 ]]; then
  # (the probe is built alone, below; pip and readme build their own)
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
  targets=()
  [[ $mode == axes || $mode == segments ]] && targets=(--target cured-bench)  # the grids need the bench only
  [[ $mode == nccl ]] && targets=(--target cured-python cured_tests_nccl cured-nccl-bench cured_tests_ranks cured_tests_c_api)
  cmake --build "$build" -j"$(nproc)" ${targets[@]+"${targets[@]}"} >"$out/build.log" 2>&1 ||
    { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
fi
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv >"$out/device.txt" 2>&1
note "device: $(tail -1 "$out/device.txt")"

# The test binary of a suite: tests/<folder>/cured_tests_<suite>.
test_binary() {
  case $1 in
    exact | axes | segments | statistics | ranks) echo "$build/tests/library/cured_tests_$1" ;;
    c_api) echo "$build/tests/c/cured_tests_c_api" ;;
    *) echo "$build/tests/$1/cured_tests_$1" ;;
  esac
}

if [[ $mode == tests || $mode == all ]]; then
  for t in cpu ladder library exact axes segments statistics bench c_api; do
    bin=$(test_binary "$t")
    [[ -x $bin ]] || { note "tests $t: $bin not built"; continue; }
    "$bin" --gtest_brief=1 >"$out/test_$t.log" 2>&1
    note "tests $t: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/test_$t.log" | tr '\n' ' ')"
  done
  # The suites that reach thread-block clusters again as on an Ampere GPU: the portable paths.
  for t in library axes statistics ranks c_api; do
    bin=$(test_binary "$t")
    [[ -x $bin ]] || continue
    CURED_ARCH_CAP=80 "$bin" --gtest_brief=1 >"$out/test_${t}_sm80.log" 2>&1
    note "tests $t as on sm_80 (CURED_ARCH_CAP=80): rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/test_${t}_sm80.log" | tr '\n' ' ')"
  done
  (cd "$build" && ctest -R 'example|install|scripts|python' >"$out/ctest_other.log" 2>&1)
  note "ctest examples/install/scripts/python: rc=$? $(grep -E 'tests passed|tests failed' "$out/ctest_other.log")"
  while IFS= read -r line; do note "  $line"; done < <(grep -E '\*\*\*Failed|Not Run|Timeout' "$out/ctest_other.log")
fi

if [[ $mode == sanitize || $mode == all ]]; then
  # Small sizes only: the sanitizers slow kernels down a hundredfold or more.
  export CURED_TEST_MAX_N=5000
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
    for t in ${SANITIZE_SUITES:-ladder library exact axes segments statistics c_api}; do
      bin=$(test_binary "$t")
      filter='*'
      [[ $tool == racecheck || $tool == initcheck ]] && filter='-*Large*:*SeveralStreams*'
      timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin" --gtest_brief=1 --gtest_filter="$filter" \
        >"$out/sanitize_${tool}_$t.log" 2>&1
      note "compute-sanitizer $tool $t: rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' "$out/sanitize_${tool}_$t.log" | tail -1)"
    done
  done
  # The portable paths (no thread-block clusters) under memcheck and racecheck too.
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
    filter='*'
    [[ $tool == racecheck ]] && filter='-*Large*:*SeveralStreams*'
    CURED_ARCH_CAP=80 timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 99 "$(test_binary library)" \
      --gtest_brief=1 --gtest_filter="$filter" >"$out/sanitize_${tool}_library_sm80.log" 2>&1
    note "compute-sanitizer $tool library as on sm_80: rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' "$out/sanitize_${tool}_library_sm80.log" | tail -1)"
  done
  unset CURED_TEST_MAX_N
fi

if [[ $mode == bench || $mode == all ]]; then
  bench="$build/bench/cured-bench"
  "$bench" --csv "$out/bench_default.csv" >"$out/bench_default.txt" 2>"$out/bench_default.err"
  note "bench default: rc=$? $(grep -c ',ok,' "$out/bench_default.csv") of $(($(wc -l <"$out/bench_default.csv") - 1)) rows ok"
  "$bench" --sweep --format json --out "$out/bench_sweep.json" 2>"$out/bench_sweep.err"
  note "bench sweep: rc=$?"
  python3 scripts/plot_bandwidth.py "$out/bench_sweep.json" -o "$out/bandwidth.png" >"$out/plot.log" 2>&1
  note "plot: rc=$?"
  for cfg in "int32 2^22 4194304" "float 2^28 268435456"; do
    read -r type size n <<<"$cfg"
    json="$out/ladder_${type}.json"
    "$bench" --impl ladder,cured,cub,thrust --types "$type" --sizes "$size" --mode cold --format json --out "$json" \
      2>"$out/ladder_${type}.err"
    note "ladder $type $size: rc=$?"
    python3 scripts/ladder_table.py "$json" --type "$type" --n "$n" >"$out/ladder_${type}.md" 2>&1
  done
fi

if [[ $mode == perf ]]; then
  # The library's speed targets against CUB (docs/PERF.md): sums of four types, float extrema.
  bench="$build/bench/cured-bench"
  "$bench" --impl cured,cured-blocking,cub,thrust,floor --types float,int32,double,half --ops sum --sizes 2^10..2^32 \
    --mode both --format json --out "$out/perf_sum.json" 2>"$out/perf_sum.err"
  note "perf sum: rc=$?"
  "$bench" --impl cured,cub,floor --types float --ops min,max,argmax --sizes 2^10..2^32 --mode both --format json \
    --out "$out/perf_extrema.json" 2>"$out/perf_extrema.err"
  note "perf extrema: rc=$?"
  python3 scripts/perf_table.py "$out/perf_sum.json" "$out/perf_extrema.json" >"$out/perf.md" 2>&1
  note "perf targets: $(grep -c MISSED "$out/perf.md") missed, $(grep -c ': met' "$out/perf.md") met"
fi

if [[ $mode == exact ]]; then
  # The library's exact tests, then the exact targets (docs/EXACT.md): exact_sum beside
  # cured::sum and CUB's sum on the same inputs, cold, every floating type and data family; then
  # exact_dot beside CUB's fused dot, cuBLAS's dot and the read floor. Each bench run takes about
  # a minute on an H200; the timeouts only stop a run that hangs.
  bin="$build/tests/library/cured_tests_exact"
  if [[ -x $bin ]]; then
    timeout 300 "$bin" --gtest_brief=1 >"$out/test_exact.log" 2>&1
    note "tests exact: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/test_exact.log" | tr '\n' ' ')"
  else
    note "tests exact: $bin not built"
  fi
  bench="$build/bench/cured-bench"
  exact_jsons=()
  for data in normal spread cancel boundary subnormal; do
    name="exact_${data}"
    timeout 230 "$bench" --impl cured,cub --types float,double,half,bfloat16 --ops sum,exact_sum --data "$data" \
      --sizes 2^10..2^28 --mode cold --format json --out "$out/$name.json" 2>"$out/$name.err"
    rc=$?
    bad=$(grep -c '"check": "[^os]' "$out/$name.json" 2>/dev/null)
    note "bench $name: rc=$rc, ${bad:-?} rows not ok"
    [[ -s $out/$name.json ]] && exact_jsons+=("$out/$name.json")
  done
  timeout 230 "$bench" --impl cured,cub,cublas,floor --types float,double,half,bfloat16 --ops exact_dot,dot \
    --data normal --sizes 2^12..2^28 --mode cold --format json --out "$out/exact_dot.json" 2>"$out/exact_dot.err"
  rc=$?
  note "bench exact_dot: rc=$rc, $(grep -c '"check": "[^osn]' "$out/exact_dot.json" 2>/dev/null) rows not ok"
  [[ -s $out/exact_dot.json ]] && exact_jsons+=("$out/exact_dot.json")
  if ((${#exact_jsons[@]})); then
    python3 scripts/perf_table.py "${exact_jsons[@]}" >"$out/exact.md" 2>&1
    rc=$?
    section=$(awk '/^## Exact sums/ { on = 1 } on' "$out/exact.md")
    note "exact targets: rc=$rc $(grep -c MISSED <<<"$section") missed, $(grep -c ': met' <<<"$section") met"
    while IFS= read -r line; do note "  $line"; done < <(grep -E '^### .*exact_(sum|dot)|^- (throughput|exact_sum time)' "$out/exact.md")
  fi
fi

if [[ $mode == axes ]]; then
  # The axis workloads' targets (docs/PERF.md, "Reductions along axes"): cured against CUB's segmented reduce and
  # the floor, cold, 30 samples a measurement, one run (and report) per type so that a run that
  # is stopped loses one type only. The host checks every output of every 2^28-element shape on
  # every core; the timeouts only stop a run that hangs.
  bench="$build/bench/cured-bench"
  axes_jsons=()
  for type in ${AXES_TYPES:-float int32 half double}; do
    json="$out/axes_$type.json"
    timeout 300 "$bench" --axes-grid --types "$type" --ops sum,exact_sum,min,max,argmax --mode cold --samples 30 \
      --format json --out "$json" 2>"$out/axes_$type.err"
    rc=$?
    bad=$(grep '"check": "' "$json" 2>/dev/null | grep -vcE '"check": "(ok"|skipped|n/a)')
    note "bench axes $type: rc=$rc, ${bad:-?} rows not ok of $(grep -c '"impl"' "$json" 2>/dev/null)"
    [[ -s $json ]] && axes_jsons+=("$json")
  done
  if ((${#axes_jsons[@]})); then
    python3 scripts/plot_axes.py "${axes_jsons[@]}" -o "$out/axes.png" >"$out/plot_axes.log" 2>&1
    note "plot axes: rc=$? $(tr '\n' ' ' <"$out/plot_axes.log")"
    python3 scripts/axes_table.py "${axes_jsons[@]}" --detail >"$out/axes.md" 2>&1
    note "axes targets: rc=$? $(grep -E '^- targets:' "$out/axes.md")"
    while IFS= read -r line; do note "  $line"; done < <(grep -E 'MISSED|^- [a-z0-9]+ [a-z]+ .*: ' "$out/axes.md" | head -40)
  fi
fi

if [[ $mode == segments ]]; then
  # The segmented workloads' targets: cured against CUB's segmented reduce and the floor over
  # the grid's distributions at 2^24 and 2^28, cold, one run (and report) per type so that a run
  # that is stopped loses one type only. The host draws the offsets and checks every segment
  # on every core; the timeouts only stop a run that hangs.
  bench="$build/bench/cured-bench"
  segments_jsons=()
  for type in ${SEG_TYPES:-float int32 double}; do
    json="$out/segments_$type.json"
    timeout 400 "$bench" --segments-grid --types "$type" --ops sum,min,max,argmax,exact_sum --mode cold \
      --format json --out "$json" 2>"$out/segments_$type.err"
    rc=$?
    bad=$(grep '"check": "' "$json" 2>/dev/null | grep -vcE '"check": "(ok"|skipped|n/a)')
    note "bench segments $type: rc=$rc, ${bad:-?} rows not ok of $(grep -c '"impl"' "$json" 2>/dev/null)"
    [[ -s $json ]] && segments_jsons+=("$json")
  done
  if ((${#segments_jsons[@]})); then
    python3 scripts/segments_table.py "${segments_jsons[@]}" >"$out/segments.md" 2>&1
    note "segments targets: rc=$? $(grep -E '^- targets:' "$out/segments.md")"
    while IFS= read -r line; do note "  $line"; done < <(grep -E 'MISSED|^- [a-z0-9]+ [a-z_]+ .*: (got|error)' "$out/segments.md" | head -40)
  fi
fi

if [[ $mode == walks ]]; then
  { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCURED_BUILD_PROBES=ON &&
    cmake --build "$build" -j"$(nproc)" --target segments_probe; } >"$out/probe_build.log" 2>&1 ||
    { tail -20 "$out/probe_build.log"; exit 1; }
  timeout 400 "$build/bench/segments_probe" walks u1 u4 u16 u64 u256 u1024 u4096 pl ob em >"$out/walks.log" 2>&1
  note "walks probe: rc=$?"
  while IFS= read -r line; do note "  $line"; done <"$out/walks.log"
fi

if [[ $mode == nccl ]]; then
  export NCCL_NVLS_ENABLE=0  # NVLink multicast off: its sums differ between calls
  gpus=$(nvidia-smi -L | wc -l)
  "$build/tests/library/cured_tests_ranks" --gtest_brief=1 >"$out/test_ranks.log" 2>&1
  note "tests ranks (simulated): rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/test_ranks.log" | tr '\n' ' ')"
  # The C interface on two GPUs: a call runs on its input's device and restores the caller's.
  "$build/tests/c/cured_tests_c_api" --gtest_brief=1 --gtest_filter='*RestoresTheCallers*' >"$out/test_c_devices.log" 2>&1
  note "tests c_api on $gpus GPU(s): rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/test_c_devices.log" | tr '\n' ' ')"
  [[ -x $build/tests/nccl/cured_tests_nccl ]] || note "NCCL not found: $(grep -i nccl "$out/configure.log")"
  for r in 1 2 4 8; do
    (( r <= gpus )) || break
    [[ -x $build/tests/nccl/cured_tests_nccl ]] || break
    timeout 600 "$build/tests/nccl/cured_tests_nccl" --ranks=$r --gtest_brief=1 >"$out/test_nccl_$r.log" 2>&1
    note "tests nccl, $r rank(s): rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/test_nccl_$r.log" | head -3 | tr '\n' ' ')"
    timeout 600 "$build/bench/cured-nccl-bench" --ranks=$r >"$out/nccl_bench_$r.txt" 2>&1
    note "cured-nccl-bench, $r rank(s): rc=$? $(tail -1 "$out/nccl_bench_$r.txt")"
  done
  if [[ -x $build/examples/cured_example_nccl_sum ]]; then
    "$build/examples/cured_example_nccl_sum" >"$out/example_nccl.log" 2>&1
    note "example nccl_sum on $gpus GPU(s): rc=$? $(tail -1 "$out/example_nccl.log")"
  fi
  # cured.distributed: the package from the build (libcured_nccl beside libcured_c), under torchrun.
  for r in 1 2 4 8; do
    (( r <= gpus )) || break
    PYTHONPATH=$build/python timeout 300 python3 -m torch.distributed.run --standalone --nproc_per_node=$r \
      python/tests/dist_check.py >"$out/dist_check_$r.log" 2>&1
    note "python dist_check, $r rank(s): rc=$? $(grep -E '^dist_check' "$out/dist_check_$r.log" | tail -1)"
  done
  PYTHONPATH=$build/python timeout 120 python3 -m torch.distributed.run --standalone --nproc_per_node=$((gpus < 2 ? gpus : 2)) \
    examples/python/distributed_sum.py >"$out/example_distributed.log" 2>&1
  note "example distributed_sum.py: rc=$? $(tail -1 "$out/example_distributed.log")"
  # The elementwise exact all-reduce's kernels under the sanitizers, one rank (every path: the
  # tests' hard data leave elements undecided and blocks with NaN and infinities). API errors
  # are not reported: NCCL's own probes of kernels it lacks for this GPU would count.
  if [[ -x $build/tests/nccl/cured_tests_nccl ]]; then
    for tool in memcheck racecheck; do
      CURED_TEST_MAX_N=5000 timeout 300 compute-sanitizer --tool $tool --error-exitcode 99 --report-api-errors no \
        "$build/tests/nccl/cured_tests_nccl" --ranks=1 --gtest_brief=1 --gtest_filter='*ExactAllReduce*' \
        >"$out/sanitize_${tool}_nccl.log" 2>&1
      note "compute-sanitizer $tool nccl (ExactAllReduce, 1 rank): rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' "$out/sanitize_${tool}_nccl.log" | tail -1)"
    done
  fi
fi

if [[ $mode == readme ]]; then
  # Each command in a session of its own (setsid; its id is the process's), so that stopping it at
  # the limit stops all it started; each line stamped with the seconds since the command began.
  cores=${README_CORES:-16}
  limit_end=$(($(date +%s) + ${README_LIMIT:-520}))
  mapfile -t commands < <(awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0; next } on' README.md | head -2)
  stamp='import sys, time
t0 = float(sys.argv[1])
for line in sys.stdin:
    sys.stdout.write("%7.1f %s" % (time.time() - t0, line))
    sys.stdout.flush()'
  first_at() { awk -v p="$1" '$0 ~ p { print $1; found = 1; exit } END { if (!found) print "-" }' "$2"; }
  for k in ${README_COMMANDS:-1 2}; do
    log=$out/readme_$k.log
    rm -rf build/release build/pip
    setsid bash -c '{ taskset -c "0-$(($1 - 1))" bash -c "$2" 2>&1; echo "exit status $?"; } | python3 -u -c "$3" "$4"' \
      _ "$cores" "${commands[k - 1]}" "$stamp" "$(date +%s.%N)" >"$log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && (($(date +%s) < limit_end)); do sleep 1; done
    kill -TERM -- "-$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    line="readme command $k on $cores cores: $(grep -o 'exit status [0-9]*' "$log" || echo 'stopped at the limit');"
    built=$(grep 'Built target' "$log" | tail -1 | awk '{ print $1 }')
    line+=" last 'Built target' at ${built:--} s,"
    line+=" pip installed at $(first_at 'Successfully installed' "$log") s,"
    line+=" first row at $(first_at '^ *[0-9.]+ [a-z0-9-]+ +(float|double|int32|uint32|half|bfloat16) +[a-z_]+ ' "$log") s,"
    line+=" last line at $(tail -1 "$log" | awk '{ print $1 }') s"
    note "$line"
    [[ -n ${OUT:-} ]] && echo "$line" >>"$OUT/summary.txt"
    (($(date +%s) < limit_end)) || break
  done
fi

if [[ $mode == pip ]]; then
  # No PYTHONPATH: everything below imports cured from where pip put it.
  unset PYTHONPATH
  export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
  python3 -m pip install -v --no-build-isolation --no-deps . >"$out/pip_install.log" 2>&1
  note "pip install --no-build-isolation .: rc=$? $(grep -E '^Successfully installed' "$out/pip_install.log")"
  python3 -m pip show cured >"$out/pip_show.txt" 2>&1
  note "pip show cured: $(grep -E '^(Version|Location):' "$out/pip_show.txt" | tr '\n' ' ')"
  (cd python/tests && python3 -c "import cured, sys; print(cured.__version__, cured.__file__);
assert cured.__file__.startswith(sys.prefix), 'cured imported from outside ' + sys.prefix") >"$out/pip_import.log" 2>&1
  note "import cured from the install: rc=$? $(tail -1 "$out/pip_import.log")"
  for suite in cpu device statistics table bench_table torch; do
    (cd python/tests && CURED_REQUIRE_DEVICE=1 timeout 600 python3 -m unittest test_$suite) >"$out/pip_test_$suite.log" 2>&1
    note "python test_$suite from the install: rc=$? $(grep -E '^(Ran |OK|FAILED)' "$out/pip_test_$suite.log" | tr '\n' ' ')"
  done
  # Inputs of no framework with torch and CuPy hidden (an import of either fails): the results
  # are Numba's arrays.
  (cd python/tests && python3 - <<'PY'
import sys
sys.modules["torch"] = sys.modules["cupy"] = None
import numpy, cured
from numba import cuda
x = cuda.to_device(numpy.arange(1000, dtype=numpy.float32))
y = cured.sum(x)
cuda.synchronize()
print("numba:", type(y).__name__, y.copy_to_host())
assert float(y.copy_to_host()) == 499500.0
try:
    import jax.numpy as jnp
except ImportError as e:
    print("jax: not importable (%s)" % e)
else:
    z = cured.amax(jnp.arange(1000, dtype=jnp.float32).reshape(10, 100), dim=1)
    cuda.synchronize()
    print("jax:", type(z).__name__, z.copy_to_host())
    assert list(z.copy_to_host()) == [99.0 + 100 * k for k in range(10)]
PY
  ) >"$out/pip_no_torch.log" 2>&1
  note "numba and jax inputs without torch or cupy: rc=$? $(grep -E '^(numba|jax|[A-Za-z]*Error)' "$out/pip_no_torch.log" | tr '\n' ' ')"
  # The wheel of the same build (build/pip, nothing recompiled) in a second venv, which sees the
  # first's packages (torch) through a .pth file after its own: cured comes from the wheel
  # (--ignore-installed: pip sees the first venv's cured there and would keep it).
  rm -rf "$out/wheelhouse" build/pip-venv
  python3 -m pip wheel --no-build-isolation --no-deps -w "$out/wheelhouse" . >"$out/pip_wheel.log" 2>&1
  note "pip wheel: rc=$? $(ls "$out"/wheelhouse/*.whl 2>/dev/null | xargs -n1 basename 2>/dev/null)"
  # A venv with its own pip where ensurepip is there; else one without, filled by this pip.
  venv_pip=(build/pip-venv/bin/python -m pip)
  python3 -m venv --system-site-packages build/pip-venv >"$out/pip_venv.log" 2>&1 ||
    { rm -rf build/pip-venv && python3 -m venv --system-site-packages --without-pip build/pip-venv >>"$out/pip_venv.log" 2>&1 &&
      venv_pip=(python3 -m pip --python build/pip-venv/bin/python); }
  python3 -c "import site; print(site.getsitepackages()[0])" \
      >"$(build/pip-venv/bin/python -c 'import site; print(site.getsitepackages()[0])')/device-venv.pth" &&
    "${venv_pip[@]}" install --no-deps --ignore-installed "$out"/wheelhouse/*.whl >>"$out/pip_venv.log" 2>&1 &&
    build/pip-venv/bin/python - >>"$out/pip_venv.log" 2>&1 <<'PY'
import sys
import torch, cured
assert cured.__file__.startswith(sys.prefix), cured.__file__
x = torch.arange(1000, dtype=torch.float32, device="cuda")
s = cured.sum(x)
print("second venv:", cured.__version__, cured.__file__, s.item())
assert s.item() == 499500.0
PY
  note "the wheel in a second venv with torch: rc=$? $(grep -E '^second venv|Error' "$out/pip_venv.log" | tail -2 | tr '\n' ' ')"
fi

if [[ $mode == compare ]]; then
  base_src=${2:?compare needs the base source tree}
  shift 2
  base_build=build/base
  { cmake -S "$base_src" -B "$base_build" -DCMAKE_BUILD_TYPE=Release -DCURED_BUILD_TESTS=OFF \
      -DCURED_BUILD_EXAMPLES=OFF && cmake --build "$base_build" -j"$(nproc)" --target cured-bench; } \
    >"$out/base_build.log" 2>&1
  note "base build: rc=$?"
  sizes=${COMPARE_SIZES:-2^10..2^30}
  for run in base1 new1 new2 base2; do
    bench="$build/bench/cured-bench"
    [[ $run == base* ]] && bench="$base_build/bench/cured-bench"
    "$bench" --impl cured,cub --types float,int32,double,half --ops sum --sizes "$sizes" --mode cold \
      --format json --out "$out/compare_sum_$run.json" 2>"$out/compare_sum_$run.err"
    rc1=$?
    "$bench" --impl cured,cub --types float,double --ops sum,min,max,argmax,exact_sum --sizes "$sizes" --mode cold \
      --format json --out "$out/compare_ops_$run.json" 2>"$out/compare_ops_$run.err"
    note "compare run $run: rc=$rc1 $?"
  done
  for what in sum ops; do
    python3 scripts/compare_reports.py --base "$out/compare_${what}_base1.json" "$out/compare_${what}_base2.json" \
      --new "$out/compare_${what}_new1.json" "$out/compare_${what}_new2.json" >"$out/compare_$what.md" 2>&1
    note "compare $what: rc=$?"
    while IFS= read -r line; do note "  $line"; done < <(grep -E '^\| [a-z0-9]+ \| [a-z_]+ \|' "$out/compare_$what.md")
  done
  rules=()
  for r in "$@"; do rules+=(--rename "$r"); done
  python3 scripts/compare_sass.py "$base_build/bench/cured-bench" "$build/bench/cured-bench" "${rules[@]}" \
    >"$out/compare_sass.txt" 2>&1
  note "sass: rc=$? $(tail -1 "$out/compare_sass.txt")"
fi

if [[ $mode == profile ]]; then
  python3 scripts/profile_ladder.py --bench "$build/bench/cured-bench" --out "$out/profile" --budget-s 420 \
    >"$out/profile.log" 2>&1
  note "profile: rc=$? $(tail -3 "$out/profile.log" | tr '\n' ' ')"
fi

printf '%s\n' "${summary[@]}" >"$out/summary.txt"
if [[ -n ${OUT:-} ]]; then
  tar czf "$OUT/$(basename "$out").tgz" -C "$(dirname "$out")" "$(basename "$out")"
  for f in bench_default.txt bench_sweep.json bandwidth.png ladder_int32.md ladder_float.md perf.md exact.md profile/profile.md \
           compare_sum.md compare_ops.md compare_sass.txt axes.md segments.md walks.log summary.txt; do
    [[ -f $out/$f ]] && cp "$out/$f" "$OUT/"
  done
  for f in "$out"/axes_*.json "$out"/axes*.png "$out"/segments_*.json; do
    [[ -f $f ]] && cp "$f" "$OUT/"
  done
fi
echo "==== summary"
printf '%s\n' "${summary[@]}"
