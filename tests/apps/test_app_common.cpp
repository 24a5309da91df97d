// apps/common's helpers and core's checked sizes: escaping, number formatting, JSON text, the
// option validators, path checks, checked_mul and the execution policy read from the environment.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <string>

#include "../io/temp_dir.hpp"
#include "app_common/app_main.hpp"
#include "app_common/cli.hpp"
#include "app_common/environment.hpp"
#include "app_common/gemm_log.hpp"
#include "app_common/json.hpp"
#include "app_common/paths.hpp"
#include "app_common/sweep.hpp"
#include "app_common/table.hpp"
#include "app_common/text.hpp"
#include "app_common/timing.hpp"
#include "tcemu/checked.hpp"
#include "tcemu/error.hpp"
#include "tcemu/scheme.hpp"
#include "app_common/io/files.hpp"

namespace {

using tcemu::testing::TempDir;

TEST(AppText, ControlCharactersBecomeEscapes) {
  EXPECT_EQ(tcemu::app::escape_control("a\nb\tc\\d\x1b[0m\x7f"), "a\\nb\\tc\\\\d\\x1b[0m\\x7f");
  EXPECT_EQ(tcemu::app::escape_control("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 kept
  EXPECT_EQ(tcemu::app::escape_control(std::string(100, 'x'), 10), std::string(10, 'x') + "...");
}

TEST(AppText, NumbersPrintInTheirShortestExactForm) {
  EXPECT_EQ(tcemu::app::format_number(1e-7), "1e-07");  // "%f" printed 0.000000
  EXPECT_EQ(tcemu::app::format_number(0.5), "0.5");
  EXPECT_EQ(std::stod(tcemu::app::format_number(0.1 + 0.2)), 0.1 + 0.2);
}

TEST(AppJson, TextIsOneLineWithEscapesInsertionOrderAndNullForNonFinite) {
  const tcemu::app::Json v = {{"z", "a\"b\\c\n\x01"}, {"a", std::nan("")}, {"m", 1.5}};
  EXPECT_EQ(tcemu::app::json_text(v), "{\"z\":\"a\\\"b\\\\c\\n\\u0001\",\"a\":null,\"m\":1.5}");
  // Bytes that are not UTF-8 become U+FFFD instead of making the report invalid JSON.
  EXPECT_EQ(tcemu::app::json_text(tcemu::app::Json("x\xff")), "\"x\xef\xbf\xbd\"");
}

TEST(AppGemmLog, FoldsReportsInOrderOfFirstUseWithCountsAndTheFirstFallbackNote) {
  tcemu::app::GemmLog log;
  EXPECT_EQ(log.used_names(), "");
  EXPECT_EQ(log.used_counts(), "-");
  auto report = [](const char* used, const char* note) {
    tcemu::GemmReport r;
    r.used = tcemu::parse_scheme(used);
    r.fell_back = note != nullptr;
    r.note = note ? note : "";
    return r;
  };
  log.add(report("fp16x2", nullptr));
  EXPECT_EQ(log.used_counts(), "fp16x2");
  log.add(report("fp32", "operand A: first"));
  log.add(report("fp16x2", nullptr));
  log.add(report("fp32", "operand B: second"));
  EXPECT_EQ(log.calls, 4);
  EXPECT_EQ(log.fallbacks, 2);
  EXPECT_EQ(log.first_note, "operand A: first");
  EXPECT_EQ(log.used_names(), "fp16x2+fp32");
  EXPECT_EQ(log.used_counts(), "fp16x2 x2, fp32 x2");
}

TEST(AppTable, ColumnsFitTheirWidestCellNamesLeftNumbersRight) {
  using Align = tcemu::app::Table::Align;
  tcemu::app::Table t({{"scheme", Align::left}, {"time_ms", Align::right}, {"note", Align::left}});
  t.add_row({"fp16x2-aligned", tcemu::app::cell("%.1f", 3.14159), ""});
  t.add_row({"fp32", tcemu::app::cell("%.1f", 1234.5), "baseline"});
  EXPECT_EQ(t.str(),
            "scheme          time_ms  note\n"
            "fp16x2-aligned      3.1\n"
            "fp32             1234.5  baseline\n");
  EXPECT_THROW(t.add_row({"too", "few"}), tcemu::InvalidArgument);
}

TEST(AppTiming, MediansOfOddAndEvenCountsAndTheMedianElement) {
  EXPECT_EQ(tcemu::app::median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(tcemu::app::median({4.0, 1.0, 2.0, 3.0}), 2.5);
  EXPECT_THROW(tcemu::app::median({}), tcemu::InvalidArgument);
  const std::vector<std::pair<double, char>> runs = {{3.0, 'c'}, {1.0, 'a'}, {4.0, 'd'}, {2.0, 'b'}};
  EXPECT_EQ(tcemu::app::median_element(runs, [](const auto& r) { return r.first; }).second, 'c');  // upper middle
}

TEST(AppSweep, ReferencesOpenTheJobEachNameRunsOnceAndRolesFollowTheScheme) {
  const auto list = [](const char* names) { return tcemu::parse_scheme_list(names, tcemu::Target::fp32); };
  const std::vector<tcemu::app::SweepReference> refs = {{tcemu::parse_scheme("fp64"), "ground truth"},
                                                        {tcemu::parse_scheme("fp32"), "baseline"}};
  auto names = [](const std::vector<tcemu::app::SweepEntry>& order) {
    std::string s;
    for (const auto& e : order) s += e.scheme.name + (e.requested ? "" : "*") + (e.role.empty() ? "" : "(" + e.role + ")") + " ";
    return s;
  };
  EXPECT_EQ(names(tcemu::app::sweep_order(list("fp16x2,fp32,fp16x2"), refs)),
            "fp64*(ground truth) fp32(baseline) fp16x2 ");
  EXPECT_EQ(names(tcemu::app::sweep_order(list("fp16x2,fp32"), refs, tcemu::app::ReferencePlace::as_requested)),
            "fp64*(ground truth) fp16x2 fp32(baseline) ");
  EXPECT_EQ(tcemu::app::speedup(3.0, 1.5), 2.0);
  EXPECT_EQ(tcemu::app::speedup(3.0, 0.0), 0.0);
}

TEST(AppMain, CommonOptionsParseNamingTheirOption) {
  tcemu::app::CommonOptions o;
  o.scheme_list = "fp32,fp16x2";
  EXPECT_EQ(o.schemes().size(), 2u);
  o.device_name = "host";
  EXPECT_EQ(o.device(), tcemu::app::Device::host);
  o.scheme_list = "nonsense";
  try {
    o.schemes();
    ADD_FAILURE() << "an unknown scheme was accepted";
  } catch (const tcemu::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--scheme: ", 0), 0u) << e.what();
  }
  o.target_name = "fp16";
  EXPECT_THROW(o.target(), tcemu::InvalidArgument);
  o.device_name = "tpu";
  try {
    o.device();
    ADD_FAILURE() << "--device tpu was accepted";
  } catch (const tcemu::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--device 'tpu'", 0), 0u) << e.what();
  }
}

TEST(AppCli, ValidatorsRejectNanInfAndOutOfRange) {
  auto check = [](const CLI::Validator& v, std::string text) { return v(text); };
  EXPECT_EQ(check(tcemu::app::positive(), "3"), "");
  EXPECT_NE(check(tcemu::app::positive(), "0"), "");
  EXPECT_NE(check(tcemu::app::positive(), "nan"), "");
  EXPECT_NE(check(tcemu::app::non_negative(), "inf"), "");
  EXPECT_NE(check(tcemu::app::non_negative(), "-1e-300"), "");
  EXPECT_EQ(check(tcemu::app::non_negative(), "0"), "");
  EXPECT_NE(check(tcemu::app::integer_in(1, 9), "10"), "");
  EXPECT_NE(check(tcemu::app::positive(), "12abc"), "");
  EXPECT_LT(check(tcemu::app::positive(), "-1e308").size(), 80u);
}

TEST(AppPaths, InputsMustBeRegularFiles) {
  TempDir dir;
  const std::string fifo = dir.file("p"), file = dir.file("f");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  { std::ofstream(file) << "x"; }
  EXPECT_NO_THROW(tcemu::app::require_input_file(file));
  EXPECT_THROW(tcemu::app::require_input_file(fifo), tcemu::IoError);
  EXPECT_THROW(tcemu::app::require_input_file(dir.path().string()), tcemu::IoError);
  EXPECT_THROW(tcemu::app::require_input_file("/dev/zero"), tcemu::IoError);
  EXPECT_THROW(tcemu::app::require_input_file(dir.file("absent")), tcemu::IoError);
}

TEST(AppPaths, OutputsAreCheckedAgainstInputsByInode) {
  TempDir dir;
  const std::string in = dir.file("in"), link = dir.file("link");
  { std::ofstream(in) << "x"; }
  ASSERT_EQ(::link(in.c_str(), link.c_str()), 0);
  EXPECT_THROW(tcemu::app::require_output_file("--output", link, {in}), tcemu::InvalidArgument);
  EXPECT_THROW(tcemu::app::require_output_file("--output", dir.path().string() + "/./in", {in}), tcemu::InvalidArgument);
  EXPECT_NO_THROW(tcemu::app::require_output_file("--output", dir.file("new"), {in}));
  EXPECT_THROW(tcemu::app::require_output_file("--output", "", {in}), tcemu::InvalidArgument);
  EXPECT_THROW(tcemu::app::require_output_file("--output", dir.file("missing/x"), {in}), tcemu::IoError);
  EXPECT_THROW(tcemu::app::require_output_file("--output", "/dev/null", {in}), tcemu::IoError);
}

TEST(CheckedSizes, OverflowAndNegativeExtentsThrow) {
  constexpr std::int64_t big = std::int64_t{1} << 62;
  EXPECT_EQ(tcemu::checked_mul(big, 1, "x"), big);
  EXPECT_THROW(tcemu::checked_mul(big + 1, 4, "x"), tcemu::InvalidArgument);
  EXPECT_THROW(tcemu::checked_mul(-1, 4, "x"), tcemu::InvalidArgument);
  EXPECT_EQ(tcemu::checked_element_count({3, 4}, 8, "x"), 12);
  EXPECT_THROW(tcemu::checked_element_count({big, 2}, 4, "f.h5: dataset /d"), tcemu::InvalidArgument);
  try {
    tcemu::checked_element_count({big, 4}, 4, "f.h5: dataset /d");
  } catch (const tcemu::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("f.h5: dataset /d (shape 4611686018427387904 x 4)"), std::string::npos) << e.what();
  }
}

TEST(TextFiles, SizeLimitAndKindAreEnforced) {
  TempDir dir;
  const std::string f = dir.file("t.qasm");
  { std::ofstream(f) << std::string(100, 'a'); }
  EXPECT_EQ(tcemu::app::io::read_text_file(f, 100).size(), 100u);
  EXPECT_THROW(tcemu::app::io::read_text_file(f, 99), tcemu::IoError);
  EXPECT_THROW(tcemu::app::io::read_text_file("/dev/zero", 1u << 20), tcemu::IoError);
}

/// execution_policy_from over a fixed set of variables (the process environment is not touched).
tcemu::ExecutionPolicy policy_of(const std::map<std::string, std::string>& vars) {
  return tcemu::app::execution_policy_from([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(AppEnvironment, UnsetVariablesKeepTheDefaults) {
  const tcemu::ExecutionPolicy p = policy_of({}), d;
  EXPECT_EQ(p.kernels, d.kernels);
  EXPECT_EQ(p.fused_mma, d.fused_mma);
  EXPECT_EQ(p.accumulation_chunk, -1);
  EXPECT_TRUE(p.direct_to_c);
  EXPECT_EQ(p.ozaki_accumulator_bytes, d.ozaki_accumulator_bytes);
  EXPECT_EQ(p.complex, tcemu::ComplexMethod::automatic);
  EXPECT_EQ(p.crt_products, tcemu::CrtProducts::automatic);
  EXPECT_EQ(p.overlap, tcemu::Overlap::products_while_planning);
  EXPECT_EQ(p.orientation, tcemu::OrientationPolicy::layout);
  EXPECT_EQ(p.calibration, tcemu::CalibrationPolicy::measure_once);
  EXPECT_EQ(p.calibration_cache_dir, "");
}

TEST(AppEnvironment, EveryVariableSetsItsField) {
  const tcemu::ExecutionPolicy p = policy_of({{"TCEMU_CUDA_KERNELS", "multipass"},
                                              {"TCEMU_CUDA_FUSED_MMA", "mma.sync"},
                                              {"TCEMU_CUDA_CRT_PRODUCTS", "cublas"},
                                              {"TCEMU_CUDA_ACC_CHUNK", "0"},
                                              {"TCEMU_CUDA_DIRECT_C", "0"},
                                              {"TCEMU_CUDA_OZAKI_ACC_MB", "3"},
                                              {"TCEMU_CUDA_COMPLEX", "4m"},
                                              {"TCEMU_CUDA_OVERLAP", "none"},
                                              {"TCEMU_CUDA_ORIENTATION", "tiles"},
                                              {"TCEMU_AUTO_CALIBRATE", "0"},
                                              {"HOME", "/home/u"}});
  EXPECT_EQ(p.kernels, tcemu::CudaKernels::multipass);
  EXPECT_EQ(p.fused_mma, tcemu::FusedMma::mma_sync);
  EXPECT_EQ(p.crt_products, tcemu::CrtProducts::cublas);
  EXPECT_EQ(p.accumulation_chunk, 0);
  EXPECT_FALSE(p.direct_to_c);
  EXPECT_EQ(p.ozaki_accumulator_bytes, 3 << 20);
  EXPECT_EQ(p.complex, tcemu::ComplexMethod::four_m);
  EXPECT_EQ(p.overlap, tcemu::Overlap::none);
  EXPECT_EQ(p.orientation, tcemu::OrientationPolicy::tiles);
  EXPECT_EQ(p.calibration, tcemu::CalibrationPolicy::anchors);
  EXPECT_EQ(p.calibration_cache_dir, "/home/u/.cache/tcemu");
  EXPECT_EQ(policy_of({{"XDG_CACHE_HOME", "/c"}, {"HOME", "/home/u"}}).calibration_cache_dir, "/c/tcemu");
  EXPECT_EQ(policy_of({{"TCEMU_AUTO_CALIBRATE", "force"}}).calibration, tcemu::CalibrationPolicy::force);
  EXPECT_EQ(policy_of({{"TCEMU_CUDA_KERNELS", "fused"}}).kernels, tcemu::CudaKernels::fused);
  EXPECT_EQ(policy_of({{"TCEMU_CUDA_CRT_PRODUCTS", "wgmma"}}).crt_products, tcemu::CrtProducts::automatic);
  EXPECT_EQ(policy_of({{"TCEMU_CUDA_CRT_PRODUCTS", "wgmma-int32"}}).crt_products, tcemu::CrtProducts::wgmma_int32);
}

TEST(AppEnvironment, BadValuesNameTheVariable) {
  const std::map<std::string, std::string> bad[] = {{{"TCEMU_CUDA_KERNELS", "fast"}},
                                                    {{"TCEMU_CUDA_FUSED_MMA", "hmma"}},
                                                    {{"TCEMU_CUDA_CRT_PRODUCTS", "cutlass"}},
                                                    {{"TCEMU_CUDA_ACC_CHUNK", "-5"}},
                                                    {{"TCEMU_CUDA_ACC_CHUNK", "12x"}},
                                                    {{"TCEMU_CUDA_DIRECT_C", "no"}},
                                                    {{"TCEMU_CUDA_OZAKI_ACC_MB", "0"}},
                                                    {{"TCEMU_CUDA_OZAKI_ACC_MB", "99999999999999999999"}},
                                                    {{"TCEMU_CUDA_COMPLEX", "5m"}},
                                                    {{"TCEMU_CUDA_OVERLAP", "always"}},
                                                    {{"TCEMU_CUDA_ORIENTATION", "sideways"}},
                                                    {{"TCEMU_AUTO_CALIBRATE", "sometimes"}}};
  for (const auto& vars : bad) {
    const std::string name = vars.begin()->first;
    try {
      policy_of(vars);
      ADD_FAILURE() << "no error for " << name << "=" << vars.begin()->second;
    } catch (const tcemu::InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()).rfind(name + ": ", 0), 0u) << e.what();
    }
  }
}

}  // namespace
