# Turns files into a C++ header of string constants: run as
#   cmake -DOUT=header.h -DINPUTS="a.js;b.css" [-DFROM=where/they/are] -P embed_assets.cmake
# Each file becomes `inline constexpr std::string_view kAsset_<name>` (the
# file name with every non-alphanumeric character replaced by '_'), held in
# a raw string literal so the file needs no escaping.
if(NOT DEFINED FROM)
  set(FROM "src/report/html/assets/")
endif()
set(body "// Generated from ${FROM} by cmake/embed_assets.cmake: do not edit.\n#pragma once\n\n#include <string_view>\n\nnamespace cc::assets {\n\n")
foreach(in IN LISTS INPUTS)
  get_filename_component(fname "${in}" NAME)
  string(MAKE_C_IDENTIFIER "${fname}" id)
  file(READ "${in}" text)
  string(FIND "${text}" ")CC_ASSET\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${in} contains the raw-string delimiter )CC_ASSET\"")
  endif()
  string(APPEND body "inline constexpr std::string_view kAsset_${id} = R\"CC_ASSET(${text})CC_ASSET\";\n\n")
endforeach()
string(APPEND body "}  // namespace cc::assets\n")
# Rewrite only on change, so that dependants are not rebuilt for nothing.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL body)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${body}")
