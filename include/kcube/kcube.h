/* kcube/kcube.h - every public header of libkcube in one include:
 * #include <kcube/kcube.h> gives the whole kc_* API (docs/install.md).
 * kcube/mpi.h is not here: it needs MPI and comes with libkcube-mpi
 * (include it on its own). Usable from C11 and from C++ (the declarations
 * get C linkage). tests/cli_install.sh checks that it names every header
 * in include/kcube/ and compiles it as C11 and as C++. */
#ifndef KCUBE_KCUBE_H
#define KCUBE_KCUBE_H

#ifdef __cplusplus
extern "C" {
#endif

#include "kcube/appsim.h"
#include "kcube/attr.h"
#include "kcube/bitmat.h"
#include "kcube/butterfly.h"
#include "kcube/calmant_alltoall.h"
#include "kcube/calmant_cost.h"
#include "kcube/calmant_embed.h"
#include "kcube/calmant_load.h"
#include "kcube/calmant_sched.h"
#include "kcube/calmant_task.h"
#include "kcube/chanload.h"
#include "kcube/comm.h"
#include "kcube/contention.h"
#include "kcube/error.h"
#include "kcube/gfk.h"
#include "kcube/gmap.h"
#include "kcube/goal.h"
#include "kcube/gray.h"
#include "kcube/gray_alloc.h"
#include "kcube/hl.h"
#include "kcube/hl_class.h"
#include "kcube/hl_mesh.h"
#include "kcube/lcc.h"
#include "kcube/loggops.h"
#include "kcube/loggp.h"
#include "kcube/machine.h"
#include "kcube/mapgeneral.h"
#include "kcube/mapset.h"
#include "kcube/names.h"
#include "kcube/netload.h"
#include "kcube/netpreset.h"
#include "kcube/nodemap.h"
#include "kcube/perm.h"
#include "kcube/plan.h"
#include "kcube/reader.h"
#include "kcube/reorder.h"
#include "kcube/rng.h"
#include "kcube/scotchmap.h"
#include "kcube/sim.h"
#include "kcube/simmem.h"
#include "kcube/simnet.h"
#include "kcube/simref.h"
#include "kcube/simroute.h"
#include "kcube/simscenario.h"
#include "kcube/simspec.h"
#include "kcube/simstats.h"
#include "kcube/simsweep.h"
#include "kcube/simtraffic.h"
#include "kcube/stepnet.h"
#include "kcube/tcontention.h"
#include "kcube/timeline.h"
#include "kcube/topology.h"
#include "kcube/torus.h"
#include "kcube/torusmap.h"
#include "kcube/trace.h"
#include "kcube/traffic.h"
#include "kcube/traffic_gen.h"

#ifdef __cplusplus
}
#endif

#endif
