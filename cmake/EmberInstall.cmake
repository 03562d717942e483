# `cmake --install build --prefix P` installs P/include/ember/*.h (ember.h is the umbrella),
# the static libraries and a CMake package: find_package(ember REQUIRED) + ember::ember.
include(CMakePackageConfigHelpers)
install(TARGETS ember EXPORT emberTargets)
install(EXPORT emberTargets NAMESPACE ember:: DESTINATION lib/cmake/ember)
configure_package_config_file(cmake/emberConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/emberConfig.cmake INSTALL_DESTINATION lib/cmake/ember)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/emberConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/emberConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/emberConfigVersion.cmake
        DESTINATION lib/cmake/ember)
