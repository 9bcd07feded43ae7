# SMPI build: nhood's core and its benchmarks compiled with SimGrid's smpicc
# into SMPI programs, nhood linked in (not preloaded).  Run through
# `make smpi` (Makefile.am), which passes top_srcdir, SMPICC and OUT; plain
# GNU make, kept apart from the Autotools build so that build is untouched.
#
# Link order matters: SMPI declares every MPI_* function weak, and
# src/smpi/compat.c defines weak MPI_* fallbacks for what SMPI lacks; the
# linker keeps the first weak definition, so nhood's interception objects
# come before compat.o.  -Bsymbolic binds the program's MPI calls to the
# definitions inside it instead of SimGrid's.
top_srcdir ?= .
SMPICC ?= smpicc
OUT ?= build-smpi
SMPI_CFLAGS ?= -O2
CF = $(SMPI_CFLAGS) -Wall -Wextra -DNHOOD_SMPI -I$(top_srcdir)/include -I$(top_srcdir)/src

NHOOD_SRC = src/topo/grid.c src/sched/sched.c src/sched/direct.c src/sched/dimwise.c \
	src/sched/torus.c src/sched/torus_direct.c src/sched/sim.c \
	src/inplace/lsa.c src/inplace/hsa.c src/inplace/steps.c src/select/parse.c src/resource.c \
	src/nhood.c src/report.c src/query.c src/intercept/intercept.c src/topo/detect.c \
	src/exec/engine.c src/exec/blocks.c src/exec/request.c src/exec/pack.c src/exec/inplace.c \
	src/select/config.c src/select/select.c src/select/stfw_choice.c src/select/autotune.c \
	src/api/neighbor.c src/api/call.c \
	src/sched/reduce.c src/iso/iso.c src/iso/iso_reduce.c \
	src/sched/stfw.c src/exec/stfw_exec.c src/topo/vpt_node.c
COMPAT_SRC = src/smpi/compat.c
# The SpMV test matrices (no MPI), for nhood-simbench --op spmv.
MAT_SRC = src/tools/matgen.c
NHOOD_OBJ = $(NHOOD_SRC:%.c=$(OUT)/%.o)
COMPAT_OBJ = $(COMPAT_SRC:%.c=$(OUT)/%.o)
MAT_OBJ = $(MAT_SRC:%.c=$(OUT)/%.o)
HEADERS = $(wildcard $(top_srcdir)/src/*.h $(top_srcdir)/src/smpi/*.h $(top_srcdir)/src/*/*.h $(top_srcdir)/include/*.h \
	$(top_srcdir)/test/*.h $(top_srcdir)/test/bench/*.h)

PROGS = $(OUT)/nhood-simbench $(OUT)/nhood-simcalib $(OUT)/nhood-bench $(OUT)/nhood-bench-inplace $(OUT)/test_neighbor

all: $(PROGS)

$(NHOOD_OBJ) $(COMPAT_OBJ) $(MAT_OBJ): $(OUT)/%.o: $(top_srcdir)/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(SMPICC) $(CF) -fvisibility=hidden -c -o $@ $<

# Programs: compiled with src/smpi/prog.h force-included (their dlsym
# lookups of nhood's queries go to the linked-in functions).
$(OUT)/prog/%.o: $(HEADERS) $(top_srcdir)/src/smpi/prog.h
	@mkdir -p $(@D)
	$(SMPICC) $(CF) -include $(top_srcdir)/src/smpi/prog.h -c -o $@ $(SRC_$*)

SRC_nhood-simbench = $(top_srcdir)/src/smpi/simbench.c
SRC_nhood-simcalib = $(top_srcdir)/src/smpi/calib.c
SRC_nhood-bench = $(top_srcdir)/test/bench/nhood-bench.c
SRC_nhood-bench-inplace = $(top_srcdir)/test/bench/nhood-bench-inplace.c
SRC_test_neighbor = $(top_srcdir)/test/mpi/test_neighbor.c
$(OUT)/prog/nhood-simbench.o: $(SRC_nhood-simbench)
$(OUT)/prog/nhood-simcalib.o: $(SRC_nhood-simcalib)
$(OUT)/prog/nhood-bench.o: $(SRC_nhood-bench)
$(OUT)/prog/nhood-bench-inplace.o: $(SRC_nhood-bench-inplace)
$(OUT)/prog/test_neighbor.o: $(SRC_test_neighbor)

$(PROGS): $(OUT)/%: $(OUT)/prog/%.o $(NHOOD_OBJ) $(COMPAT_OBJ) $(MAT_OBJ)
	$(SMPICC) -o $@ $< $(NHOOD_OBJ) $(COMPAT_OBJ) $(MAT_OBJ) -Wl,-Bsymbolic -lm -ldl -lpthread

clean:
	rm -rf $(OUT)

.PHONY: all clean
