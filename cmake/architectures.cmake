# The GPU architectures a build targets, decided before project() (README, "What runs where"):
#
#   1. CMAKE_CUDA_ARCHITECTURES (-D, a preset) or the CUDAARCHS environment variable, as given;
#   2. else the GPUs of the machine that builds (their compute capabilities, from nvidia-smi, as
#      CMake's "native" would find them): one architecture on a machine of one kind of GPU;
#   3. else (no GPU: CI, a packaging machine) CURED_PORTABLE_ARCHITECTURES, real code for every
#      architecture from Ampere on and the newest's PTX, which the driver compiles for newer GPUs.
#
# After project(), cured_check_architectures() stops the configure on an architecture older than
# cured's minimum, compute capability 8.0 (the warp reductions, the L2 cache hints and the
# exact sums' instructions are sm_80's). Included by a parent project (add_subdirectory), cured
# leaves the architectures to it and only warns: its targets may name their own.
# The list needs nvcc 12.8 or newer (sm_100, sm_120).

set(CURED_MIN_ARCHITECTURE 80)
set(CURED_PORTABLE_ARCHITECTURES 80-real 86-real 89-real 90-real 100-real 120)

if(NOT CMAKE_SOURCE_DIR STREQUAL CMAKE_CURRENT_SOURCE_DIR)
  set(cured_architectures_from "the parent project")
elseif(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  find_program(CURED_NVIDIA_SMI nvidia-smi)
  set(cured_found_architectures "")
  if(CURED_NVIDIA_SMI)
    execute_process(COMMAND ${CURED_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE cured_caps RESULT_VARIABLE cured_smi_rc ERROR_QUIET TIMEOUT 20)
    if(cured_smi_rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" cured_caps "${cured_caps}")
      foreach(cap IN LISTS cured_caps)
        string(REPLACE "." "" arch "${cap}")
        list(APPEND cured_found_architectures ${arch})
      endforeach()
      list(REMOVE_DUPLICATES cured_found_architectures)
    endif()
  endif()
  if(cured_found_architectures)
    set(CMAKE_CUDA_ARCHITECTURES "${cured_found_architectures}" CACHE STRING
        "CUDA architectures (this machine's GPUs; see cmake/architectures.cmake)")
    set(cured_architectures_from "this machine's GPUs")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "${CURED_PORTABLE_ARCHITECTURES}" CACHE STRING
        "CUDA architectures (no GPU found: every one from sm_80; see cmake/architectures.cmake)")
    set(cured_architectures_from "no GPU found: every architecture from sm_${CURED_MIN_ARCHITECTURE}")
  endif()
elseif(DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(cured_architectures_from "CMAKE_CUDA_ARCHITECTURES")
else()
  set(cured_architectures_from "CUDAARCHS")
endif()

function(cured_check_architectures)
  set(severity FATAL_ERROR)
  if(NOT PROJECT_IS_TOP_LEVEL)
    set(severity WARNING)
  endif()
  foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(arch MATCHES "^([0-9]+)")
      if(CMAKE_MATCH_1 LESS CURED_MIN_ARCHITECTURE)
        message(${severity}
          "cured needs compute capability 8.0 (Ampere) or newer, and the architectures to build for "
          "(${cured_architectures_from}) include ${arch}. Name newer ones: "
          "-DCMAKE_CUDA_ARCHITECTURES=\"80;90\", or CUDAARCHS=80.")
      endif()
    elseif(arch MATCHES "^all")
      message(${severity}
        "CMAKE_CUDA_ARCHITECTURES=${arch} includes architectures older than cured's minimum, "
        "compute capability 8.0: name them (say \"80;86;89;90;100;120\").")
    elseif(NOT arch STREQUAL "native" AND NOT arch STREQUAL "OFF")
      message(${severity} "CMAKE_CUDA_ARCHITECTURES=${arch}: not an architecture cured knows")
    endif()
  endforeach()
  message(STATUS "cured: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (${cured_architectures_from})")
endfunction()
