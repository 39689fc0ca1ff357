# Top-level wrapper: `make demo` and `make test` are the two commands the README gives.
# Each installs what it needs (scripts/deps.sh), configures CMake and builds.
# `make fuzz` (docs/fuzzing.md) also installs clang and libFuzzer, which the
# other targets do not need.
BUILD      ?= build
BUILD_SAN  ?= build-san
BUILD_FUZZ ?= build-fuzz
# Seconds per fuzz harness; empty: up to 25, fitted to CI's 5 minutes (scripts/fuzz.sh).
FUZZ_SECONDS ?=
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
# `make install PREFIX=/usr/local DESTDIR=/tmp/stage` (docs/install.md).
PREFIX     ?= /usr/local
DESTDIR    ?=

.PHONY: all deps build install uninstall demo test test-sanitize fuzz bench clean

all: build

deps:
	@bash scripts/deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The CMake install rules (cmake/install.cmake) under PREFIX, staged under
# DESTDIR when it is set. The build is configured with the prefix first:
# GNUInstallDirs picks the library folder from it (lib/x86_64-linux-gnu
# under /usr on Debian, lib elsewhere). Installed into the system (no
# DESTDIR, as root), the loader's cache is refreshed (ldconfig), so programs
# linked without an rpath find libkcube.so under /usr/local too.
install: build
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX="$(PREFIX)" > /dev/null
	cmake --build $(BUILD) -j $(JOBS)
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig > /dev/null; then ldconfig; fi

# Removes what the last `make install` of this PREFIX and DESTDIR wrote
# (its manifest, PREFIX/share/kcube/install_manifest.txt), nothing else.
uninstall:
	@test -f "$(DESTDIR)$(PREFIX)/share/kcube/uninstall.cmake" || \
	  { echo "no kcube installed under $(DESTDIR)$(PREFIX) (no share/kcube/uninstall.cmake)" >&2; exit 1; }
	cmake -P "$(DESTDIR)$(PREFIX)/share/kcube/uninstall.cmake"

# The demo builds quietly (the compiler's lines go to $(BUILD)/build.log, shown
# only when the build fails), so what it prints is the demo itself.
demo: deps
	@mkdir -p $(BUILD)
	@echo "building kcube (log in $(BUILD)/build.log) ..."
	@{ cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build $(BUILD) -j $(JOBS); } \
	  > $(BUILD)/build.log 2>&1 || { tail -n 30 $(BUILD)/build.log; echo "build failed: $(BUILD)/build.log" >&2; exit 1; }
	@echo "$$ kcube demo"
	@./$(BUILD)/kcube demo
	@echo "$$ kcube figures --out kcube-figures"
	@./$(BUILD)/kcube figures --out kcube-figures

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

$(BUILD_SAN)/build.ninja: | deps
	cmake -S . -B $(BUILD_SAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKC_SANITIZE=ON

test-sanitize: deps $(BUILD_SAN)/build.ninja
	cmake --build $(BUILD_SAN) -j $(JOBS)
	cd $(BUILD_SAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -LE slow

fuzz:
	BUILD_FUZZ=$(BUILD_FUZZ) FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) bash scripts/fuzz.sh

bench: build
	@for b in $(BUILD)/bench_*; do echo "== $$b"; $$b; done

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_FUZZ)
