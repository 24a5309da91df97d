# Finds Kokkos and guarantees an imported target Kokkos::kokkos.
#
# A normal Kokkos install (the CUDA build we make for GPUs, pointed to by Kokkos_ROOT) is used untouched.
# Debian's Trilinos build of Kokkos (libtrilinos-kokkos-dev 13.2 / Kokkos 3.4, Serial only) ships a
# broken CMake package: its targets point at /usr/lib/include and list -DKOKKOS_DEPENDENCE as a library.
# For that case only we build the target ourselves from the headers in /usr/include/trilinos and the
# three trilinos_kokkos* libraries.
find_package(Kokkos CONFIG QUIET)
if(TARGET Kokkos::kokkos AND NOT Kokkos_INCLUDE_DIRS MATCHES "trilinos")
  message(STATUS "tcemu: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR} (devices: ${Kokkos_DEVICES})")
  return()
endif()

# TCEMU_KOKKOS_ROOT (cache variable or environment): a copy of that Debian build carried to a machine
# without it (include/trilinos/Kokkos_*.hpp and lib/libtrilinos_kokkos*.so*), as scripts/device does.
set(TCEMU_KOKKOS_ROOT "$ENV{TCEMU_KOKKOS_ROOT}" CACHE PATH "Copy of Debian's Trilinos Kokkos (include/, lib/)")
find_path(TCEMU_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp PATH_SUFFIXES trilinos
          HINTS ${TCEMU_KOKKOS_ROOT}/include PATHS /usr/include)
find_library(TCEMU_KOKKOS_CORE_LIB trilinos_kokkoscore HINTS ${TCEMU_KOKKOS_ROOT}/lib)
find_library(TCEMU_KOKKOS_CONTAINERS_LIB trilinos_kokkoscontainers HINTS ${TCEMU_KOKKOS_ROOT}/lib)
find_library(TCEMU_KOKKOS_ALGORITHMS_LIB trilinos_kokkosalgorithms HINTS ${TCEMU_KOKKOS_ROOT}/lib)
if(NOT TCEMU_KOKKOS_INCLUDE_DIR OR NOT TCEMU_KOKKOS_CORE_LIB)
  message(FATAL_ERROR "tcemu: Kokkos not found. Install Debian's libtrilinos-kokkos-dev "
                      "(scripts/setup.sh does) or point Kokkos_ROOT at a Kokkos install.")
endif()
if(NOT TARGET Kokkos::kokkos)
  add_library(Kokkos::kokkos INTERFACE IMPORTED GLOBAL)
endif()
set_target_properties(Kokkos::kokkos PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${TCEMU_KOKKOS_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "${TCEMU_KOKKOS_ALGORITHMS_LIB};${TCEMU_KOKKOS_CONTAINERS_LIB};${TCEMU_KOKKOS_CORE_LIB};${CMAKE_DL_LIBS}"
  INTERFACE_COMPILE_FEATURES cxx_std_14)
set(Kokkos_FOUND TRUE)
message(STATUS "tcemu: Kokkos (Debian Trilinos build, Serial) from ${TCEMU_KOKKOS_INCLUDE_DIR}")
