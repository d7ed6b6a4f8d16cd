# cured-bench's exit statuses, run as a program: 0 for help, list and a good run; 2 with a
# one-line message for bad arguments. (1, a wrong result, is covered by exit_status's tests.)
# Usage: cmake -DBENCH=path/to/cured-bench -P exit_codes.cmake

function(expect_status want)
  execute_process(COMMAND ${BENCH} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL want)
    message(FATAL_ERROR "cured-bench ${ARGN}: exit ${rc}, want ${want}\nstdout: ${out}\nstderr: ${err}")
  endif()
  if(want EQUAL 2)
    string(STRIP "${err}" err)
    string(FIND "${err}" "\n" newline)
    if(NOT newline EQUAL -1 OR NOT err MATCHES "^cured-bench: ")
      message(FATAL_ERROR "cured-bench ${ARGN}: want one line 'cured-bench: ...', got:\n${err}")
    endif()
  endif()
  set(last_stdout "${out}" PARENT_SCOPE)
endfunction()

expect_status(0 --help)
expect_status(0 --list)
expect_status(2 --block 100)
expect_status(2 --impl foo)
expect_status(2 --sizes 12q)
expect_status(2 --types int64x)
expect_status(2 --mode lukewarm)
expect_status(2 --nonsense)
expect_status(2 --data uniform)
expect_status(2 --data normal --types int32)
expect_status(2 --ops exact)
# Axis workloads: bad shapes and axes, options that do not apply.
expect_status(2 --shape 4096x1024)
expect_status(2 --axes 1)
expect_status(2 --shape 4096xq --axes 1)
expect_status(2 --shape 4096x1024 --axes 2)
expect_status(2 --shape 4096x1024 --axes 1,-1)
expect_status(2 --axes-grid --sizes 2^20)
expect_status(2 --shape 64x32 --axes 1 --impl thrust)
expect_status(2 --shape 64x32 --axes 1 --ops median)
# A small axis run: without a GPU it times nothing (and says so); with one, every output checks.
expect_status(0 --shape "64x32 16x8x4" --axes 1 --types int32,half --ops all --samples 2 --mode cold --format csv)
# Segmented workloads: bad distributions, options that do not apply, and a small run of every
# distribution and op (without a GPU nothing is timed; with one, every segment checks).
expect_status(2 --segments zipf)
expect_status(2 --segments uniform:0)
expect_status(2 --segments uniform:x)
expect_status(2 --segments uniform:4 --shape 64x32 --axes 1)
expect_status(2 --segments-grid --segments powerlaw)
expect_status(2 --segments onebig --impl thrust)
expect_status(2 --segments onebig --data normal)
expect_status(0 --segments uniform:4,uniform:1000,powerlaw,onebig,empty-mixed --sizes 1000,2^14 --types int32,half
              --ops all --samples 2 --mode cold --format csv)
# A small real run (CPU rows only, so it works with and without a GPU), as CSV on stdout.
expect_status(0 --impl cpu,cpu-mt --sizes 1000,2^12 --types int32 --samples 2 --mode cold --format csv)
string(REGEX MATCHALL "\n[^\n]*,ok" ok_rows "${last_stdout}")
list(LENGTH ok_rows count)
if(NOT count EQUAL 4)
  message(FATAL_ERROR "want 4 rows checked ok in the CSV, got ${count}:\n${last_stdout}")
endif()

# The normal and spread families, plain and exact sums (the CPU rows: cured::cpu's serial sum,
# within its error bound, and its exact sum, bit for bit), with the data family in the CSV.
expect_status(0 --impl cpu --sizes 1000,2^12 --types float,double --ops sum,exact_sum --data spread --samples 2
              --mode cold --format csv)
string(REGEX MATCHALL "\n[^\n]*,spread,[^\n]*,ok" ok_rows "${last_stdout}")
list(LENGTH ok_rows count)
if(NOT count EQUAL 8)
  message(FATAL_ERROR "want 8 spread rows checked ok in the CSV, got ${count}:\n${last_stdout}")
endif()
expect_status(0 --impl cpu,cpu-mt --sizes 3000 --types double --ops all --data normal --samples 2 --mode cold
              --format csv)
string(REGEX MATCHALL "\n[^\n]*,normal,[^\n]*,ok" ok_rows "${last_stdout}")
list(LENGTH ok_rows count)
if(NOT count EQUAL 3)  # cpu sum, cpu exact_sum, cpu-mt sum
  message(FATAL_ERROR "want 3 normal rows checked ok in the CSV, got ${count}:\n${last_stdout}")
endif()
