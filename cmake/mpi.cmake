# MPI parts (issue 22, docs/mpi.md): libkcube-mpi from src/mpi/*.c (public
# headers include/kcube/mpi*.h) and the kcube-mpi binary from src/mpicli/*.c
# plus the command-line layer. Built only when an MPI C compiler wrapper is
# found (Debian: libopenmpi-dev); libkcube and the kcube binary never need MPI.
# -DKC_WITH_MPI=OFF leaves them out even when MPI is installed.
option(KC_WITH_MPI "Build libkcube-mpi and kcube-mpi when MPI is installed" ON)
set(KC_HAVE_MPI OFF)
if(KC_WITH_MPI AND NOT KC_FUZZ)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    set(KC_HAVE_MPI ON)
    message(STATUS "MPI: ${MPI_C_LIBRARIES} (libkcube-mpi and kcube-mpi are built)")
  else()
    message(STATUS "MPI: not found (libkcube-mpi and kcube-mpi are not built)")
  endif()
endif()
if(NOT KC_HAVE_MPI)
  return()
endif()

file(GLOB KC_MPI_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/mpi/*.c)
if(KC_MPI_SOURCES)
  add_library(kcube_mpi STATIC ${KC_MPI_SOURCES})
  set_target_properties(kcube_mpi PROPERTIES OUTPUT_NAME kcube-mpi)
  target_include_directories(kcube_mpi PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                             PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(kcube_mpi PUBLIC kcube_lib MPI::MPI_C)
endif()

file(GLOB KC_MPICLI_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/mpicli/*.c)
if(KC_MPICLI_SOURCES)
  add_executable(kcube-mpi ${KC_MPICLI_SOURCES})
  target_include_directories(kcube-mpi PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_BINARY_DIR}/generated)
  target_link_libraries(kcube-mpi PRIVATE kcube_cli MPI::MPI_C)
  if(TARGET kcube_mpi)
    target_link_libraries(kcube-mpi PRIVATE kcube_mpi)
  endif()
  # Installed beside kcube, with its own man page (printed by the binary
  # without starting MPI: `kcube-mpi help --man`).
  if(NOT KC_FUZZ)
    install(TARGETS kcube-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/kcube-mpi.1
                       COMMAND kcube-mpi help --man > ${PROJECT_BINARY_DIR}/kcube-mpi.1
                       DEPENDS kcube-mpi COMMENT "Generating the kcube-mpi man page")
    add_custom_target(kcube_mpi_man ALL DEPENDS ${PROJECT_BINARY_DIR}/kcube-mpi.1)
    install(FILES ${PROJECT_BINARY_DIR}/kcube-mpi.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endif()
endif()
