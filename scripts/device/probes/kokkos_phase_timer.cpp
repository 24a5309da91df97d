// A minimal Kokkos Tools library (loaded with KOKKOS_TOOLS_LIBS=<this .so>): the wall time of every
// Kokkos kernel and deep_copy by name, and the gap before each (the non-Kokkos work that ran in between:
// for kmeans the distance GEMM and the argmin of tcemu::nearest), printed to stderr at finalize.
// Kokkos fences around every kernel while a tool is loaded (requires_global_fencing), so the times are
// the kernels' own, and the program runs slower than without it: use it for a breakdown, not for timing.
// Build: g++ -O2 -shared -fPIC -o libkokkos_phase_timer.so kokkos_phase_timer.cpp
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
struct Entry {
  double seconds = 0, gap_before = 0;
  long calls = 0;
};
std::map<std::string, Entry> entries;
std::vector<std::pair<std::string, Clock::time_point>> open;
Clock::time_point last_end = Clock::now();

void begin(const std::string& name, uint64_t* id) {
  const auto now = Clock::now();
  entries[name].gap_before += std::chrono::duration<double>(now - last_end).count();
  open.emplace_back(name, now);
  if (id) *id = open.size() - 1;
}
void end() {
  if (open.empty()) return;
  const auto now = Clock::now();
  Entry& e = entries[open.back().first];
  e.seconds += std::chrono::duration<double>(now - open.back().second).count();
  ++e.calls;
  open.pop_back();
  last_end = now;
}

}  // namespace

struct Kokkos_Tools_ToolSettings {
  bool requires_global_fencing;
  bool padding[255];
};
struct Kokkos_Profiling_SpaceHandle {
  char name[64];
};

extern "C" {
void kokkosp_request_tool_settings(const uint32_t, Kokkos_Tools_ToolSettings* settings) {
  settings->requires_global_fencing = true;
}
void kokkosp_begin_parallel_for(const char* name, uint32_t, uint64_t* id) { begin(name, id); }
void kokkosp_end_parallel_for(uint64_t) { end(); }
void kokkosp_begin_parallel_reduce(const char* name, uint32_t, uint64_t* id) { begin(name, id); }
void kokkosp_end_parallel_reduce(uint64_t) { end(); }
void kokkosp_begin_parallel_scan(const char* name, uint32_t, uint64_t* id) { begin(name, id); }
void kokkosp_end_parallel_scan(uint64_t) { end(); }
void kokkosp_begin_deep_copy(Kokkos_Profiling_SpaceHandle dst, const char* dst_name, const void*,
                             Kokkos_Profiling_SpaceHandle src, const char* src_name, const void*, uint64_t) {
  begin(std::string("deep_copy ") + src.name + ":" + src_name + " -> " + dst.name + ":" + dst_name, nullptr);
}
void kokkosp_end_deep_copy() { end(); }
void kokkosp_finalize_library() {
  std::vector<std::pair<std::string, Entry>> sorted(entries.begin(), entries.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.second.seconds + a.second.gap_before >
                                                      b.second.seconds + b.second.gap_before; });
  std::fprintf(stderr, "kokkos_phase_timer: %-70s %8s %12s %14s\n", "kernel or copy", "calls", "total_ms", "gap_before_ms");
  for (const auto& [name, e] : sorted)
    std::fprintf(stderr, "kokkos_phase_timer: %-70.70s %8ld %12.3f %14.3f\n", name.c_str(), e.calls, e.seconds * 1e3,
                 e.gap_before * 1e3);
}
}
