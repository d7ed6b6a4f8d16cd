# Installs cured and builds a consumer against it; or builds the consumer with cured added as a
# subdirectory. CPU-only: configure, install, build, and run the consumer, which reduces only
# where a CUDA device exists.
#
#   cmake -DMODE=find_package|add_subdirectory -DSOURCE_DIR=<cured source> -DWORK_DIR=<scratch>
#         [-DGENERATOR=<generator>] [-DCXX_COMPILER=...] [-DCUDA_COMPILER=...]
#         [-DCUDA_HOST_COMPILER=...] [-DCUDA_ARCHITECTURES=90,80]
#         -P tests/install/install_test.cmake
#
# WORK_DIR is emptied first and left in place afterwards for inspection.

cmake_minimum_required(VERSION 3.25)

foreach(required MODE SOURCE_DIR WORK_DIR)
  if(NOT ${required})
    message(FATAL_ERROR "install_test.cmake: -D${required}=... is required")
  endif()
endforeach()
if(NOT MODE STREQUAL "find_package" AND NOT MODE STREQUAL "add_subdirectory")
  message(FATAL_ERROR "install_test.cmake: MODE is '${MODE}'; want find_package or add_subdirectory")
endif()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()

# The settings every configure here shares, the caller's compilers and architectures, go
# through an initial-cache file (-C), which keeps lists such as "90;80" whole.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(settings "${WORK_DIR}/settings.cmake")
file(WRITE "${settings}" "set(CMAKE_BUILD_TYPE \"${BUILD_TYPE}\" CACHE STRING \"\")\n")
foreach(pair CXX_COMPILER=CMAKE_CXX_COMPILER CUDA_COMPILER=CMAKE_CUDA_COMPILER
             CUDA_HOST_COMPILER=CMAKE_CUDA_HOST_COMPILER CUDA_ARCHITECTURES=CMAKE_CUDA_ARCHITECTURES)
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 from)
  list(GET pair 1 to)
  if(${from})
    string(REPLACE "," ";" value "${${from}}")
    file(APPEND "${settings}" "set(${to} \"${value}\" CACHE STRING \"\")\n")
  endif()
endforeach()
set(common -C "${settings}")
if(GENERATOR)
  list(APPEND common -G "${GENERATOR}")
endif()

# Runs one step; on failure prints its output and stops the test.
function(step name)
  string(TIMESTAMP start "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 240)
  string(TIMESTAMP stop "%s")
  math(EXPR seconds "${stop} - ${start}")
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " shown "${ARGN}")
    message(FATAL_ERROR "step '${name}' failed (${rc}):\n  ${shown}\n${out}")
  endif()
  message(STATUS "${name}: ok (${seconds} s)")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(consumer_source "${SOURCE_DIR}/tests/install/consumer")
set(consumer_build "${WORK_DIR}/consumer")

if(MODE STREQUAL "find_package")
  set(cured_build "${WORK_DIR}/cured-build")
  set(prefix "${WORK_DIR}/prefix")
  step("configure cured" ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${cured_build}" ${common}
       -DCURED_BUILD_TESTS=OFF -DCURED_BUILD_BENCH=OFF -DCURED_BUILD_EXAMPLES=OFF
       "-DCMAKE_INSTALL_PREFIX=${prefix}")
  # Header-only: installing needs no build.
  step("install cured" ${CMAKE_COMMAND} --install "${cured_build}" --config ${BUILD_TYPE})

  # What a user's find_package needs: the headers, the config, its version and the targets.
  file(GLOB_RECURSE headers RELATIVE "${SOURCE_DIR}/include" "${SOURCE_DIR}/include/*.cuh")
  foreach(header IN LISTS headers)
    if(NOT EXISTS "${prefix}/include/${header}")
      message(FATAL_ERROR "not installed: include/${header}")
    endif()
  endforeach()
  foreach(file cured-config.cmake cured-config-version.cmake cured-targets.cmake)
    file(GLOB_RECURSE found "${prefix}/*/${file}")
    if(NOT found)
      message(FATAL_ERROR "not installed: ${file}")
    endif()
  endforeach()
  list(LENGTH headers header_count)
  message(STATUS "installed ${header_count} headers and the package files under ${prefix}")

  step("configure consumer (find_package)" ${CMAKE_COMMAND} -S "${consumer_source}" -B "${consumer_build}"
       ${common} -DCURED_CONSUMER_MODE=find_package "-DCMAKE_PREFIX_PATH=${prefix}"
       "-DCURED_EXPECTED_PREFIX=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  string(REGEX MATCH "cured [0-9.]+: [^\n]*" found_line "${step_output}")
  message(STATUS "${found_line}")
else()
  step("configure consumer (add_subdirectory)" ${CMAKE_COMMAND} -S "${consumer_source}" -B "${consumer_build}"
       ${common} -DCURED_CONSUMER_MODE=add_subdirectory "-DCURED_CONSUMER_SOURCE=${SOURCE_DIR}")
endif()

step("build consumer" ${CMAKE_COMMAND} --build "${consumer_build}" --config ${BUILD_TYPE})

file(GLOB_RECURSE consumer_exe "${consumer_build}/consumer" "${consumer_build}/consumer.exe")
list(FILTER consumer_exe EXCLUDE REGEX "/CMakeFiles/")
if(NOT consumer_exe)
  message(FATAL_ERROR "the consumer was built but its executable is not in ${consumer_build}")
endif()
list(GET consumer_exe 0 consumer_exe)
step("run consumer" "${consumer_exe}")
string(STRIP "${step_output}" step_output)
message(STATUS "${step_output}")
