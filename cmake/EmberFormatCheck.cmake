# The test `format`: every C++ file as .clang-format says, checked with the clang-format that
# .ci/install-deps.sh pins (.ci/check-format). Registered only where that clang-format exists,
# so a build on a machine without it still tests everything else; CI installs it.
find_program(EMBER_CLANG_FORMAT clang-format-14)
if(EMBER_CLANG_FORMAT)
  add_test(NAME format COMMAND ${PROJECT_SOURCE_DIR}/.ci/check-format)
  set_tests_properties(format PROPERTIES ENVIRONMENT "CLANG_FORMAT=${EMBER_CLANG_FORMAT}")
else()
  message(STATUS "ember: clang-format-14 not found; the test 'format' is not registered")
endif()
