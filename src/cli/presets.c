/* --network NAME|FILE and kcube --list-networks (presets.h): where the
 * preset files are, and their one-line listing. */
#include "presets.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/near.h"
#include "text.h"
#include "kcube/reader.h"

#ifndef KC_BIN_TO_NETWORKS
#define KC_BIN_TO_NETWORKS "../share/kcube/networks"
#endif
#ifndef KC_SOURCE_NETWORKS
#define KC_SOURCE_NETWORKS ""
#endif

#define PRESETS_MAX 256

/* The data directory: the installed one beside the running binary, else
 * the source tree's (compiled in). Returns 0 and fills dir, or -1 when
 * neither exists. */
static int data_dir(char *dir, size_t size)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            int w = snprintf(dir, size, "%s/%s", exe, KC_BIN_TO_NETWORKS);
            if (w > 0 && (size_t)w < size && access(dir, R_OK | X_OK) == 0)
                return 0;
        }
    }
    int w = snprintf(dir, size, "%s", KC_SOURCE_NETWORKS);
    return w > 0 && (size_t)w < size && access(dir, R_OK | X_OK) == 0 ? 0 : -1;
}

static int is_file_arg(const char *arg)
{
    size_t len = strlen(arg);
    return strchr(arg, '/') || (len >= 4 && !strcmp(arg + len - 4, ".net"));
}

/* A name as preset files spell theirs: nothing else reaches a path. */
static int is_name(const char *arg)
{
    size_t len = strlen(arg);
    if (len == 0 || len >= KC_PRESET_NAME_MAX || arg[0] < 'a' || arg[0] > 'z')
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!((arg[i] >= 'a' && arg[i] <= 'z') || (arg[i] >= '0' && arg[i] <= '9') || arg[i] == '-'))
            return 0;
    return 1;
}

/* "; did you mean NAME?" for the preset in dir nearest to arg, else "". */
static const char *suggestion(const char *dir, const char *arg, char *buf, size_t size)
{
    DIR *d = opendir(dir);
    char names[PRESETS_MAX][KC_PRESET_NAME_MAX + 8];
    size_t count = 0;
    kci_near n;
    kci_near_init(&n, arg, strlen(arg));
    for (struct dirent *e; d && (e = readdir(d)) && count < PRESETS_MAX;) {
        size_t len = strlen(e->d_name);
        if (len > 4 && len - 4 < sizeof names[0] && !strcmp(e->d_name + len - 4, ".net")) {
            memcpy(names[count], e->d_name, len - 4);
            names[count][len - 4] = '\0';
            kci_near_offer(&n, names[count], len - 4);
            count++;
        }
    }
    if (d)
        closedir(d);
    size_t len = 0;
    const char *best = kci_near_best(&n, &len);
    if (best)
        snprintf(buf, size, "; did you mean %.*s?", (int)len, best);
    else
        snprintf(buf, size, "%s", "");
    return buf;
}

static int read_file(const cli_args *a, const char *path, kc_netpreset *p)
{
    kc_err err = {0};
    if (kc_netpreset_read_path(p, path, &err))
        return cli_report(a, &err);
    return 0;
}

int cli_preset_load(const cli_args *a, const char *arg, kc_netpreset *p)
{
    cli_quoted q;
    if (is_file_arg(arg))
        return read_file(a, arg, p);
    char dir[PATH_MAX], path[PATH_MAX + KC_PRESET_NAME_MAX + 8];
    if (!is_name(arg))
        return cli_error("--network '%s' is neither a network name (kcube --list-networks lists them) nor a file "
                         "(a path with '/' or ending in .net)", cli_quote(&q, arg));
    if (data_dir(dir, sizeof dir))
        return cli_error("--network %s: no data directory of networks found (give the file's path instead)", arg);
    snprintf(path, sizeof path, "%s/%s.net", dir, arg);
    char near[KC_PRESET_NAME_MAX + 32];
    if (access(path, F_OK) != 0)
        return cli_error("--network %s: no such network%s (kcube --list-networks lists them)", arg,
                         suggestion(dir, arg, near, sizeof near));
    int r = read_file(a, path, p);
    if (!r && strcmp(p->name, arg) != 0)
        return cli_error("network file '%s' calls itself '%s'", path, p->name);
    return r;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* One listing line: name, shape, axis names, rings, endpoints, routers, title. */
static void list_line(FILE *out, const kc_netpreset *p)
{
    char shape[KC_TOPO_MAX_DIMS * 4 + 1], axes[KC_TOPO_MAX_DIMS * KC_PRESET_AXIS_MAX] = "",
         rings[KC_TOPO_MAX_DIMS * KC_PRESET_AXIS_MAX] = "";
    uint64_t routers = 1;
    for (int i = 0; i < p->n; i++) {
        routers *= (uint64_t)p->side[i];
        strcat(strcat(axes, i ? "," : ""), p->axis[i]);
        if (p->wrap >> i & 1)
            strcat(strcat(rings, rings[0] ? "," : ""), p->axis[i]);
    }
    fprintf(out, "%-15s %-18s %-12s %-12s %2d %8llu  %s\n", p->name, kc_netpreset_shape(p, shape, sizeof shape), axes,
            rings[0] ? rings : "-", p->endpoints, (unsigned long long)routers, p->title);
}

int cli_preset_list(FILE *out)
{
    char dir[PATH_MAX];
    if (data_dir(dir, sizeof dir))
        return cli_error("no data directory of networks found");
    DIR *d = opendir(dir);
    if (!d)
        return cli_error("cannot read the network directory '%s'", dir);
    char *names[PRESETS_MAX];
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d)) && count < PRESETS_MAX;) {
        size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".net") && (names[count] = strdup(e->d_name)))
            count++;
    }
    closedir(d);
    qsort(names, count, sizeof *names, cmp_str);
    int r = 0;
    fprintf(out, "%-15s %-18s %-12s %-12s %2s %8s  %s\n", "name", "shape", "axes", "rings", "C", "routers", "title");
    for (size_t i = 0; i < count; i++) {
        char path[PATH_MAX + 300];
        kc_netpreset p;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (!r && !(r = read_file(NULL, path, &p)))
            list_line(out, &p);
        free(names[i]);
    }
    return r;
}
