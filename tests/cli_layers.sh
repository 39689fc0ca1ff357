#!/bin/bash
# The rooms of src/ form layers that only point down (docs/architecture.md):
# scripts/layers.py passes on this tree and its drawing is current, and it
# fails on a copy of the tree into which an upward include, an upward call
# (seen only at link level), two files of a room calling each other, or an
# include of another room's private header is injected.
KC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
BUILD=$(dirname "$KC")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/support/cli_lib.sh"
LAYERS="$ROOT/scripts/layers.py"

expect_exit 0 "layers.py on this tree" -- python3 "$LAYERS" --root "$ROOT" --build "$BUILD"
expect_stdout_contains "all pointing down"

# A copy of the sources (the built objects are shared through links).
copy_tree() {
    rm -rf "$CLI_TMP/tree" && mkdir -p "$CLI_TMP/tree/docs"
    cp -r "$ROOT/src" "$ROOT/include" "$CLI_TMP/tree/"
    cp "$ROOT/docs/architecture.md" "$CLI_TMP/tree/docs/"
}

# 1. core includes the planner's header: an include arrow up from layer 0.
copy_tree
printf '#include "kcube/plan.h"\n' >> "$CLI_TMP/tree/src/core/rng.c"
expect_exit 1 "an injected upward include fails" -- \
    python3 "$LAYERS" --root "$CLI_TMP/tree" --build "$BUILD" --no-drawing
expect_stderr_contains "arrow core (layer 0) -> plan (layer 7) does not point down: src/core/rng.c"

# 2. core calls kc_map_budget with a hand-written prototype: no include shows
#    it, only the object's undefined symbol does.
copy_tree
cat > "$CLI_TMP/tree/src/core/injected.c" <<'C'
unsigned long long kc_map_budget(const void *opts, int n, int m);
unsigned long long kci_injected(void) { return kc_map_budget(0, 4, 1); }
C
mkdir -p "$CLI_TMP/objs"
cp -rs "$BUILD/CMakeFiles" "$CLI_TMP/objs/"
obj="$CLI_TMP/objs/CMakeFiles/kcube_obj.dir/src/core/injected.c.o"
expect_exit 0 "compile the injected file" -- cc -c "$CLI_TMP/tree/src/core/injected.c" -o "$obj"
expect_exit 1 "an injected upward call fails" -- \
    python3 "$LAYERS" --root "$CLI_TMP/tree" --build "$CLI_TMP/objs" --no-drawing
expect_stderr_contains "arrow core (layer 0) -> plan (layer 7) does not point down: injected.c.o (core) needs kc_map_budget"

# 3. Two files of one room that call each other: a circle inside a room.
copy_tree
printf 'int kci_inj_b(int x);\nint kci_inj_a(int x) { return x ? kci_inj_b(x - 1) : 0; }\n' > "$CLI_TMP/tree/src/core/inj_a.c"
printf 'int kci_inj_a(int x);\nint kci_inj_b(int x) { return x ? kci_inj_a(x - 1) : 1; }\n' > "$CLI_TMP/tree/src/core/inj_b.c"
rm -rf "$CLI_TMP/objs" && mkdir -p "$CLI_TMP/objs" && cp -rs "$BUILD/CMakeFiles" "$CLI_TMP/objs/"
for f in inj_a inj_b; do
    cc -c "$CLI_TMP/tree/src/core/$f.c" -o "$CLI_TMP/objs/CMakeFiles/kcube_obj.dir/src/core/$f.c.o"
done
expect_exit 1 "files calling each other in a circle fail" -- \
    python3 "$LAYERS" --root "$CLI_TMP/tree" --build "$CLI_TMP/objs" --no-drawing
expect_stderr_contains "files of src/core call each other in a circle: inj_a, inj_b"

# 4. A downward include of a room's private header that it does not open.
copy_tree
printf '#include "sim/sim_internal.h"\n' >> "$CLI_TMP/tree/src/scenario/scenario.c"
expect_exit 1 "a private header of another room fails" -- \
    python3 "$LAYERS" --root "$CLI_TMP/tree" --build "$BUILD" --no-drawing
expect_stderr_contains "sim/sim_internal.h is private to src/sim"

# 5. A room the table does not list, and a stale drawing.
copy_tree
mkdir -p "$CLI_TMP/tree/src/newroom"
expect_exit 1 "an unlisted room fails" -- python3 "$LAYERS" --root "$CLI_TMP/tree" --build "$BUILD" --no-drawing
expect_stderr_contains "src/newroom/: not in the layers table"
copy_tree
sed -i 's/^    core        -> (nothing)$/    core        -> plan/' "$CLI_TMP/tree/docs/architecture.md"
expect_exit 1 "a stale drawing fails" -- python3 "$LAYERS" --root "$CLI_TMP/tree" --build "$BUILD"
expect_stderr_contains "the layers drawing is stale"

summary
