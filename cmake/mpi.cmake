# MPI parts (docs/mpi.md): libkcube-mpi from src/mpi/*.c (public
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
  # As libkcube (CMakeLists.txt): one position-independent compilation for
  # the archive (tests, kcube-mpi) and the shared library (installed; exports
  # kc_mpi_* only, src/mpi/kcube-mpi.map, and links libkcube.so).
  add_library(kcube_mpi_obj OBJECT ${KC_MPI_SOURCES})
  set_target_properties(kcube_mpi_obj PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(kcube_mpi_obj PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(kcube_mpi_obj PRIVATE MPI::MPI_C)
  add_library(kcube_mpi STATIC $<TARGET_OBJECTS:kcube_mpi_obj>)
  set_target_properties(kcube_mpi PROPERTIES OUTPUT_NAME kcube-mpi EXPORT_NAME kcube_mpi_static)
  target_include_directories(kcube_mpi PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(kcube_mpi PUBLIC kcube_lib MPI::MPI_C)
  if(KC_SHARED)
    add_library(kcube_mpi_shared SHARED $<TARGET_OBJECTS:kcube_mpi_obj>)
    set_target_properties(kcube_mpi_shared PROPERTIES OUTPUT_NAME kcube-mpi EXPORT_NAME kcube_mpi
                          VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                          LINK_DEPENDS ${PROJECT_SOURCE_DIR}/src/mpi/kcube-mpi.map)
    target_link_options(kcube_mpi_shared PRIVATE -Wl,--version-script=${PROJECT_SOURCE_DIR}/src/mpi/kcube-mpi.map
                        -Wl,--no-undefined)
    target_include_directories(kcube_mpi_shared PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                                       $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_link_libraries(kcube_mpi_shared PUBLIC kcube_shared MPI::MPI_C PRIVATE m)
  endif()

  # Installed beside libkcube (cmake/install.cmake): both libraries, the
  # header, kcube-mpi.pc (Requires: kcube and Open MPI's ompi-c, or MPI
  # found otherwise: its flags written out), and the CMake component
  # kcube_mpi: find_package(kcube COMPONENTS kcube_mpi) gives
  # kcube::kcube_mpi (shared) and kcube::kcube_mpi_static.
  set(KC_MPI_INSTALL_TARGETS kcube_mpi)
  if(KC_SHARED)
    list(APPEND KC_MPI_INSTALL_TARGETS kcube_mpi_shared)
  endif()
  install(TARGETS ${KC_MPI_INSTALL_TARGETS} EXPORT kcube_mpiTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT dev)
  install(FILES ${PROJECT_SOURCE_DIR}/include/kcube/mpi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kcube)
  install(EXPORT kcube_mpiTargets NAMESPACE kcube:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kcube)
  pkg_check_modules(KC_OMPI_C QUIET ompi-c)
  if(KC_OMPI_C_FOUND)
    set(KC_MPI_PC_REQUIRES "kcube ompi-c")
    set(KC_MPI_PC_LIBS "")
    set(KC_MPI_PC_CFLAGS "")
  else()
    set(KC_MPI_PC_REQUIRES "kcube")
    string(REPLACE ";" " " KC_MPI_PC_LIBS "${MPI_C_LIBRARIES}")
    set(KC_MPI_PC_CFLAGS "")
    foreach(dir ${MPI_C_INCLUDE_DIRS})
      string(APPEND KC_MPI_PC_CFLAGS " -I${dir}")
    endforeach()
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/kcube-mpi.pc.in ${PROJECT_BINARY_DIR}/kcube-mpi.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/kcube-mpi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

file(GLOB KC_MPITRACE_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/mpitrace/*.c)
if(KC_MPITRACE_SOURCES)
  # libkcube-trace.so, the PMPI tracer (docs/traces.md): preloaded into an
  # unchanged MPI program (`mpirun -x LD_PRELOAD=libkcube-trace.so ./app`) or
  # linked before the MPI library, it writes the run as an OTF2 archive. It
  # uses MPI and the OTF2 writer only, no kcube room, and exports only the
  # MPI_* functions it wraps (src/mpitrace/kcube-trace.map). No soname
  # version: it is loaded by its file name. Installed beside libkcube-mpi.
  add_library(kcube_trace SHARED ${KC_MPITRACE_SOURCES})
  set_target_properties(kcube_trace PROPERTIES OUTPUT_NAME kcube-trace
                        LINK_DEPENDS ${PROJECT_SOURCE_DIR}/src/mpitrace/kcube-trace.map)
  target_link_options(kcube_trace PRIVATE -Wl,--version-script=${PROJECT_SOURCE_DIR}/src/mpitrace/kcube-trace.map
                      -Wl,--no-undefined)
  target_link_libraries(kcube_trace PRIVATE MPI::MPI_C PkgConfig::OTF2 Threads::Threads)
  install(TARGETS kcube_trace LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

file(GLOB KC_MPICLI_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/mpicli/*.c)
if(KC_MPICLI_SOURCES)
  # kcube-mpi reaches the command line through src/cli/cli_host.h alone.
  add_executable(kcube-mpi ${KC_MPICLI_SOURCES})
  target_include_directories(kcube-mpi PRIVATE ${PROJECT_SOURCE_DIR}/src)
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
