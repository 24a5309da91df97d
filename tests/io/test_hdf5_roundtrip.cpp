// HDF5 round trips: what Writer writes, Reader reads back bit for bit; all-or-nothing commits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

#include "app_common/io/hdf5.hpp"
#include "temp_dir.hpp"

namespace {

using tcemu::app::io::Array;
using tcemu::app::io::DType;
using tcemu::app::io::Reader;
using tcemu::app::io::Writer;
using tcemu::testing::TempDir;

TEST(Hdf5RoundTrip, DatasetsOfEveryTypeAndRank) {
  TempDir dir;
  const std::string path = dir.file("round.h5");
  const std::vector<float> f2 = {1.5f, -2.25f, 3e-38f, 1e38f, 0.f, -0.f};  // 2 x 3
  const std::vector<double> d1 = {1.0 / 3.0, -1e-300, 1e300, 5e-324};
  const std::vector<std::int32_t> i2 = {0, -1, std::numeric_limits<std::int32_t>::max(),
                                        std::numeric_limits<std::int32_t>::min()};  // 4 x 1
  const std::vector<std::int64_t> l1 = {-5, 7, 1 << 30};
  {
    Writer w(path);
    w.write("/f2", f2, {2, 3});
    w.write("/grp/sub/d1", d1, {4});
    w.write("i2", i2, {4, 1});
    w.write("/l1", l1, {3});
    w.write("/f1", std::vector<float>{2.5f}, {1});
    w.write_string_attribute("/", "distance", "euclidean");
    w.write_string_attribute("/grp/sub/d1", "unit", "m^2");
    w.write_int_attribute("/", "dimension", 784);
    w.write_int_attribute("/f2", "negative", -(std::int64_t{1} << 40));
    w.write_string_attribute("/", "distance", "angular");  // replaces
    w.commit();
  }
  Reader r(path);
  EXPECT_EQ(r.path(), path);

  const Array<float> a = r.read<float>("/f2", 2);
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(a.rows(), 2);
  EXPECT_EQ(a.cols(), 3);
  ASSERT_EQ(a.data.size(), f2.size());
  for (std::size_t i = 0; i < f2.size(); ++i) {
    EXPECT_EQ(a.data[i], f2[i]) << i;
    EXPECT_EQ(std::signbit(a.data[i]), std::signbit(f2[i])) << i;
  }
  EXPECT_EQ(a.view()(1, 2), -0.f);
  EXPECT_EQ(a.view()(0, 1), -2.25f);

  const Array<double> d = r.read<double>("/grp/sub/d1", 1);
  EXPECT_EQ(d.shape, (std::vector<std::int64_t>{4}));
  EXPECT_EQ(d.data, d1);  // bit-exact, subnormal included

  const Array<std::int32_t> i = r.read<std::int32_t>("/i2", 2);
  EXPECT_EQ(i.shape, (std::vector<std::int64_t>{4, 1}));
  EXPECT_EQ(i.data, i2);

  // int64 datasets read as int32 when the values fit.
  const Array<std::int32_t> l = r.read<std::int32_t>("/l1", 1);
  EXPECT_EQ(l.data, (std::vector<std::int32_t>{-5, 7, 1 << 30}));

  // float32 read as double and float64 read as float convert.
  const Array<double> a64 = r.read<double>("/f2", 2);
  EXPECT_EQ(a64.data[0], 1.5);
  const Array<float> d32 = r.read<float>("/grp/sub/d1", 1);
  EXPECT_EQ(d32.data[0], static_cast<float>(1.0 / 3.0));

  EXPECT_EQ(r.read<float>("/f1", 1).data, std::vector<float>{2.5f});

  EXPECT_EQ(r.info("/f2").dtype, DType::float32);
  EXPECT_EQ(r.info("/grp/sub/d1").dtype, DType::float64);
  EXPECT_EQ(r.info("/i2").dtype, DType::int32);
  EXPECT_EQ(r.info("/l1").dtype, DType::int64);
  EXPECT_EQ(r.info("/i2").shape, (std::vector<std::int64_t>{4, 1}));
  EXPECT_STREQ(tcemu::app::io::to_string(DType::float64), "float64");

  EXPECT_TRUE(r.has_dataset("/f2"));
  EXPECT_TRUE(r.has_dataset("/grp/sub/d1"));
  EXPECT_FALSE(r.has_dataset("/grp"));          // a group, not a dataset
  EXPECT_FALSE(r.has_dataset("/grp/nothing"));
  EXPECT_FALSE(r.has_dataset("/no/such/path"));  // missing intermediate group

  EXPECT_EQ(r.string_attribute("/", "distance"), std::optional<std::string>("angular"));
  EXPECT_EQ(r.string_attribute("/grp/sub/d1", "unit"), std::optional<std::string>("m^2"));
  EXPECT_EQ(r.string_attribute("/", "absent"), std::nullopt);
  EXPECT_EQ(r.int_attribute("/", "dimension"), std::optional<std::int64_t>(784));
  EXPECT_EQ(r.int_attribute("/f2", "negative"), std::optional<std::int64_t>(-(std::int64_t{1} << 40)));
  EXPECT_EQ(r.int_attribute("/f2", "absent"), std::nullopt);
}

TEST(Hdf5RoundTrip, WriterWithoutCommitLeavesNothing) {
  TempDir dir;
  const std::string path = dir.file("never.h5");
  {
    Writer w(path);
    w.write("/x", std::vector<float>{1.f, 2.f}, {2});
    EXPECT_EQ(dir.entries().size(), 1u);  // only the temporary file exists while writing
    EXPECT_NE(dir.entries()[0], "never.h5");
  }
  EXPECT_TRUE(dir.entries().empty()) << "left behind: " << dir.entries()[0];
}

TEST(Hdf5RoundTrip, UncommittedWriterKeepsThePreviousFile) {
  TempDir dir;
  const std::string path = dir.file("keep.h5");
  {
    Writer w(path);
    w.write("/v", std::vector<double>{1.0}, {1});
    w.commit();
  }
  {
    Writer w(path);
    w.write("/v", std::vector<double>{2.0}, {1});
  }  // no commit: the old content survives, the temporary file is gone
  EXPECT_EQ(Reader(path).read<double>("/v", 1).data, std::vector<double>{1.0});
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"keep.h5"});
}

TEST(Hdf5RoundTrip, CommitReplacesAtomically) {
  TempDir dir;
  const std::string path = dir.file("swap.h5");
  { std::ofstream(path) << "old text, not HDF5"; }
  {
    Writer w(path);
    w.write("/v", std::vector<std::int32_t>{42}, {1});
    w.commit();
    w.commit();  // idempotent
  }
  EXPECT_EQ(Reader(path).read<std::int32_t>("/v", 1).data, std::vector<std::int32_t>{42});
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"swap.h5"});
}

}  // namespace
