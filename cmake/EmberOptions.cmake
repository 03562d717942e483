# Compiler flags shared by every ember target, driven by the EMBER_* options.
#
# ember_flags is exported with the package because a sanitized static library needs the same
# -fsanitize flags where it is linked. Everything else is ember's own business and stays in the
# build tree ($<BUILD_INTERFACE:...>): a program that links ember::ember is not compiled with
# ember's warnings, -Werror or internal definitions.
add_library(ember_flags INTERFACE)
set(_ember_warnings -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor
  # A switch over an enum must name every case: adding an op must fail to build until every
  # backend, codec and converter handles it, so a switch over OpKind has no `default:`.
  -Werror=switch -Werror=return-type
  # Aggregates with default member initializers (ember::Slice{2}, designated initializers)
  # are the intended way to build plain-data IR; GCC 12 warns about the fields left out.
  -Wno-missing-field-initializers)
target_compile_options(ember_flags INTERFACE "$<BUILD_INTERFACE:${_ember_warnings}>")
if(EMBER_WERROR)
  target_compile_options(ember_flags INTERFACE $<BUILD_INTERFACE:-Werror>)
endif()
if(EMBER_HASH_ZERO)
  target_compile_definitions(ember_flags INTERFACE $<BUILD_INTERFACE:EMBER_HASH_ZERO=1>)
endif()
# EMBER_WITH_CUDA builds engine/runtime/cuda (the driver, NVRTC and cuBLASLt are loaded at run
# time, so nothing CUDA is linked) and defines EMBER_WITH_CUDA=1 for the code that uses it.
if(EMBER_WITH_CUDA)
  target_compile_definitions(ember_flags INTERFACE $<BUILD_INTERFACE:EMBER_WITH_CUDA=1>)
endif()
if(EMBER_SANITIZE)
  if(NOT EMBER_SANITIZE MATCHES "^(address|undefined|address,undefined|thread)$")
    message(FATAL_ERROR "EMBER_SANITIZE must be address, undefined, address,undefined or thread, "
                        "not '${EMBER_SANITIZE}'")
  endif()
  set(_san -fsanitize=${EMBER_SANITIZE} -fno-omit-frame-pointer)
  if(EMBER_SANITIZE MATCHES "undefined")
    list(APPEND _san -fno-sanitize-recover=undefined)  # undefined behaviour fails the test
  endif()
  target_compile_options(ember_flags INTERFACE ${_san})
  target_link_options(ember_flags INTERFACE ${_san})
endif()
# EMBER_FUZZ: every target is built for libFuzzer's coverage and with AddressSanitizer and
# UndefinedBehaviorSanitizer (any undefined behaviour aborts); tests/fuzz links the fuzzers.
if(EMBER_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "EMBER_FUZZ needs clang (libFuzzer): configure with "
                        "-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang (tests/fuzz/run-fuzzers.sh does)")
  endif()
  set(_fuzz_san -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_compile_options(ember_flags INTERFACE ${_fuzz_san} -fsanitize=fuzzer-no-link)
  target_link_options(ember_flags INTERFACE ${_fuzz_san})
endif()
install(TARGETS ember_flags EXPORT emberTargets)

message(STATUS "ember: ${CMAKE_BUILD_TYPE} build; CUDA=${EMBER_WITH_CUDA} tests=${EMBER_BUILD_TESTS} "
               "sanitize='${EMBER_SANITIZE}' werror=${EMBER_WERROR} hash_zero=${EMBER_HASH_ZERO}")

# ember_add_library(name SOURCES... DEPS...): one static library for one folder.
function(ember_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PUBLIC_INCLUDE" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  # Internal headers are included by path from the project root (e.g. "engine/ir/operation_ir.h");
  # only the public headers under include/ember/ are installed.
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>)
  foreach(inc IN LISTS ARG_PUBLIC_INCLUDE)
    target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${inc}>)
  endforeach()
  target_include_directories(${name} PUBLIC $<INSTALL_INTERFACE:include>)
  target_link_libraries(${name} PUBLIC ember_flags ${ARG_DEPS})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${name})
  install(TARGETS ${name} EXPORT emberTargets ARCHIVE DESTINATION lib)
endfunction()
