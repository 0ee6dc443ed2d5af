# The front door.  Two commands on a fresh Debian machine:
#   make demo   install what is missing, build, trace the bundled example
#   make test   install what is missing, build, run every test
# Everything else is CMake (build/) and CTest.

BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local
RUSTC_DIR := $(firstword $(wildcard $(HOME)/.cargo/bin))
export PATH := $(if $(RUSTC_DIR),$(RUSTC_DIR):,)$(PATH)

.PHONY: all build deps demo test test-unit test-e2e install clean

all: build

deps:
	@.ci/install-deps

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

demo: build
	@echo '$$ rtrace -f "demo::*" $(BUILD)/examples/demo 1000'
	@$(BUILD)/rtrace -f 'demo::*' -o $(BUILD)/demo.rtrace $(BUILD)/examples/demo 1000

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-unit: build
	cd $(BUILD) && ctest --output-on-failure -L unit

test-e2e: build
	cd $(BUILD) && ctest --output-on-failure -L e2e

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
