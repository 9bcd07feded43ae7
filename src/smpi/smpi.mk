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
CF = $(SMPI_CFLAGS) -Wall -Wextra -Wmissing-prototypes -DNHOOD_SMPI -I$(top_srcdir)/include -I$(top_srcdir)/src \
	-I$(OUT)/gen
.DEFAULT_GOAL := all
# SimGrid's MPI functions as nhood calls them (nh_mpi_X: src/util/mpilib.h),
# from SimGrid's mpi.h.
GEN = $(OUT)/gen/mpilib_smpi_gen.h
$(GEN): $(top_srcdir)/scripts/gen-fence.sh $(top_srcdir)/src/intercept/functions.h
	@mkdir -p $(@D)
	$(SHELL) $(top_srcdir)/scripts/gen-fence.sh $(SMPICC) $(top_srcdir)/src/intercept/functions.h lib >$@.tmp && mv $@.tmp $@

NHOOD_SRC = src/core/grid.c src/core/model.c src/core/parse.c src/core/kvfile.c src/core/tunetext.c src/core/sched.c src/core/netload.c src/core/algos.c src/core/direct.c \
	src/core/dimwise.c src/core/torus.c src/core/torus_direct.c src/core/bruck.c src/core/bruck_digits.c src/core/sim.c src/core/vpt.c src/core/stfw.c src/core/stfw_sim.c \
	src/core/reduce.c src/core/facts.c src/core/places.c src/core/inplace_lsa.c src/core/inplace_hsa.c src/core/inplace_steps.c \
	src/util/log.c src/util/resource.c src/util/pack.c src/util/agree.c src/util/sync.c src/util/window.c src/util/gpu.c src/util/objects.c src/util/spare.c src/smpi/host.c src/config/config.c src/config/settings.c src/config/files.c \
	src/plan/hint.c src/plan/detect.c src/plan/cold.c src/plan/candidates.c src/plan/agree.c src/plan/plan_sched.c src/plan/vpt_node.c src/plan/stfw_setup.c \
	src/exec/engine.c src/exec/blocks.c src/exec/framing.c src/exec/request.c src/exec/progress.c src/exec/completion.c src/exec/inplace.c \
	src/select/select.c src/select/price.c src/select/stfw_choice.c src/select/autotune.c src/select/settle.c src/select/mpi_own.c src/select/candidates.c src/select/tunefile.c \
	src/api/neighbor.c src/api/cold.c src/api/cold_typed.c src/api/cold_copy.c src/api/cold_plain.c src/api/points.c src/api/parents.c src/api/call.c src/api/repeat.c src/api/lifecycle.c src/api/create.c src/api/alltoall.c \
	src/api/report.c src/api/query.c src/api/info.c \
	src/iso/iso.c src/iso/cart.c src/iso/iso_coll.c src/iso/iso_reduce.c src/intercept/intercept.c
COMPAT_SRC = src/smpi/compat.c src/smpi/compat_nb.c src/smpi/compat_p2p.c
# The SpMV test matrices (no MPI), for nhood-simbench --op spmv.
MAT_SRC = src/tools/matgen.c src/tools/matread.c src/tools/partition.c src/tools/triplets.c
NHOOD_OBJ = $(NHOOD_SRC:%.c=$(OUT)/%.o)
COMPAT_OBJ = $(COMPAT_SRC:%.c=$(OUT)/%.o)
MAT_OBJ = $(MAT_SRC:%.c=$(OUT)/%.o)
HEADERS = $(wildcard $(top_srcdir)/src/*.h $(top_srcdir)/src/smpi/*.h $(top_srcdir)/src/*/*.h $(top_srcdir)/include/*.h \
	$(top_srcdir)/test/*.h $(top_srcdir)/test/bench/*.h)

PROGS = $(OUT)/nhood-simbench $(OUT)/nhood-simcalib $(OUT)/nhood-calibrate $(OUT)/nhood-bench $(OUT)/nhood-bench-inplace $(OUT)/test_neighbor \
	$(OUT)/test_sync $(OUT)/test_autotune
# Preloaded into the simulator by scripts/nhood-sim (src/smpi/sgfast.c):
# a plain shared library, not an SMPI program.
CC ?= cc
SGFAST = $(OUT)/libnhood-sgfast.so

all: $(PROGS) $(SGFAST)

$(SGFAST): $(top_srcdir)/src/smpi/sgfast.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -Wmissing-prototypes -fPIC -shared -o $@ $< -ldl

$(NHOOD_OBJ) $(COMPAT_OBJ) $(MAT_OBJ): $(OUT)/%.o: $(top_srcdir)/%.c $(HEADERS) $(GEN)
	@mkdir -p $(@D)
	$(SMPICC) $(CF) -fvisibility=hidden -c -o $@ $<

# Programs: compiled with src/smpi/prog.h force-included (their dlsym
# lookups of nhood's queries go to the linked-in functions).
$(OUT)/prog/%.o: $(HEADERS) $(GEN) $(top_srcdir)/src/smpi/prog.h
	@mkdir -p $(@D)
	$(SMPICC) $(CF) -include $(top_srcdir)/src/smpi/prog.h -c -o $@ $(SRC_$*)

SRC_nhood-simbench = $(top_srcdir)/src/smpi/simbench.c
SRC_nhood-simcalib = $(top_srcdir)/src/smpi/calib.c
SRC_nhood-calibrate = $(top_srcdir)/src/tools/nhood-calibrate.c
SRC_nhood-bench = $(top_srcdir)/test/bench/nhood-bench.c
SRC_nhood-bench-inplace = $(top_srcdir)/test/bench/nhood-bench-inplace.c
SRC_test_neighbor = $(top_srcdir)/test/mpi/test_neighbor.c
SRC_test_sync = $(top_srcdir)/test/smpi/test_sync.c
SRC_test_autotune = $(top_srcdir)/test/mpi/test_autotune.c
$(OUT)/prog/nhood-simbench.o: $(SRC_nhood-simbench)
$(OUT)/prog/nhood-simcalib.o: $(SRC_nhood-simcalib)
$(OUT)/prog/nhood-calibrate.o: $(SRC_nhood-calibrate)
SRC_calib_fit = $(top_srcdir)/src/tools/calib_fit.c
SRC_calib_io = $(top_srcdir)/src/tools/calib_io.c
SRC_calib_run = $(top_srcdir)/src/tools/calib_run.c
$(OUT)/prog/calib_fit.o: $(SRC_calib_fit)
$(OUT)/prog/calib_io.o: $(SRC_calib_io)
$(OUT)/prog/calib_run.o: $(SRC_calib_run)
EXTRA_nhood-calibrate = $(OUT)/prog/calib_fit.o $(OUT)/prog/calib_io.o $(OUT)/prog/calib_run.o
$(OUT)/nhood-calibrate: $(EXTRA_nhood-calibrate)
$(OUT)/prog/nhood-bench.o: $(SRC_nhood-bench)
$(OUT)/prog/nhood-bench-inplace.o: $(SRC_nhood-bench-inplace)
$(OUT)/prog/test_neighbor.o: $(SRC_test_neighbor)
$(OUT)/prog/test_sync.o: $(SRC_test_sync)
$(OUT)/prog/test_autotune.o: $(SRC_test_autotune)
# nhood-simbench's other files, linked into it.
SIMBENCH_PARTS = simbench_neighbor simbench_inplace simbench_spmv simbench_ispmv
$(foreach s,$(SIMBENCH_PARTS),$(eval SRC_$(s) = $(top_srcdir)/src/smpi/$(s).c)\
	$(eval $(OUT)/prog/$(s).o: $(top_srcdir)/src/smpi/$(s).c))
EXTRA_nhood-simbench = $(SIMBENCH_PARTS:%=$(OUT)/prog/%.o)
$(OUT)/nhood-simbench: $(EXTRA_nhood-simbench)

$(PROGS): $(OUT)/%: $(OUT)/prog/%.o $(NHOOD_OBJ) $(COMPAT_OBJ) $(MAT_OBJ)
	$(SMPICC) -o $@ $< $(EXTRA_$*) $(NHOOD_OBJ) $(COMPAT_OBJ) $(MAT_OBJ) -Wl,-Bsymbolic -lm -ldl -lpthread

clean:
	rm -rf $(OUT)

.PHONY: all clean
