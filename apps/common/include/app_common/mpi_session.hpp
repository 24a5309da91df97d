#pragma once
/// MPI for the lifetime of an app's main() (qsim's and hplai's distributed runs, docs/scaling.md),
/// shared by the apps so that each starts and ends MPI the same way. Header-only: MPI is an optional
/// dependency of the apps (TCEMU_WITH_MPI), and apps/common does not link it. An app built with MPI
/// defines TCEMU_APPS_HAVE_MPI (its CMakeLists, with MPI::MPI_CXX); without it MpiSession is inert.
#include <cstdio>
#include <cstdlib>

#if defined(TCEMU_APPS_HAVE_MPI)
#include <mpi.h>
#endif

namespace tcemu::app {

/// True when this process was started by an MPI launcher (Open MPI's mpirun, or a PMI / PMIx launcher
/// such as srun): only then does an app initialise MPI, so a plain `qsim ...` or `hplai ...` never
/// touches it.
inline bool launched_by_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

#if defined(TCEMU_APPS_HAVE_MPI)
/// MPI_Init_thread (funneled) when launched by an MPI launcher, MPI_Finalize at the end of main().
/// With several ranks, the output of every rank but 0 goes to /dev/null: rank 0 reports, errors
/// included, and the apps make every rank meet the same errors (collective checks).
struct MpiSession {
  bool active = false;  ///< MPI was initialised (launched by an MPI launcher)
  int rank = 0, size = 1;
  MpiSession(int* argc, char*** argv) {
    if (!launched_by_mpi_launcher()) return;
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    active = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1 && rank != 0) {
      if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) return;
    }
  }
  ~MpiSession() {
    if (active) MPI_Finalize();
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};
#else
/// Without MPI: one process, rank 0 of 1.
struct MpiSession {
  bool active = false;
  int rank = 0, size = 1;
  MpiSession(int*, char***) {}
};
#endif

}  // namespace tcemu::app
