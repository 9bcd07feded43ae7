#!/bin/sh
# The MPI suite's platform part (run-mpi-tests.sh platform), as a test of
# its own for make check-platform-subset (scripts/check-platforms.sh).
exec sh "$(dirname "$0")/run-mpi-tests.sh" platform
