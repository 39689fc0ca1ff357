/* examples/map_traffic.c - map a traffic graph onto a network.
 * A 16 x 16 halo exchange (each rank sends 1 KiB to its four neighbours on
 * a periodic grid) placed on the 8-cube by kcube's general mapper, starting
 * from the identity placement; prints the busiest channel's bytes before and
 * after. Build: cc map_traffic.c $(pkg-config --cflags --libs kcube) */
#include <stdio.h>

#include <kcube/gmap.h>

int main(void)
{
    kc_topology t;
    kc_traffic tr;
    kc_gmap_opts o;
    kc_gmap_result r = {0};
    kc_err err = {0};
    uint32_t identity[256];
    if (kc_topology_hypercube(&t, 8, &err) || kc_traffic_init(&tr, 256, &err))
        return fprintf(stderr, "map_traffic: %s\n", err.msg), 1;
    for (uint32_t v = 0; v < 256; v++) {
        uint32_t x = v % 16, y = v / 16, nb[4] = {(x + 1) % 16 + 16 * y, (x + 15) % 16 + 16 * y,
                                                  x + 16 * ((y + 1) % 16), x + 16 * ((y + 15) % 16)};
        identity[v] = v;
        for (int i = 0; i < 4; i++)
            if (kc_traffic_add(&tr, v, nb[i], 1024, &err))
                return fprintf(stderr, "map_traffic: %s\n", err.msg), 1;
    }
    kc_gmap_opts_default(&o);
    o.iterations = 20000; /* a fixed amount of work: the same result on every machine */
    o.budget_seconds = 0;
    kc_gmap_start start = {"identity", identity};
    kc_status s = kc_gmap_run(&t, &tr, &start, 1, &o, &r, &err);
    int better = !s && r.cost.max <= r.start_cost[0].max;
    if (!s)
        printf("busiest channel: %llu bytes (identity) -> %llu bytes (mapped); rank 17 on node %u\n",
               (unsigned long long)r.start_cost[0].max, (unsigned long long)r.cost.max, r.to_physical[17]);
    else
        fprintf(stderr, "map_traffic: %s\n", err.msg);
    kc_gmap_result_free(&r);
    kc_traffic_free(&tr);
    return better ? 0 : 1;
}
