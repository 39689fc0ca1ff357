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

.PHONY: all deps build install demo test test-sanitize fuzz bench clean

all: build

deps:
	@bash scripts/deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The CMake install rules (cmake/install.cmake) under PREFIX, staged under
# DESTDIR when it is set.
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

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
