# `make run` and `make test` do all set-up on a fresh Debian 12 machine:
# missing packages, configure, build, then run or test.

comma := ,
SANITIZE ?=
BUILD ?= build$(if $(SANITIZE),-$(subst $(comma),-,$(SANITIZE)))
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=
EXPERIMENT ?=

.PHONY: all deps configure build run test bench package fuzz clean

all: build

deps:
	@bash packaging/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DTRAINYARD_SANITIZE=$(SANITIZE) $(CMAKE_ARGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Opens the desktop app on the built-in demo experiment (or EXPERIMENT=file).
run: build
	$(BUILD)/bin/trainyard $(EXPERIMENT)

# Sanitizer runs: undefined behaviour fails the test; LeakSanitizer needs the
# slow unwinder to see through Qt (built without frame pointers) so that the
# one deliberate leak (a worker left running) can be suppressed by name
# (tests/faults/lsan.supp); TSan ignores Qt Test's watchdog wait condition
# inside uninstrumented Qt (tests/faults/tsan.supp). See docs/reliability.md.
SANITIZER_ENV := UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/faults/lsan.supp:fast_unwind_on_malloc=0 \
	TSAN_OPTIONS=suppressions=$(CURDIR)/tests/faults/tsan.supp

# A short libFuzzer run of every fuzz target comes first, then the suite.
FUZZ_SMOKE_SECONDS ?= 10
test: build
	bash tests/fuzz/run-fuzzers.sh $(FUZZ_SMOKE_SECONDS)
	cd $(BUILD) && $(if $(SANITIZE),$(SANITIZER_ENV)) QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j $(JOBS)

bench: build
	bash bench/run-all.sh $(BUILD)

package: build
	cd $(BUILD) && cpack -G DEB

fuzz:
	bash tests/fuzz/run-fuzzers.sh $(or $(FUZZ_SECONDS),600)

clean:
	rm -rf $(BUILD)
