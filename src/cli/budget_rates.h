/* budget_rates.h - the calibrated costs every command's gate (budget.h)
 * multiplies its work by, in one place.
 *
 * Each is seconds per unit of work, measured on the development machine
 * (x86-64, 2 shared cores) and rounded up; the unit is the one the command's
 * gate counts (its comment says how it counts). Recalibrating means editing
 * this file only. Bytes per unit stay beside their formulas: they follow
 * from the data structures, not from the machine. */
#ifndef KC_CLI_BUDGET_RATES_H
#define KC_CLI_BUDGET_RATES_H

/* Every gate's fixed memory: the program, its libraries, buffers, small
 * tables (3.4 to 4.2 MB measured for the smallest runs). */
#define CLI_BASE_BYTES 4.5e6

/* simulate: the share of an engine's allocation (kc_simmem_estimate, the
 * bound the thread plan keeps) a run keeps resident: 25 to 60 % measured,
 * from a uniform load far below saturation to a saturated transpose. */
#define CLI_SIM_RESIDENT 0.35

/* analyze, map, export: the exact re-count of a communication by the general
 * counter, per node and dimension (plan_cli.c). */
#define CLI_RATE_EXACT_COUNT 25e-9

/* map: the linear search per unit of its budget x n^4 x m (0.4 to 0.8 ns
 * measured); the subset DP of a set per 2^n m n (binary) or 2^n n^5 m
 * (GF(k)); the hypercube's reordering search per frame addition, and the
 * threshold search after it per prefix set, communication and dimension
 * (20 ns measured); --method exhaustive per n! m n^2. */
#define CLI_RATE_MAP_SEARCH 1e-9
#define CLI_RATE_MAP_DP_BINARY 8e-9
#define CLI_RATE_MAP_DP_GFK 0.5e-9
#define CLI_RATE_MAP_FRAME 150e-9
#define CLI_RATE_MAP_THRESHOLD 30e-9
#define CLI_RATE_MAP_EXHAUSTIVE 25e-9

/* map --kind general: building the exact counter and counting every start,
 * per unit of messages x (axes + 1); a Scotch run per node and log2 of
 * the nodes, on a traffic graph of at least 4 messages a node
 * (map_general.c); the search itself runs its budget, taken as this many
 * times its CPU time. */
#define CLI_RATE_GMAP_UNIT 0.45e-6
#define CLI_RATE_GMAP_SCOTCH 2e-6
/* libscotch's recursive-bipartitioning mapper (kgraphMapRbMap) also spends
 * time in the square of each connected part of the traffic graph: a ring of
 * 2^14, 2^15, 2^16 ranks took 0.9, 3.6, 14.5 s in all (two runs), nearly all
 * of it there; 2^15 ranks as 2, 4, 16 rings took 2.1, 1.0, 0.6 s, and the
 * transpose's pairs on the 16-cube 1.3 s. Per run and unit of the sum of
 * the components' sizes squared. */
#define CLI_RATE_GMAP_SCOTCH_SQUARE 1.6e-9
/* On a network Scotch has no target class for (kc_scotch_graph_target) a
 * run maps onto a target built from the router graph: per run, times
 * R^1.7 for R routers (4608, 20,736, 36,864 routers took 1.35, 13.0,
 * 34.9 s for two runs with a 7-point stencil on Tofu shapes). */
#define CLI_RATE_GMAP_SCOTCH_GRAPH 3.0e-7
#define CLI_GMAP_SEARCH_FACTOR 1

/* map, simulate, replay: reading an OTF2 trace, per event its definitions
 * declare (kc_trace_read_otf2 and OTF2's own decoding: bench_trace_read
 * measured 4.0 M events a wall second on the loaded 2-core machine, 9.5 M a
 * CPU second; docs/traces.md "Reading speed"). */
#define CLI_RATE_TRACE_EVENT 0.25e-6

/* hl: routing per processor and HL step; the mesh's routing per processor
 * and mesh step; --verify per processor and step of each permutation. */
#define CLI_RATE_HL_ROUTE 60e-9
#define CLI_RATE_HL_MESH 20e-9
#define CLI_RATE_HL_VERIFY 40e-9

/* butterfly: per element and stage, every method (11 to 21 ns measured);
 * with --fft (35 to 50 ns). */
#define CLI_RATE_BFLY 15e-9
#define CLI_RATE_BFLY_FFT 40e-9

/* calmant: a mesh schedule (built and verified) per message and dimension;
 * kcube's torus schedule per M^3 2^d 2^(3d/4); exact loads per message and
 * mesh axis (cmd_calmant.c). */
#define CLI_RATE_CAL_SCHEDULE 7.5e-9
#define CLI_RATE_CAL_TORUS 3e-12
#define CLI_RATE_CAL_LOAD 10e-9

/* calmant alltoall: choosing calmant's parameters per d^2; a replay per
 * message and per message hop; --emit-goal per schedule line. */
#define CLI_A2A_CHOOSE_SECONDS 4e-3
#define CLI_RATE_A2A_MSG 60e-9
#define CLI_RATE_A2A_HOP 4e-9
#define CLI_RATE_A2A_GOAL_LINE 0.15e-6

/* fft-study, for one configuration's three replays: per point and square
 * root of a rank's points; per rank^1.5 (cmd_fft_study.c). */
#define CLI_RATE_FFT_POINT 5e-9
#define CLI_RATE_FFT_RANK 4.4e-6

/* replay on the network: per operation, dependence, node, and byte sent. */
#define CLI_RATE_REPLAY_OP 2.2e-6
#define CLI_RATE_REPLAY_DEP 0.85e-6
#define CLI_RATE_REPLAY_NODE 0.4e-6
#define CLI_RATE_REPLAY_BYTE 2e-9

/* replay --model loggops: per operation and per dependence, plus a fixed
 * start. */
#define CLI_RATE_LOGGOPS_OP 0.8e-6
#define CLI_RATE_LOGGOPS_DEP 0.15e-6
#define CLI_LOGGOPS_FIXED_SECONDS 0.01

#endif
