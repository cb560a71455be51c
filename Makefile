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

# A short libFuzzer run of every fuzz target comes first, then the suite.
FUZZ_SMOKE_SECONDS ?= 10
test: build
	bash tests/fuzz/run-fuzzers.sh $(FUZZ_SMOKE_SECONDS)
	cd $(BUILD) && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j $(JOBS) $(if $(SANITIZE),-LE "slow")

bench: build
	bash bench/run-all.sh $(BUILD)

package: build
	cd $(BUILD) && cpack -G DEB

fuzz:
	bash tests/fuzz/run-fuzzers.sh $(or $(FUZZ_SECONDS),600)

clean:
	rm -rf $(BUILD)
