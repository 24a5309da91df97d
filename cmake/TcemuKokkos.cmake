# Finds Kokkos and guarantees an imported target Kokkos::kokkos (docs/kokkos.md).
#
# Two kinds of Kokkos are supported; tcemu's code uses only the API both share:
#  1. A Kokkos 4.x install, found with find_package(Kokkos 4 CONFIG) through Kokkos_ROOT (or
#     CMAKE_PREFIX_PATH): the GPU builds use a CUDA-enabled one (CUDA + Serial backends, made by
#     scripts/build_kokkos.sh). Used untouched. When it compiles as the CMake CUDA language
#     (Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE), every C++ source of a target that links Kokkos is
#     compiled as CUDA (tcemu_kokkos_compile_as_cuda below, run at the end of the configure step).
#  2. Debian's Trilinos build of Kokkos (libtrilinos-kokkos-dev 13.2 / Kokkos 3.4, Serial only), the
#     default for CPU builds and CI. It ships a broken CMake package: its targets point at
#     /usr/lib/include and list -DKOKKOS_DEPENDENCE as a library. For that case only we build the target
#     ourselves from the headers in /usr/include/trilinos and the three trilinos_kokkos* libraries.
#
# The installed package (tcemuConfig.cmake) includes this file too, after setting
# TCEMU_KOKKOS_PACKAGE ("kokkos4" or "debian": the kind tcemu was built with), TCEMU_KOKKOS_PACKAGE_DIR,
# TCEMU_KOKKOS_PACKAGE_VERSION and TCEMU_KOKKOS_PACKAGE_CUDA, so that users get the same Kokkos.
#
# Sets TCEMU_KOKKOS_KIND ("kokkos4" or "debian"), TCEMU_KOKKOS_CUDA (ON when Kokkos has CUDA) and, in
# CMake-language mode, the global property TCEMU_KOKKOS_COMPILE_AS_CUDA.

# ---- tcemu_kokkos_compile_as_cuda([DIRECTORY dir]): in Kokkos' CMake-language mode, marks the C++
# sources (.cpp, .cc, .cxx) of every target under `dir` (default: the top-level source directory) that
# links Kokkos::kokkos, directly or through other targets (tcemu::core), as LANGUAGE CUDA: Kokkos'
# headers compiled with a CUDA backend need the CUDA compiler. No-op with any other Kokkos.
function(_tcemu_kokkos_links result target)
  get_property(known GLOBAL PROPERTY "_tcemu_kokkos_links_${target}" SET)
  if(known)
    get_property(v GLOBAL PROPERTY "_tcemu_kokkos_links_${target}")
    set(${result} ${v} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY "_tcemu_kokkos_links_${target}" FALSE)  # guards against cycles
  set(uses FALSE)
  if(target MATCHES "^Kokkos::")
    set(uses TRUE)
  else()
    get_target_property(aliased ${target} ALIASED_TARGET)
    if(aliased)
      _tcemu_kokkos_links(uses ${aliased})
    else()
      get_target_property(type ${target} TYPE)
      set(items)
      if(NOT type STREQUAL "INTERFACE_LIBRARY")
        get_target_property(direct ${target} LINK_LIBRARIES)
        if(direct)
          list(APPEND items ${direct})
        endif()
      endif()
      get_target_property(iface ${target} INTERFACE_LINK_LIBRARIES)
      if(iface)
        list(APPEND items ${iface})
      endif()
      foreach(item IN LISTS items)
        # $<BUILD_INTERFACE:x>, $<LINK_ONLY:x>, ... -> x; ::@(directory) markers are skipped.
        string(REGEX REPLACE "^\\$<[A-Z_]+:(.*)>$" "\\1" item "${item}")
        if(item MATCHES "^::@" OR NOT TARGET "${item}")
          continue()
        endif()
        _tcemu_kokkos_links(sub "${item}")
        if(sub)
          set(uses TRUE)
          break()
        endif()
      endforeach()
    endif()
  endif()
  set_property(GLOBAL PROPERTY "_tcemu_kokkos_links_${target}" ${uses})
  set(${result} ${uses} PARENT_SCOPE)
endfunction()

function(_tcemu_kokkos_targets_in result dir)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _tcemu_kokkos_targets_in(more "${sub}")
    list(APPEND targets ${more})
  endforeach()
  set(${result} ${targets} PARENT_SCOPE)
endfunction()

function(tcemu_kokkos_compile_as_cuda)
  cmake_parse_arguments(ARG "" "DIRECTORY" "" ${ARGN})
  get_property(as_cuda GLOBAL PROPERTY TCEMU_KOKKOS_COMPILE_AS_CUDA)
  if(NOT as_cuda)
    return()
  endif()
  if(NOT ARG_DIRECTORY)
    set(ARG_DIRECTORY "${CMAKE_SOURCE_DIR}")
  endif()
  _tcemu_kokkos_targets_in(targets "${ARG_DIRECTORY}")
  set(count 0)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
      continue()
    endif()
    _tcemu_kokkos_links(uses ${t})
    if(NOT uses)
      continue()
    endif()
    get_target_property(srcs ${t} SOURCES)
    get_target_property(src_dir ${t} SOURCE_DIR)
    set(cxx_srcs)
    foreach(s IN LISTS srcs)
      if(s MATCHES "\\$<" OR NOT s MATCHES "\\.(cpp|cc|cxx)$")
        continue()
      endif()
      if(NOT IS_ABSOLUTE "${s}")
        set(s "${src_dir}/${s}")
      endif()
      list(APPEND cxx_srcs "${s}")
    endforeach()
    if(cxx_srcs)
      set_source_files_properties(${cxx_srcs} TARGET_DIRECTORY ${t} PROPERTIES LANGUAGE CUDA)
      list(LENGTH cxx_srcs n)
      math(EXPR count "${count} + ${n}")
    endif()
  endforeach()
  message(STATUS "tcemu: ${count} C++ sources that include Kokkos compile as CUDA (Kokkos' CMake-language mode)")
endfunction()

# ---- 1. Kokkos 4 (Kokkos_ROOT, CMAKE_PREFIX_PATH; for the installed package: where tcemu found it)
set(TCEMU_KOKKOS_CUDA OFF)
if(NOT TCEMU_KOKKOS_PACKAGE STREQUAL "debian")
  set(_tcemu_kokkos_version 4)
  if(TCEMU_KOKKOS_PACKAGE_VERSION)
    set(_tcemu_kokkos_version ${TCEMU_KOKKOS_PACKAGE_VERSION})
  endif()
  find_package(Kokkos ${_tcemu_kokkos_version} CONFIG QUIET HINTS ${TCEMU_KOKKOS_PACKAGE_DIR})
  if(Kokkos_FOUND AND TARGET Kokkos::kokkos)
    set(TCEMU_KOKKOS_KIND kokkos4)
    if(Kokkos_ENABLE_CUDA)
      set(TCEMU_KOKKOS_CUDA ON)
    endif()
    if(DEFINED TCEMU_KOKKOS_PACKAGE_CUDA AND NOT TCEMU_KOKKOS_PACKAGE_CUDA STREQUAL TCEMU_KOKKOS_CUDA)
      message(FATAL_ERROR "tcemu: tcemu was built with a Kokkos whose CUDA backend is ${TCEMU_KOKKOS_PACKAGE_CUDA}, "
                          "but the Kokkos found (${Kokkos_DIR}) has it ${TCEMU_KOKKOS_CUDA}")
    endif()
    message(STATUS "tcemu: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR} (backends: ${Kokkos_DEVICES})")
    if(TCEMU_KOKKOS_CUDA AND Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
      # Every source that includes Kokkos' headers compiles as CUDA: the CUDA language must be on.
      if(NOT CMAKE_CUDA_COMPILER_LOADED)
        if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND Kokkos_CUDA_ARCHITECTURES)
          set(CMAKE_CUDA_ARCHITECTURES ${Kokkos_CUDA_ARCHITECTURES})
        endif()
        if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND TCEMU_CUDA_COMPILER AND EXISTS "${TCEMU_CUDA_COMPILER}")
          set(CMAKE_CUDA_COMPILER "${TCEMU_CUDA_COMPILER}")
        endif()
        message(STATUS "tcemu: Kokkos compiles as CUDA: enabling the CUDA language")
        enable_language(CUDA)
      endif()
      if(NOT DEFINED CMAKE_CUDA_STANDARD)
        set(CMAKE_CUDA_STANDARD 17)
        set(CMAKE_CUDA_STANDARD_REQUIRED ON)
      endif()
      # Programs linked with a CUDA Kokkos need libcuda.so.1 to load and a GPU for Kokkos::initialize
      # (it aborts without one): GoogleTest discovery runs at test time, not after the build, so that
      # the build itself succeeds on machines without a GPU.
      set(CMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE PRE_TEST)
      get_property(_tcemu_deferred GLOBAL PROPERTY TCEMU_KOKKOS_COMPILE_AS_CUDA)
      if(NOT _tcemu_deferred)
        set_property(GLOBAL PROPERTY TCEMU_KOKKOS_COMPILE_AS_CUDA ON)
        # After the whole project is configured (every target and test known): no CMakeLists.txt of
        # the project has to list its Kokkos sources.
        cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL tcemu_kokkos_compile_as_cuda)
      endif()
    endif()
    return()
  endif()
  if(TCEMU_KOKKOS_PACKAGE STREQUAL "kokkos4")
    message(FATAL_ERROR "tcemu: tcemu was built with Kokkos ${TCEMU_KOKKOS_PACKAGE_VERSION} from "
                        "${TCEMU_KOKKOS_PACKAGE_DIR}; no such Kokkos found: point Kokkos_ROOT at it")
  endif()
  if(Kokkos_ROOT OR (DEFINED ENV{Kokkos_ROOT} AND NOT "$ENV{Kokkos_ROOT}" STREQUAL ""))
    message(FATAL_ERROR "tcemu: Kokkos_ROOT (${Kokkos_ROOT}$ENV{Kokkos_ROOT}) holds no Kokkos 4 package "
                        "(lib/cmake/Kokkos/KokkosConfig.cmake). Build one with scripts/build_kokkos.sh "
                        "(docs/kokkos.md), or leave Kokkos_ROOT unset for Debian's Kokkos.")
  endif()
endif()

# ---- 2. Debian's Trilinos Kokkos 3.4 (or another host-only Kokkos install found without a version;
# TCEMU_KOKKOS_KIND "debian" stands for this whole path)
set(TCEMU_KOKKOS_KIND debian)
find_package(Kokkos CONFIG QUIET)
if(TARGET Kokkos::kokkos AND NOT Kokkos_INCLUDE_DIRS MATCHES "trilinos")
  if(Kokkos_ENABLE_CUDA)
    message(FATAL_ERROR "tcemu: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR} has CUDA: tcemu needs Kokkos 4 for that")
  endif()
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
                      "(scripts/setup.sh does) or point Kokkos_ROOT at a Kokkos 4 install.")
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
