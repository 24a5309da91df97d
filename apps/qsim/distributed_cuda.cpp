// qsim over MPI ranks on GPUs (distributed.hpp): distributed_engine.hpp on Kokkos::Cuda, each rank on
// the GPU Kokkos chose for it (by default local rank mod GPU count), its global<->local swaps through
// NCCL (one GPU per rank; ncclSend / ncclRecv on the simulation's stream) or MPI through host memory
// (exchange.hpp). Compiled as CUDA in builds whose Kokkos has the CUDA backend; elsewhere
// simulate_distributed_cuda throws the one-line error of a build without the GPU path.
#include <Kokkos_Core.hpp>

#include <string>

#include "app_common/device.hpp"
#include "distributed.hpp"
#include "exchange.hpp"
#include "tcemu/error.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "app_common/mpi_agreement.hpp"
#include "app_common/mpi_gpu.hpp"
#include "app_common/nccl_comm.hpp"
#include "block_gemm_cuda.hpp"
#include "distributed_engine.hpp"
#include "exchange.hpp"
#if defined(TCEMU_QSIM_HAVE_NCCL)
#include <nccl.h>
#endif
#endif

namespace qsim {

#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)

namespace {

/// MPI through host memory for GPU buffers: device -> pinned host copy, mpi_exchange_bytes, pinned host
/// -> device copy (pinned: the copies run at PCIe speed, pageable ones at a fraction of it). The host
/// buffers grow to the largest exchange seen.
class StagedMpiExchange final : public SliceExchange {
 public:
  StagedMpiExchange(const Kokkos::Cuda& space, MPI_Comm comm) : space_(space), comm_(comm) {}
  void exchange(const void* send, void* recv, std::size_t bytes, int partner) override {
    using Bytes = Kokkos::View<char*, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    if (host_send_.extent(0) < bytes) {
      host_send_ = Pinned();  // free before allocating the larger pair
      host_recv_ = Pinned();
      host_send_ = Pinned(Kokkos::view_alloc(Kokkos::WithoutInitializing, "qsim::stage_send"), bytes);
      host_recv_ = Pinned(Kokkos::view_alloc(Kokkos::WithoutInitializing, "qsim::stage_recv"), bytes);
    }
    const auto range = std::make_pair(std::size_t(0), bytes);
    Kokkos::deep_copy(space_, Kokkos::subview(host_send_, range), Bytes(static_cast<char*>(const_cast<void*>(send)), bytes));
    space_.fence();
    mpi_exchange_bytes(host_send_.data(), host_recv_.data(), bytes, partner, comm_);
    Kokkos::deep_copy(space_, Bytes(static_cast<char*>(recv), bytes), Kokkos::subview(host_recv_, range));
    space_.fence();
  }
  std::string name() const override { return "mpi (through host memory)"; }

 private:
  using Pinned = Kokkos::View<char*, Kokkos::CudaHostPinnedSpace>;
  Kokkos::Cuda space_;
  MPI_Comm comm_;
  Pinned host_send_, host_recv_;
};

#if defined(TCEMU_QSIM_HAVE_NCCL)
/// NCCL between the ranks' GPUs: one communicator over `comm` (app_common/nccl_comm.hpp), each exchange
/// a grouped ncclSend / ncclRecv on `stream`, waited for.
class NcclExchange final : public SliceExchange {
 public:
  NcclExchange(MPI_Comm comm, cudaStream_t stream) : comm_(tcemu::app::nccl_comm_over(comm, "qsim")), stream_(stream) {}
  ~NcclExchange() override { ncclCommDestroy(comm_); }
  NcclExchange(const NcclExchange&) = delete;
  NcclExchange& operator=(const NcclExchange&) = delete;

  void exchange(const void* send, void* recv, std::size_t bytes, int partner) override {
    using tcemu::app::check_nccl;
    check_nccl(ncclGroupStart(), "qsim", "ncclGroupStart");
    check_nccl(ncclSend(send, bytes, ncclChar, partner, comm_, stream_), "qsim", "ncclSend");
    check_nccl(ncclRecv(recv, bytes, ncclChar, partner, comm_, stream_), "qsim", "ncclRecv");
    check_nccl(ncclGroupEnd(), "qsim", "ncclGroupEnd");
    const cudaError_t e = cudaStreamSynchronize(stream_);
    if (e != cudaSuccess) throw tcemu::DeviceError(std::string("qsim over NCCL: ") + cudaGetErrorString(e));
  }
  std::string name() const override { return "nccl"; }

 private:
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_;
};
constexpr bool kHaveNccl = true;
#else
constexpr bool kHaveNccl = false;
#endif

/// The transport of a GPU run (exchange.hpp, ExchangeChoice). Collective.
std::unique_ptr<SliceExchange> make_device_exchange(MPI_Comm comm, const Kokkos::Cuda& space) {
  const ExchangeChoice choice = agreed_exchange_choice(comm);
  const bool shared = tcemu::app::ranks_share_a_gpu(comm, space.cuda_device());
  if (choice == ExchangeChoice::mpi || (choice == ExchangeChoice::automatic && (shared || !kHaveNccl)))
    return std::make_unique<StagedMpiExchange>(space, comm);
  if (!kHaveNccl)
    throw tcemu::DeviceError("TCEMU_QSIM_EXCHANGE=nccl: this build of qsim has no NCCL (configure with TCEMU_WITH_NCCL=ON)");
  if (shared)
    throw tcemu::InvalidArgument("TCEMU_QSIM_EXCHANGE=nccl: two MPI ranks run on the same GPU, which NCCL refuses "
                                 "(start one rank per GPU, or set TCEMU_QSIM_EXCHANGE=mpi)");
#if defined(TCEMU_QSIM_HAVE_NCCL)
  return std::make_unique<NcclExchange>(comm, space.cuda_stream());
#else
  return nullptr;
#endif
}

}  // namespace

std::unique_ptr<SliceExchange> make_gpu_exchange(MPI_Comm comm) { return make_device_exchange(comm, Kokkos::Cuda()); }

template <class T>
DistributedResult<T> simulate_distributed_cuda(const DistributedPlan& plan, const SimOptions& options, MPI_Comm comm,
                                               SliceExchange* exchange) {
  Kokkos::Cuda space;
  const int L = plan.num_qubits - plan.global_qubits;
  const std::int64_t chunk = options.chunk_elements > 0 ? options.chunk_elements : kSingleBufferChunk;
  const std::int64_t piece = L > 0 ? std::min<std::int64_t>(std::int64_t(1) << (L - 1), chunk) : 1;
  // The swap's send and receive pieces come out of the memory the slice's buffers may use, and ranks
  // that share this GPU share its free memory.
  const int sharing = tcemu::app::ranks_on_my_gpu(comm, space.cuda_device());
  // A rank whose GPU cannot be asked still takes part in the agreement (as short by +infinity), so
  // that no rank waits in it for one that threw.
  double short_by = HUGE_VAL;
  std::string phrase;
  GpuBufferPlan buffers;
  try {
    const double free_bytes =
        free_device_memory_bytes() / sharing - 2.0 * static_cast<double>(piece) * sizeof(std::complex<T>);
    buffers = plan_device_buffers<T>(L, free_bytes, options.buffers, options.chunk_elements);
    short_by = buffers.fits ? 0.0 : buffers.bytes_needed - free_bytes;
    phrase = "the slice of " + std::to_string(L) + " qubits (" + (sizeof(T) == 4 ? "complex64" : "complex128") + ") " +
             buffers.shortfall;
  } catch (const tcemu::DeviceError& e) {
    phrase = e.what();
  }
  const tcemu::app::Shortfall worst = tcemu::app::worst_shortfall(comm, short_by, phrase);
  if (!worst.fits) {  // every rank stops with the same error, naming the rank short by the most
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    const std::string text = "--device cuda over " + std::to_string(ranks) + " MPI ranks: " + worst.text;
    if (worst.unknown) throw tcemu::DeviceError(text);
    throw tcemu::InvalidArgument(text);
  }
  std::unique_ptr<SliceExchange> own;
  if (!exchange) {
    own = make_device_exchange(comm, space);
    exchange = own.get();
  }
  return engine::simulate_distributed_on<Kokkos::Cuda, T>(space, plan, plan.num_qubits, options, comm, *exchange,
                                                          buffers.mode, piece);
}

#else

namespace {
/// The device layer's reason (app_common/device.hpp), as the one-process --device check words it.
[[noreturn]] void no_gpu_path() { tcemu::app::throw_gpu_path_missing(tcemu::app::GpuPath::kokkos_cuda, "qsim"); }
}  // namespace

std::unique_ptr<SliceExchange> make_gpu_exchange(MPI_Comm) { no_gpu_path(); }

template <class T>
DistributedResult<T> simulate_distributed_cuda(const DistributedPlan&, const SimOptions&, MPI_Comm, SliceExchange*) {
  no_gpu_path();
}

#endif

bool nccl_built() {
#if defined(TCEMU_QSIM_HAVE_NCCL) && defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
  return true;
#else
  return false;
#endif
}

template DistributedResult<float> simulate_distributed_cuda<float>(const DistributedPlan&, const SimOptions&, MPI_Comm,
                                                                   SliceExchange*);
template DistributedResult<double> simulate_distributed_cuda<double>(const DistributedPlan&, const SimOptions&, MPI_Comm,
                                                                     SliceExchange*);

}  // namespace qsim
