# What `cmake --install` and the packages (cmake/package.cmake) put where:
#   bin/collcheck
#   share/man/man1/collcheck.1
#   share/bash-completion/completions/collcheck
#   share/zsh/site-functions/_collcheck (share/zsh/vendor-completions/ for the
#     prefix /usr, where Debian's zsh looks)
#   share/doc/collcheck/README.md, share/doc/collcheck/docs/ (*.md, pictures)
#   lib/collcheck/ the shared libraries a COLLCHECK_STATIC binary still needs
#     (cmake/static.cmake)
# The man page and the completions are written at build time from the
# --help of the binary just built (cmake/cli-docs.sh), so not when
# cross-compiling.
include(GNUInstallDirs)

set(COLLCHECK_CLI_DOCS ${CMAKE_BINARY_DIR}/cli-docs)
if(NOT CMAKE_CROSSCOMPILING)
  add_custom_command(
    OUTPUT ${COLLCHECK_CLI_DOCS}/collcheck.1 ${COLLCHECK_CLI_DOCS}/collcheck.bash ${COLLCHECK_CLI_DOCS}/_collcheck
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cli-docs.sh $<TARGET_FILE:collcheck> ${COLLCHECK_CLI_DOCS} ${PROJECT_VERSION}
    DEPENDS collcheck ${CMAKE_CURRENT_LIST_DIR}/cli-docs.sh
    COMMENT "Writing the man page and shell completions from collcheck --help"
    VERBATIM)
  add_custom_target(collcheck_cli_docs ALL
    DEPENDS ${COLLCHECK_CLI_DOCS}/collcheck.1 ${COLLCHECK_CLI_DOCS}/collcheck.bash ${COLLCHECK_CLI_DOCS}/_collcheck)

  install(FILES ${COLLCHECK_CLI_DOCS}/collcheck.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${COLLCHECK_CLI_DOCS}/collcheck.bash
    DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions RENAME collcheck)
  # zsh has no directory common to every prefix: upstream's is
  # share/zsh/site-functions (in Debian's fpath under /usr/local), Debian's for
  # packages is /usr/share/zsh/vendor-completions. The prefix is known only
  # when installing (cmake --install --prefix, cpack), so the choice is made then.
  install(CODE "
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(_zsh_dir vendor-completions)
    else()
      set(_zsh_dir site-functions)
    endif()
    file(INSTALL \"${COLLCHECK_CLI_DOCS}/_collcheck\"
      DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATAROOTDIR}/zsh/\${_zsh_dir}\")
  ")
endif()

install(TARGETS collcheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The documentation keeps the layout of the source tree, so that the README's
# links (docs/DESIGN.md, docs/html-report.png) hold where it is installed;
# docs/report.schema.json describes the JSON report for tools that read it.
file(GLOB COLLCHECK_DOC_FILES CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/docs/*.md ${CMAKE_SOURCE_DIR}/docs/*.png ${CMAKE_SOURCE_DIR}/docs/*.svg
  ${CMAKE_SOURCE_DIR}/docs/*.jpg ${CMAKE_SOURCE_DIR}/docs/*.json)
file(GLOB COLLCHECK_TOP_DOC_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/ERRORS.md)
install(FILES ${COLLCHECK_TOP_DOC_FILES} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${COLLCHECK_DOC_FILES} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

if(COLLCHECK_STATIC)
  # The binary finds the bundled libraries next to itself, wherever the
  # installed tree is copied.
  set_target_properties(collcheck PROPERTIES INSTALL_RPATH "\$ORIGIN/../lib/collcheck" BUILD_WITH_INSTALL_RPATH ON)
  foreach(lib IN LISTS COLLCHECK_BUNDLED_LIBRARIES)
    get_filename_component(soname "${lib}" NAME)
    get_filename_component(real "${lib}" REALPATH)
    install(FILES "${real}" DESTINATION lib/collcheck RENAME "${soname}")
  endforeach()
endif()

include(${CMAKE_CURRENT_LIST_DIR}/package.cmake)
