# Spack package for nhood, kept in nhood's repository (packaging/spack).
# Use it from a repository of your own:
#   spack repo create ~/nhood-repo && cp -r packaging/spack/nhood ~/nhood-repo/packages/
#   spack repo add ~/nhood-repo && spack install nhood
# docs/installing.md says how it was checked and what an upstream
# submission still needs.

import os

from spack.package import *


class Nhood(AutotoolsPackage):
    """nhood makes MPI neighborhood collectives fast in programs that were never
    written for it: in MPI's profiling layer (preloaded with nhood-run, or
    linked before MPI) it recognizes the communication pattern of a
    distributed graph or Cartesian communicator and replaces the library's
    one-message-per-neighbor exchange with combining schedules, measured
    against MPI's own on the program's calls."""

    homepage = "https://nhood.example.org"
    url = "https://nhood.example.org/releases/nhood-0.1.0.tar.gz"

    # make dist's tarball; its checksum is the release's (docs/installing.md)
    version("0.1.0")

    variant("libdw", default=True, description="Name the overlap advisor's call sites (elfutils)")
    variant("metis", default=False, description="METIS partitions for the SpMV benchmark")

    depends_on("c", type="build")
    depends_on("gmake", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi")
    depends_on("hwloc")
    depends_on("elfutils", when="+libdw")
    depends_on("metis", when="+metis")

    # nhood's PMPI layer and its pinned threads are Linux's (LD_PRELOAD,
    # /proc, sched_setaffinity)
    conflicts("platform=darwin")
    conflicts("platform=windows")

    def configure_args(self):
        mpi = self.spec["mpi"]
        launcher = join_path(mpi.prefix.bin, "mpiexec")
        args = [
            f"MPICC={mpi.mpicc}",
            f"MPIEXEC={launcher}",
            # the Fortran compiler builds only the test programs
            "MPIFC=none",
        ]
        args += self.with_or_without("libdw")
        args += self.with_or_without("metis")
        return args

    def setup_run_environment(self, env):
        # nhood-run and nhood-info find the library here; nothing is
        # preloaded into the shell (nhood-run preloads it into the ranks)
        env.set("NHOOD_ROOT", self.prefix)

    def test_demo(self):
        """the installed nhood-run runs nhood-bench at 2 ranks under the MPI nhood was
        built with; nhood's report shows its schedule ran"""
        nhood_run = which(join_path(self.prefix.bin, "nhood-run"))
        bench = join_path(self.prefix.bin, "nhood-bench")
        extra = {"NHOOD_REPORT": "1"}
        if os.getuid() == 0:  # Open MPI's launcher refuses root without these
            extra.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        out = nhood_run(
            "-np",
            "2",
            bench,
            "--op",
            "alltoall",
            "--dims",
            "2",
            "--bytes",
            "8,4096",
            "--reps",
            "100",
            output=str,
            error=str,
            extra_env=extra,
        )
        check_outputs(
            [r"alltoall,moore,2,1,2,8,", r"nhood: comm=\d+ op=alltoall pattern=isomorphic "], out
        )

    def test_nhood_info(self):
        """nhood-info names the MPI library it runs under and every setting"""
        info = which(join_path(self.prefix.bin, "nhood-info"))
        out = info(output=str, error=str)
        check_outputs([r"mpi_library ", r"NHOOD_ALGO"], out)
