# The front door.  Two commands on a fresh Debian machine:
#   make demo   install what is missing, build rtrace and the bundled
#               example (nothing else), trace it
#   make test   install what is missing (Chromium too, for the browser
#               test), build, run every test
# Then, no root needed:
#   make install    rtrace, cargo-rtrace and the man pages in PREFIX
#                   (~/.local: bin/ is on the PATH of a Debian login)
#   make uninstall  removes exactly the files make install wrote
# Everything else is CMake (build/) and CTest.  Hardening, each in its own
# build directory (tests/fuzz/README.md):
#   make test-sanitize  the tests again (all but three slow e2e ones),
#                       rtrace built with ASan + UBSan
#   make fuzz           build the libFuzzer harnesses (clang), run each
#                       FUZZ_TIME seconds (default 60)
#   make lint           the choke points (tests/lint/chokepoints.py), the
#                       stages' include order (tests/lint/stages.py), then
#                       clang-tidy (.clang-tidy) over src/ and arch/

BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= $(HOME)/.local
SAN_BUILD ?= build-sanitize
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME ?= 60
RUSTC_DIR := $(firstword $(wildcard $(HOME)/.cargo/bin))
export PATH := $(if $(RUSTC_DIR),$(RUSTC_DIR):,)$(PATH)

.PHONY: all build deps demo test test-unit test-e2e install uninstall clean
.PHONY: test-sanitize fuzz lint

all: build

deps:
	@.ci/install-deps

# The generated Makefile, not CMakeCache.txt: a configure that failed (a
# library missing) leaves a cache behind but no Makefile, and must run again.
$(BUILD)/Makefile:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

# Only what the demo runs: the tests' programs wait for `make test`.
demo: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS) --target rtrace demo -- --no-print-directory
	@echo '$$ rtrace -f "demo::*" $(BUILD)/examples/demo 1000'
	@$(BUILD)/rtrace -f 'demo::*' -o $(BUILD)/demo.rtrace $(BUILD)/examples/demo 1000
	@echo
	@echo 'Next: make install   (rtrace and cargo rtrace in $(PREFIX)/bin, no root),'
	@echo 'then README.md, "On your own program".'

test: build
	@.ci/install-deps test
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-unit: build
	cd $(BUILD) && ctest --output-on-failure -L unit

test-e2e: build
	@.ci/install-deps test
	cd $(BUILD) && ctest --output-on-failure -L e2e

# rtrace runs under the sanitizers as it is, ptrace and all: LSan's exit
# check stops rtrace's own threads (never a tracee, which is not
# instrumented), ASan's SIGSEGV/SIGBUS handlers see only rtrace's own
# faults (a tracee's signals reach rtrace through waitpid).  The settings
# only make every finding fatal and its report complete; the tracees
# inherit them, and ignore them.  tests/fuzz/README.md, "Sanitizers".
SAN_ENV = ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:check_initialization_order=1:strict_string_checks=1:detect_invalid_pointer_pairs=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Every test but the three slowest e2e ones, which cover nothing the others
# do not (t001 and t020 are mostly repeated runs for timing medians, t033
# stresses threads harder than t020; browser only renders outputs): the
# whole suite under ASan takes 11 minutes on a busy 2-CPU machine, this
# one 6.  SAN_EXCLUDE= runs them all.
SAN_EXCLUDE ?= ^e2e-(t001_hotloop|t020_threads|browser)$$

test-sanitize: deps
	cmake -S . -B $(SAN_BUILD) -DRTRACE_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(SAN_BUILD) -j $(JOBS) -- --no-print-directory
	cd $(SAN_BUILD) && $(SAN_ENV) ctest --output-on-failure -j $(JOBS) \
	    $(if $(SAN_EXCLUDE),-E '$(SAN_EXCLUDE)')

fuzz:
	@.ci/install-deps fuzz
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DRTRACE_FUZZ=ON \
	      $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) --target fuzzers -j $(JOBS) -- --no-print-directory
	tests/fuzz/run-fuzz.sh $(FUZZ_BUILD) $(FUZZ_TIME)

# build/compile_commands.json says how each file is compiled; unknown
# warning options (a gcc-only -W) are not findings.  C files only: the
# recorder is assembly.
lint: build
	@tests/lint/chokepoints.py
	@tests/lint/stages.py
	@.ci/install-deps lint
	run-clang-tidy -quiet -p $(BUILD) -j $(JOBS) \
	    -extra-arg=-Wno-unknown-warning-option '$(CURDIR)/(src|arch)/.*\.c$$'

# The prefix of this call, not the one the build was configured with
# (`make install PREFIX=/usr/local`, as root, for every user).  The
# manifest lists what was written, for `make uninstall`.
install: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS) --target rtrace cargo-rtrace man -- --no-print-directory
	cmake --install $(BUILD) --prefix $(PREFIX)
	@tools/path-note.sh '$(PREFIX)/bin'

uninstall:
	@if [ -f $(BUILD)/install_manifest.txt ]; then \
	    xargs -d '\n' rm -fv < $(BUILD)/install_manifest.txt && \
	    rm -f $(BUILD)/install_manifest.txt; \
	else echo 'make uninstall: nothing installed from $(BUILD)'; fi

clean:
	rm -rf $(BUILD)
