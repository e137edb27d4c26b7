# Installation: a relocatable package usable with find_package(gshmem) and find_package(NVSHMEM).
include(CMakePackageConfigHelpers)

install(TARGETS gshmem_host gshmem_device EXPORT gshmemTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(GSHMEM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gshmem)
install(EXPORT gshmemTargets NAMESPACE gshmem:: DESTINATION ${GSHMEM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gshmemConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/gshmemConfig.cmake INSTALL_DESTINATION ${GSHMEM_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/gshmemConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/gshmemConfig.cmake ${PROJECT_BINARY_DIR}/cmake/gshmemConfigVersion.cmake
        DESTINATION ${GSHMEM_CMAKE_DIR})

# find_package(NVSHMEM) for projects written against NVSHMEM's CMake package.
set(NVSHMEM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/nvshmem)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/NVSHMEMConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/NVSHMEMConfig.cmake INSTALL_DESTINATION ${NVSHMEM_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/NVSHMEMConfigVersion.cmake
                                 VERSION ${GSHMEM_NVSHMEM_API_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/NVSHMEMConfig.cmake ${PROJECT_BINARY_DIR}/cmake/NVSHMEMConfigVersion.cmake
        DESTINATION ${NVSHMEM_CMAKE_DIR})

# pkg-config
configure_file(${PROJECT_SOURCE_DIR}/cmake/gshmem.pc.in ${PROJECT_BINARY_DIR}/gshmem.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gshmem.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
