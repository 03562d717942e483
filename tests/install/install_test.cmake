# Run by CTest with `cmake -P` (see CMakeLists.txt). Steps, each failing the test with a message:
#   1. cmake --install EMBER_BUILD_DIR --prefix WORK_DIR/stage
#   2. the prefix holds only the public headers (include/ember/*.h), the static libraries and
#      the package files, and no package file names the source or build tree
#   3. the prefix is moved to WORK_DIR/moved: the package must not care where it lives
#   4. the consumer (examples/consumer) is configured with CMAKE_PREFIX_PATH=WORK_DIR/moved,
#      built, and run in WORK_DIR; it must find ember in the moved prefix and print a line
#      starting with "OK";
#   5. with -DREADME=..., README.md must contain the consumer's main.cpp verbatim.
cmake_minimum_required(VERSION 3.25)
foreach(var EMBER_SOURCE_DIR EMBER_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "install_test.cmake: -D${var}=... is required")
  endif()
endforeach()

set(stage ${WORK_DIR}/stage)
set(moved ${WORK_DIR}/moved)
set(consumer_build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# run(<what> COMMAND...): runs a command, fails the test with its output if it fails.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n  ${ARGN}\n${out}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# 1. Install.
run("cmake --install" ${CMAKE_COMMAND} --install ${EMBER_BUILD_DIR} --prefix ${stage})

# 2. What was installed.
file(GLOB_RECURSE headers RELATIVE ${stage}/include ${stage}/include/*)
if(NOT headers)
  message(FATAL_ERROR "no headers installed under ${stage}/include")
endif()
foreach(h IN LISTS headers)
  if(NOT h MATCHES "^ember/[A-Za-z0-9_]+\\.h$")
    message(FATAL_ERROR "installed ${stage}/include/${h}: only the public headers "
                        "include/ember/*.h may be installed")
  endif()
endforeach()
if(NOT "ember/ember.h" IN_LIST headers)
  message(FATAL_ERROR "the umbrella header include/ember/ember.h was not installed")
endif()
foreach(f lib/cmake/ember/emberConfig.cmake lib/cmake/ember/emberConfigVersion.cmake
          lib/cmake/ember/emberTargets.cmake lib/libember_core.a lib/libember_api.a)
  if(NOT EXISTS ${stage}/${f})
    message(FATAL_ERROR "${f} was not installed")
  endif()
endforeach()
file(GLOB package_files ${stage}/lib/cmake/ember/*.cmake)
foreach(f IN LISTS package_files)
  file(READ ${f} text)
  foreach(dir ${EMBER_SOURCE_DIR} ${EMBER_BUILD_DIR} ${stage})
    string(FIND "${text}" "${dir}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${f} names ${dir}: the package is not relocatable")
    endif()
  endforeach()
endforeach()

# 3. Relocate.
file(RENAME ${stage} ${moved})

# 4. Configure, build and run the consumer.
set(configure ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${moved}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(MAKE_PROGRAM)
  list(APPEND configure -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
if(BUILD_TYPE)
  list(APPEND configure -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
endif()
run("configuring the consumer" ${configure})
string(FIND "${run_output}" "ember_DIR=${moved}/lib/cmake/ember" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the consumer did not find ember in ${moved}:\n${run_output}")
endif()
run("building the consumer" ${CMAKE_COMMAND} --build ${consumer_build})
# Run in WORK_DIR: the consumer's plan database goes to WORK_DIR/.ember/plans.db. The
# shared-memory tier stays off: its segment would outlive the test in /dev/shm.
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=EMBER_PLAN_DB --unset=EMBER_CONFIG
                        EMBER_SHM=off ${consumer_build}/ember_consumer
                WORKING_DIRECTORY ${WORK_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE run_output ERROR_VARIABLE run_output)
if(NOT rc EQUAL 0 OR NOT run_output MATCHES "^OK")
  message(FATAL_ERROR "the consumer failed (${rc}) or did not print OK:\n${run_output}")
endif()
if(NOT EXISTS ${WORK_DIR}/.ember/plans.db)
  message(FATAL_ERROR "the consumer wrote no plan database at ${WORK_DIR}/.ember/plans.db")
endif()
message(STATUS "install test: ${run_output}")

# 5. README.md shows the example exactly as it is built here.
if(DEFINED README)
  file(READ ${CONSUMER_SOURCE_DIR}/main.cpp example)
  file(READ ${README} readme)
  string(FIND "${readme}" "```cpp\n${example}```" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${README} does not show ${CONSUMER_SOURCE_DIR}/main.cpp verbatim "
                        "(in a ```cpp block): copy the file into README.md")
  endif()
endif()
