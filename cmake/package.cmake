# Packages of what cmake/install.cmake installs, made by CPack in the build
# directory:
#   cpack -G DEB   collcheck_<version>_amd64.deb, for Debian and Ubuntu; its
#                  Depends come from dpkg-shlibdeps (package dpkg-dev)
#   cpack -G TGZ   collcheck-<version>-Linux-<arch>.tar.gz, a tree to unpack
#                  anywhere (meant for a COLLCHECK_STATIC build: bin/, the
#                  shared libraries it still needs in lib/collcheck/, share/)
# `cpack` alone makes the DEB, or the TGZ in a COLLCHECK_STATIC build.
set(CPACK_PACKAGE_NAME collcheck)
set(CPACK_PACKAGE_VENDOR "collcheck")
set(CPACK_PACKAGE_CONTACT "collcheck developers <dev@collcheck>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "static verifier for HCCL collective-communication operators")
set(CPACK_PACKAGE_DESCRIPTION
  "collcheck reads the record an operator left (its parameters and every rank's streams of copies, reductions and RECORD/WAIT synchronisation), rebuilds the task graph and proves the operator correct: valid slices, no deadlock, no unordered conflicting accesses, and every rank's output holding the data the collective requires.")
set(CPACK_PACKAGE_FILE_NAME "collcheck-${PROJECT_VERSION}-Linux-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_STRIP_FILES ON)
if(COLLCHECK_STATIC)
  set(CPACK_GENERATOR TGZ)
else()
  set(CPACK_GENERATOR DEB)
endif()

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)

include(CPack)
