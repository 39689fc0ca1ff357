# Uninstall (docs/install.md): removes what the last install of one prefix
# wrote, and nothing else. `make install` leaves PREFIX/share/kcube/
# install_manifest.txt (written by cmake/install.cmake's last rule): one
# path a line, relative to the prefix, so a staged (DESTDIR) or moved tree
# is uninstalled where it is now. This script is installed beside it:
#     cmake -P PREFIX/share/kcube/uninstall.cmake        (make uninstall PREFIX=... DESTDIR=...)
# or, from a checkout, cmake -DKC_MANIFEST=PATH -P cmake/uninstall.cmake.
# Only the listed files go, and only directories named kcube, or inside one
# (share/kcube/networks), that the removals leave empty (include/kcube,
# lib/cmake/kcube, share/kcube, ...):
# a shared directory (bin, lib/pkgconfig) stays even when empty. A line that
# is absolute or climbs out with ".." is refused before anything is removed.
if(NOT KC_MANIFEST)
  set(KC_MANIFEST "${CMAKE_CURRENT_LIST_DIR}/install_manifest.txt")
endif()
if(NOT EXISTS "${KC_MANIFEST}")
  message(FATAL_ERROR "no kcube install manifest at ${KC_MANIFEST}: nothing to uninstall")
endif()
file(STRINGS "${KC_MANIFEST}" kc_lines)
# The header line "# root REL": the prefix, relative to the manifest's folder.
set(kc_root "")
set(kc_files "")
foreach(line IN LISTS kc_lines)
  if(line MATCHES "^# root (.*)$")
    get_filename_component(kc_mdir "${KC_MANIFEST}" DIRECTORY)
    get_filename_component(kc_root "${CMAKE_MATCH_1}" ABSOLUTE BASE_DIR "${kc_mdir}")
  elseif(NOT line MATCHES "^#" AND NOT line STREQUAL "")
    if(line MATCHES "^/" OR line MATCHES "(^|/)\\.\\.(/|$)")
      message(FATAL_ERROR "${KC_MANIFEST}: '${line}' is not a path inside the prefix; nothing removed")
    endif()
    list(APPEND kc_files "${line}")
  endif()
endforeach()
if(kc_root STREQUAL "")
  message(FATAL_ERROR "${KC_MANIFEST} has no '# root' line: not a kcube install manifest; nothing removed")
endif()
set(kc_dirs "")
foreach(rel IN LISTS kc_files)
  set(path "${kc_root}/${rel}")
  if(EXISTS "${path}" OR IS_SYMLINK "${path}")
    message(STATUS "Removing: ${path}")
    file(REMOVE "${path}")
  endif()
  get_filename_component(dir "${rel}" DIRECTORY)
  list(APPEND kc_dirs "${dir}")
endforeach()
# Directories named kcube or inside one, deepest first, when they are now empty.
list(REMOVE_DUPLICATES kc_dirs)
list(SORT kc_dirs)
list(REVERSE kc_dirs)
foreach(rel IN LISTS kc_dirs)
  get_filename_component(name "${rel}" NAME)
  file(GLOB left "${kc_root}/${rel}/*" "${kc_root}/${rel}/.*")
  if((name STREQUAL "kcube" OR rel MATCHES "(^|/)kcube/") AND IS_DIRECTORY "${kc_root}/${rel}" AND NOT left)
    message(STATUS "Removing: ${kc_root}/${rel}/")
    file(REMOVE_RECURSE "${kc_root}/${rel}")
  endif()
endforeach()
