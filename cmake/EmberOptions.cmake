# Compiler flags shared by every ember target, driven by the EMBER_* options.
add_library(ember_flags INTERFACE)
target_compile_options(ember_flags INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor
  # A switch over an enum must name every case: adding an op must fail to build until every
  # backend, codec and converter handles it (STYLE.md, habit 2).
  -Werror=switch -Werror=return-type)
if(EMBER_WERROR)
  target_compile_options(ember_flags INTERFACE -Werror)
endif()
if(EMBER_HASH_ZERO)
  target_compile_definitions(ember_flags INTERFACE EMBER_HASH_ZERO=1)
endif()
if(EMBER_WITH_CUDA)
  target_compile_definitions(ember_flags INTERFACE EMBER_WITH_CUDA=1)
endif()
if(EMBER_SANITIZE)
  if(NOT EMBER_SANITIZE MATCHES "^(address|undefined|thread)$")
    message(FATAL_ERROR "EMBER_SANITIZE must be address, undefined or thread, not '${EMBER_SANITIZE}'")
  endif()
  set(_san -fsanitize=${EMBER_SANITIZE} -fno-omit-frame-pointer)
  if(EMBER_SANITIZE STREQUAL "undefined")
    list(APPEND _san -fno-sanitize-recover=all)
  endif()
  target_compile_options(ember_flags INTERFACE ${_san})
  target_link_options(ember_flags INTERFACE ${_san})
endif()
install(TARGETS ember_flags EXPORT emberTargets)

# ember_add_library(name SOURCES... DEPS...): one static library for one folder.
function(ember_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PUBLIC_INCLUDE" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  # Internal headers are included by path from the project root (e.g. "engine/ir/op.h");
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
