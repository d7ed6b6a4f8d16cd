#!/usr/bin/env bash
# A compiler launcher that logs each unit's wall time as "<seconds> <object file>", one line per
# unit, to $CURED_COMPILE_TIMES (an absolute path; default compile_times.log in the build
# directory):
#
#   cmake --preset release -DCMAKE_CUDA_COMPILER_LAUNCHER=$PWD/scripts/compile_time.sh \
#         -DCMAKE_CXX_COMPILER_LAUNCHER=$PWD/scripts/compile_time.sh
#   cmake --build --preset release -j"$(nproc)" && sort -rn build/release/compile_times.log | head
start=$(date +%s.%N)
"$@"
status=$?
end=$(date +%s.%N)
object=
previous=
for arg in "$@"; do
  [[ $previous == -o ]] && object=$arg
  previous=$arg
done
log=${CURED_COMPILE_TIMES:-}
if [[ -z $log ]]; then
  # make and ninja run the compiler in a subfolder of the build directory: find its top
  dir=$PWD
  while [[ $dir != / && ! -f $dir/CMakeCache.txt ]]; do dir=$(dirname "$dir"); done
  log=$([[ -f $dir/CMakeCache.txt ]] && echo "$dir" || echo "$PWD")/compile_times.log
fi
awk -v s="$start" -v e="$end" -v o="$object" 'BEGIN { printf "%.1f %s\n", e - s, o }' >>"$log"
exit $status
