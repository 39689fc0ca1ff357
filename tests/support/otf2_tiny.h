/* otf2_tiny.h - a two-rank OTF2 archive for tests (written with the OTF2
 * writer API, no python needed): rank 0 sends KC_TEST_OTF2_BYTES bytes to
 * rank 1 (tag 7, MPI_COMM_WORLD) inside the region "solver", then both
 * take part in an allreduce of 16 bytes; both ranks on the node "host0";
 * times in ns from 100 to 600. */
#ifndef KC_TEST_OTF2_TINY_H
#define KC_TEST_OTF2_TINY_H

#define KC_TEST_OTF2_BYTES 8

/* Write the archive into the directory `dir` (created; its anchor is
 * dir/traces.otf2). 0, or -1 when OTF2 failed. */
int kc_test_otf2_tiny(const char *dir);

#endif
