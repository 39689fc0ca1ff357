/* kcube/netpreset.h - machine presets: a named network of a real machine
 * (Blue Gene/Q, Titan, Tofu, ...) described in a small text file, read
 * strictly and turned into the kc_topology it describes (docs/networks.md).
 *
 * The file: one keyword per line, then its words (kcube/reader.h's word
 * reader: blanks or commas separate words, '#' starts a comment):
 *     name NAME            required; lower-case letters, digits, '-', at
 *                          most KC_PRESET_NAME_MAX - 1 bytes, a letter first
 *     title TEXT           what listings show (the rest of the line)
 *     axes W0 W1 ..        required, before sides and wrap; one name per
 *                          axis, axis 0 first (letters and digits, at most
 *                          KC_PRESET_AXIS_MAX - 1 bytes, distinct)
 *     sides S0 S1 ..       required; one side per axis, 2..KC_TOPO_MAX_SIDE
 *     wrap all|none|AXES   the axes that are rings, by name or number
 *                          (default all)
 *     endpoints C          endpoints per router, 1..KC_TOPO_MAX_ENDPOINTS
 *                          (default 1)
 *     tie plus|minus|split the ring tie rule (default plus)
 *     source TEXT          where the figures come from (any number of lines,
 *                          up to KC_PRESET_SOURCES)
 * Every keyword but source at most once. Every error is KC_EINVAL with
 * parameter "network", naming the line and column of the word at fault
 * (or the file, for a required line that is missing). At most 63 axes (a
 * line holds 64 words). Cost: O(bytes) time, no heap beyond the reader.
 * Original to kcube (no seed paper). */
#ifndef KCUBE_NETPRESET_H
#define KCUBE_NETPRESET_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/reader.h"
#include "kcube/topology.h"

#define KC_PRESET_NAME_MAX 32
#define KC_PRESET_TEXT_MAX 256
#define KC_PRESET_AXIS_MAX 8
#define KC_PRESET_SOURCES 8

typedef struct kc_netpreset {
    char name[KC_PRESET_NAME_MAX];
    char title[KC_PRESET_TEXT_MAX];           /* "" when the file has none */
    int n;                                    /* axes */
    int side[KC_TOPO_MAX_DIMS];
    char axis[KC_TOPO_MAX_DIMS][KC_PRESET_AXIS_MAX];
    uint64_t wrap;                            /* bit i: axis i is a ring */
    int endpoints;
    kc_tie tie;
    int nsources;
    char source[KC_PRESET_SOURCES][KC_PRESET_TEXT_MAX];
} kc_netpreset;

/* Read one preset from r (p is overwritten; valid only after KC_OK). */
kc_status kc_netpreset_read(kc_netpreset *p, kc_reader *r, kc_err *err);
/* The same from a file ("network file 'PATH'" in messages). */
kc_status kc_netpreset_read_path(kc_netpreset *p, const char *path, kc_err *err);
/* The topology p describes: a torus with p's sides (a mesh when no axis
 * wraps), its wraps, tie and endpoints, no allocation. */
kc_status kc_netpreset_topology(const kc_netpreset *p, kc_topology *t, kc_err *err);
/* "4x4x4x4x2" into buf (the sides, axis 0 first); returns buf. */
char *kc_netpreset_shape(const kc_netpreset *p, char *buf, size_t size);

#endif
