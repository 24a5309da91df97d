// Host probe: the cost of copying auto's Plan (what every auto call does when it puts the cached plan
// of its shape into its GemmReport), for an FP32 and an FP64 target at 1024^3 on the host cost model.
// Build and run from the repository root against a CPU build in build-warm (Debian Kokkos):
//   g++ -O2 -std=c++17 -Icore/include -I/usr/include/trilinos scripts/probes/plan_copy.cpp \
//       -o /tmp/plan_copy build-warm/core/libtcemu_core.a -ltrilinos_kokkoscore -lblas -llapack -ldl -lpthread
//   /tmp/plan_copy
#include <chrono>
#include <cstdio>

#include "tcemu/range_profile.hpp"
#include "tcemu/select.hpp"

int main() {
  using namespace tcemu;
  const RangeProfile a{}, b{};
  for (Target t : {Target::fp32, Target::fp64}) {
    const Plan p = plan(a, b, 1024, 1024, 1024, t, CostModel::host());
    constexpr int kCopies = 100000;
    double sink = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCopies; ++i) {
      const Plan q = p;
      sink += static_cast<double>(q.candidates.size());
    }
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::printf("target %s: %zu candidates, %.3f us per Plan copy (%g)\n", to_string(t), p.candidates.size(),
                us / kCopies, sink);
  }
}
