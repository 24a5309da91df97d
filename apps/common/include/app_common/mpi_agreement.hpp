#pragma once
/// \file mpi_agreement.hpp
/// Checks that every rank of a run over MPI must pass, agreed before the run so that all ranks stop
/// alike (no rank left waiting in a collective for one that threw) and the one error line a run shows
/// (rank 0's) names the rank that failed and its numbers: whether the run fits each rank's memory
/// (host or GPU). Header-only like mpi_session.hpp; needs an app built with MPI (TCEMU_APPS_HAVE_MPI).
#if defined(TCEMU_APPS_HAVE_MPI)
#include <mpi.h>

#include <cfloat>
#include <string>

#include "tcemu/error.hpp"

namespace tcemu::app {

/// What worst_shortfall agreed: whether every rank fits, and if not which rank is short by the most,
/// whether it could not measure what it has at all, and its phrase.
struct Shortfall {
  bool fits = true;
  bool unknown = false;  ///< the worst rank could not measure (its short_by was +infinity)
  std::string text;      ///< "rank R: " + that rank's phrase; "" when every rank fits
};

/// Agrees over the ranks of `comm` on whether a run fits each rank's memory. Each rank passes the
/// bytes it is short by (`short_by` <= 0: it fits; +infinity: it could not measure) and one phrase
/// saying why (its numbers). Every rank gets the same answer: the rank short by the most and its
/// phrase. Collective (MPI_Allreduce with MPI_MAXLOC, then the phrase broadcast from that rank);
/// throws tcemu::Error when MPI fails.
inline Shortfall worst_shortfall(MPI_Comm comm, double short_by, const std::string& phrase) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  struct {
    double short_by;
    int rank;
  } worst{short_by, rank};
  if (MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm) != MPI_SUCCESS)
    throw tcemu::Error("MPI_Allreduce failed");
  Shortfall r;
  if (!(worst.short_by > 0)) return r;
  r.fits = false;
  r.unknown = !(worst.short_by <= DBL_MAX);
  int length = rank == worst.rank ? static_cast<int>(phrase.size()) : 0;
  if (MPI_Bcast(&length, 1, MPI_INT, worst.rank, comm) != MPI_SUCCESS) throw tcemu::Error("MPI_Bcast failed");
  std::string text = rank == worst.rank ? phrase : std::string(static_cast<std::size_t>(length), '\0');
  if (length > 0 && MPI_Bcast(text.data(), length, MPI_CHAR, worst.rank, comm) != MPI_SUCCESS)
    throw tcemu::Error("MPI_Bcast failed");
  r.text = "rank " + std::to_string(worst.rank) + ": " + text;
  return r;
}

/// How many ranks of `comm` (this one included) share this rank's host (MPI_COMM_TYPE_SHARED), and
/// so its free memory. Collective; throws tcemu::Error when MPI fails.
inline int ranks_on_my_host(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    throw tcemu::Error("MPI_Comm_split_type failed");
  int size = 1;
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  return size;
}

}  // namespace tcemu::app
#endif
