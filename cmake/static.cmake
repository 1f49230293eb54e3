# COLLCHECK_STATIC: a binary to copy to machines that have none of
# collcheck's libraries (the nodes of a cluster). It links statically what
# Debian ships as static libraries: libstdc++ and libgcc (-static-libstdc++
# -static-libgcc), zlib, zstd, SQLite, libxml2 with ICU and liblzma, and jemalloc
# (their .a files in the -dev packages). simdjson and fmt stay shared, Debian ships no .a of either; `cmake
# --install` puts them in lib/collcheck/ next to bin/, where the binary looks
# first (RUNPATH $ORIGIN/../lib/collcheck, cmake/install.cmake). glibc stays
# shared: a static glibc cannot be copied between systems any better.
#
# The option changes how the binary is linked, never how a source file is
# compiled, so turning it on in an existing build directory only relinks.
# Sets COLLCHECK_LINKAGE (printed by --version) and, when on,
# COLLCHECK_BUNDLED_LIBRARIES (the shared libraries to install with it).
option(COLLCHECK_STATIC "Link libstdc++, libgcc, zlib, zstd, SQLite and libxml2 statically; install simdjson and fmt with the binary" OFF)

if(NOT COLLCHECK_STATIC)
  set(_collcheck_jemalloc "")
  if(COLLCHECK_USE_JEMALLOC)
    set(_collcheck_jemalloc "jemalloc, ")
  endif()
  set(COLLCHECK_LINKAGE "shared system libraries (simdjson, fmt, zlib, zstd, SQLite, libxml2, ${_collcheck_jemalloc}libstdc++, glibc)")
  return()
endif()
if(COLLCHECK_SANITIZE OR COLLCHECK_FUZZ)
  message(FATAL_ERROR "COLLCHECK_STATIC cannot be combined with COLLCHECK_SANITIZE or COLLCHECK_FUZZ")
endif()

add_link_options(-static-libstdc++ -static-libgcc)
set(_collcheck_static "libstdc++" "libgcc")
set(_collcheck_shared "")
set(COLLCHECK_BUNDLED_LIBRARIES "")

# The .a beside a shared library path (/x/libz.so or /x/libz.so.1.2.13 ->
# /x/libz.a), or "" when there is none.
function(_collcheck_archive_of path out)
  set(result "")
  if(path MATCHES "^(.*)\\.so(\\.[0-9]+)*$")
    # (CMAKE_MATCH_1 is read only after the match: not in the same if())
    if(EXISTS "${CMAKE_MATCH_1}.a")
      set(result "${CMAKE_MATCH_1}.a")
    endif()
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# The libraries a static ARCHIVE needs in turn (NAMES: pkg-config's
# Libs.private without -l, the archive itself first or not at all), as link
# items: an archive this file made static already, else the .a beside ARCHIVE
# (libxml2.a needs ICU's and liblzma's), else the name. glibc's own libraries
# stay names: a static libm beside a shared libc is not what one wants.
function(_collcheck_private_libs archive names out)
  get_filename_component(dir "${archive}" DIRECTORY)
  get_filename_component(self "${archive}" NAME_WE)
  set(result "")
  foreach(p IN LISTS names)
    if("lib${p}" STREQUAL self)
      continue()
    elseif(p MATCHES "^(m|c|dl|rt|pthread)$")
      list(APPEND result "${p}")
    elseif(DEFINED _collcheck_archive_${p})
      list(APPEND result "${_collcheck_archive_${p}}")
    elseif(EXISTS "${dir}/lib${p}.a")
      list(APPEND result "${dir}/lib${p}.a")
    else()
      list(APPEND result "${p}")
    endif()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# Points the imported target TGT at its static library when there is one
# (LABEL is the name --version prints), else records that it stays shared and
# must be installed with the binary. PRIVATE_LIBS: the libraries the static
# library needs in turn (pkg-config's Libs.private), linked statically when
# this file made them static already, by name otherwise (libm: glibc).
function(_collcheck_link_static tgt label)
  set(private_libs ${ARGN})
  list(POP_FRONT private_libs)  # the library itself
  get_target_property(type ${tgt} TYPE)
  set(archive "")
  if(type STREQUAL "INTERFACE_LIBRARY")
    # pkg_check_modules(... IMPORTED_TARGET): full paths in INTERFACE_LINK_LIBRARIES.
    get_target_property(libs ${tgt} INTERFACE_LINK_LIBRARIES)
    set(new_libs "")
    foreach(lib IN LISTS libs)
      _collcheck_archive_of("${lib}" a)
      if(a)
        set(archive "${a}")
        list(APPEND new_libs "${a}")
      else()
        list(APPEND new_libs "${lib}")
      endif()
    endforeach()
    if(archive)
      _collcheck_private_libs("${archive}" "${private_libs}" libs)
      list(APPEND new_libs ${libs})
      set_property(TARGET ${tgt} PROPERTY INTERFACE_LINK_LIBRARIES "${new_libs}")
    endif()
  else()
    get_target_property(configs ${tgt} IMPORTED_CONFIGURATIONS)
    set(props IMPORTED_LOCATION)
    if(configs)
      foreach(c IN LISTS configs)
        list(APPEND props IMPORTED_LOCATION_${c})
      endforeach()
    endif()
    set(location "")
    foreach(prop IN LISTS props)
      get_target_property(loc ${tgt} ${prop})
      if(loc)
        set(location "${loc}")
        _collcheck_archive_of("${loc}" a)
        if(a)
          set(archive "${a}")
          set_property(TARGET ${tgt} PROPERTY ${prop} "${a}")
        endif()
      endif()
    endforeach()
    if(archive AND private_libs)
      _collcheck_private_libs("${archive}" "${private_libs}" libs)
      set_property(TARGET ${tgt} APPEND PROPERTY INTERFACE_LINK_LIBRARIES ${libs})
    endif()
    if(NOT archive AND type STREQUAL "SHARED_LIBRARY")
      list(GET configs 0 c)
      get_target_property(soname ${tgt} IMPORTED_SONAME_${c})
      get_filename_component(dir "${location}" DIRECTORY)
      set(COLLCHECK_BUNDLED_LIBRARIES ${COLLCHECK_BUNDLED_LIBRARIES} "${dir}/${soname}" PARENT_SCOPE)
    endif()
  endif()
  if(archive)
    get_filename_component(name "${archive}" NAME_WE)
    string(REGEX REPLACE "^lib" "" name "${name}")
    set(_collcheck_archive_${name} "${archive}" PARENT_SCOPE)
    set(_collcheck_static ${_collcheck_static} ${label} PARENT_SCOPE)
  else()
    set(_collcheck_shared ${_collcheck_shared} ${label} PARENT_SCOPE)
  endif()
endfunction()

_collcheck_link_static(ZLIB::ZLIB zlib)
_collcheck_link_static(PkgConfig::ZSTD zstd ${ZSTD_STATIC_LIBRARIES})
_collcheck_link_static(PkgConfig::SQLITE3 SQLite ${SQLITE3_STATIC_LIBRARIES})
_collcheck_link_static(simdjson::simdjson simdjson)
_collcheck_link_static(fmt::fmt fmt)
# (FindLibXml2 ran pkg-config for libxml-2.0 as PC_LIBXML; ICU's data
# library makes the static binary about 30 MB larger, the price of needing
# no libicu on the node.)
_collcheck_link_static(LibXml2::LibXml2 libxml2 ${PC_LIBXML_STATIC_LIBRARIES} dl pthread)
if(COLLCHECK_USE_JEMALLOC)
  _collcheck_link_static(PkgConfig::JEMALLOC jemalloc jemalloc m pthread dl)
endif()

list(JOIN _collcheck_static ", " _s)
list(JOIN _collcheck_shared ", " _d)
if(_d)
  set(_d "${_d} (from lib/collcheck/ when installed), ")
endif()
set(COLLCHECK_LINKAGE "static ${_s}; shared ${_d}glibc")
message(STATUS "COLLCHECK_STATIC: ${COLLCHECK_LINKAGE}")
