# Installs cured and builds a consumer against it; or builds the consumer with cured added as a
# subdirectory. CPU-only: configure, install, build, and run the consumer, which reduces only
# where a CUDA device exists. MODE c installs the project's own build (BUILD_DIR, where
# libcured_c is built already) and builds a C program against the C interface twice: through
# pkg-config (PKG_CONFIG; without it that half is skipped, and says so) and through
# find_package(cured COMPONENTS c) with cured::cured_c.
#
#   cmake -DMODE=find_package|add_subdirectory|c -DSOURCE_DIR=<cured source> -DWORK_DIR=<scratch>
#         [-DGENERATOR=<generator>] [-DCXX_COMPILER=...] [-DCUDA_COMPILER=...]
#         [-DCUDA_HOST_COMPILER=...] [-DCUDA_ARCHITECTURES=90,80]
#         [-DBUILD_DIR=<cured build> -DVERSION=<x.y.z> -DC_COMPILER=... -DPKG_CONFIG=pkg-config]
#         -P tests/install/install_test.cmake
#
# WORK_DIR is emptied first and left in place afterwards for inspection.

cmake_minimum_required(VERSION 3.25)

foreach(required MODE SOURCE_DIR WORK_DIR)
  if(NOT ${required})
    message(FATAL_ERROR "install_test.cmake: -D${required}=... is required")
  endif()
endforeach()
if(NOT MODE MATCHES "^(find_package|add_subdirectory|c)$")
  message(FATAL_ERROR "install_test.cmake: MODE is '${MODE}'; want find_package, add_subdirectory or c")
endif()
if(MODE STREQUAL "c" AND (NOT BUILD_DIR OR NOT VERSION))
  message(FATAL_ERROR "install_test.cmake: MODE c needs -DBUILD_DIR=<cured build> and -DVERSION=<x.y.z>")
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
foreach(pair C_COMPILER=CMAKE_C_COMPILER CXX_COMPILER=CMAKE_CXX_COMPILER CUDA_COMPILER=CMAKE_CUDA_COMPILER
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

# Runs a built consumer, found under its build directory, and prints what it said.
function(run_consumer name build_dir)
  file(GLOB_RECURSE exe "${build_dir}/${name}" "${build_dir}/${name}.exe")
  list(FILTER exe EXCLUDE REGEX "/CMakeFiles/")
  if(NOT exe)
    message(FATAL_ERROR "${name} was built but its executable is not in ${build_dir}")
  endif()
  list(GET exe 0 exe)
  step("run ${name}" "${exe}")
  string(STRIP "${step_output}" step_output)
  message(STATUS "${step_output}")
  set(step_output "${step_output}" PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "c")
  set(prefix "${WORK_DIR}/prefix")
  step("install cured's build" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}" --config ${BUILD_TYPE})
  # The C library as C users expect it: the versioned library, its soname link and the
  # development link, the header, pkg-config's file and CMake's targets.
  string(REGEX MATCH "^[0-9]+" major "${VERSION}")
  foreach(file libcured_c.so.${VERSION} libcured_c.so.${major} libcured_c.so cured_c.h cured.pc
          cured-c-targets.cmake)
    file(GLOB_RECURSE found "${prefix}/*/${file}")
    if(NOT found)
      message(FATAL_ERROR "not installed: ${file}")
    endif()
    if(file STREQUAL "libcured_c.so")
      get_filename_component(libdir "${found}" DIRECTORY)
    elseif(file STREQUAL "cured.pc")
      get_filename_component(pcdir "${found}" DIRECTORY)
    endif()
  endforeach()
  foreach(link libcured_c.so libcured_c.so.${major})
    if(NOT IS_SYMLINK "${libdir}/${link}")
      message(FATAL_ERROR "${libdir}/${link} is not a link to the versioned library")
    endif()
  endforeach()
  message(STATUS "installed libcured_c ${VERSION} under ${libdir}")

  set(c_source "${SOURCE_DIR}/tests/install/c_consumer")
  if(PKG_CONFIG)
    set(pkg ${CMAKE_COMMAND} -E env "PKG_CONFIG_PATH=${pcdir}" ${PKG_CONFIG})
    step("pkg-config --modversion cured" ${pkg} --modversion cured)
    string(STRIP "${step_output}" pc_version)
    if(NOT pc_version STREQUAL VERSION)
      message(FATAL_ERROR "pkg-config says cured ${pc_version}, the project is ${VERSION}")
    endif()
    step("pkg-config --cflags --libs cured" ${pkg} --cflags --libs cured)
    string(STRIP "${step_output}" flags)
    message(STATUS "pkg-config --cflags --libs cured: ${flags}")
    separate_arguments(flags UNIX_COMMAND "${flags}")
    if(NOT C_COMPILER)
      set(C_COMPILER cc)
    endif()
    file(MAKE_DIRECTORY "${WORK_DIR}/pkg-config")
    step("compile with pkg-config" ${C_COMPILER} -std=c11 -Wall -Werror "${c_source}/main.c" ${flags}
         "-Wl,-rpath,${libdir}" -o "${WORK_DIR}/pkg-config/c_consumer")
    run_consumer(c_consumer "${WORK_DIR}/pkg-config")
    if(NOT step_output MATCHES "libcured_c ${VERSION},")
      message(FATAL_ERROR "the pkg-config consumer loaded another libcured_c than ${VERSION}")
    endif()
  else()
    message(STATUS "pkg-config not found: the pkg-config consumer is skipped")
  endif()

  step("configure C consumer (find_package)" ${CMAKE_COMMAND} -S "${c_source}" -B "${WORK_DIR}/c_consumer"
       ${common} "-DCMAKE_PREFIX_PATH=${prefix}" "-DCURED_EXPECTED_PREFIX=${prefix}"
       -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  string(REGEX MATCH "cured [0-9.]+: [^\n]*" found_line "${step_output}")
  message(STATUS "${found_line}")
  step("build C consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/c_consumer" --config ${BUILD_TYPE})
  run_consumer(c_consumer "${WORK_DIR}/c_consumer")
  return()
endif()

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
run_consumer(consumer "${consumer_build}")
