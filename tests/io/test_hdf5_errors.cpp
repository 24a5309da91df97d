// Every bad-input case of the HDF5 layer ends in one IoError line that names the file, the dataset
// (where there is one) and the problem.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "app_common/io/hdf5.hpp"
#include "temp_dir.hpp"

namespace {

using tcemu::IoError;
using tcemu::app::io::Reader;
using tcemu::app::io::Writer;
using tcemu::testing::TempDir;

/// Runs f, expects an IoError, checks that its message is one line containing every `part`.
void expect_io_error(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no IoError thrown; expected one mentioning " << parts.front();
  } catch (const IoError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

/// A file with one dataset of each problem kind.
std::string make_fixture(const TempDir& dir) {
  const std::string path = dir.file("fixture.h5");
  Writer w(path);
  w.write("/vec", std::vector<float>{1.f, 2.f, 3.f}, {3});
  w.write("/mat", std::vector<float>{1.f, 2.f, 3.f, 4.f}, {2, 2});
  w.write("/ints", std::vector<std::int32_t>{1, 2, 3, 4}, {2, 2});
  w.write("/floats64", std::vector<double>{0.5, 1.5}, {1, 2});
  w.write("/big", std::vector<std::int64_t>{1, std::int64_t{1} << 40}, {2});
  w.write("/empty", std::vector<float>{}, {0, 784});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  w.write("/nan", std::vector<float>{0.f, 1.f, 2.f, 3.f, 4.f, nan}, {2, 3});
  w.write("/inf1", std::vector<double>{0.0, -static_cast<double>(inf)}, {2});
  w.write("/grp/x", std::vector<float>{1.f}, {1});
  w.write_int_attribute("/", "count", 3);
  w.write_string_attribute("/", "name", "fixture");
  w.commit();
  return path;
}

TEST(Hdf5Errors, MissingFile) {
  TempDir dir;
  const std::string path = dir.file("does-not-exist.h5");
  expect_io_error([&] { Reader r(path); }, {path, "cannot open", "No such file"});
}

TEST(Hdf5Errors, DirectoryInsteadOfFile) {
  TempDir dir;
  const std::string path = dir.path().string();
  expect_io_error([&] { Reader r(path); }, {path, "cannot open", "directory"});
}

TEST(Hdf5Errors, NotAnHdf5File) {
  TempDir dir;
  const std::string path = dir.file("text.h5");
  { std::ofstream(path) << "P2\n1 1\n255\n0\n"; }
  expect_io_error([&] { Reader r(path); }, {path, "not an HDF5 file"});
}

TEST(Hdf5Errors, MissingDataset) {
  TempDir dir;
  const std::string path = make_fixture(dir);
  Reader r(path);
  expect_io_error([&] { r.read<float>("/train", 2); }, {path, "dataset /train", "not found"});
  expect_io_error([&] { r.read<float>("/no/such", 2); }, {path, "dataset /no/such", "not found"});
  expect_io_error([&] { r.info("/test"); }, {path, "dataset /test", "not found"});
  expect_io_error([&] { r.read<float>("/grp", 1); }, {path, "dataset /grp", "group"});
}

TEST(Hdf5Errors, WrongRank) {
  TempDir dir;
  const std::string path = make_fixture(dir);
  Reader r(path);
  expect_io_error([&] { r.read<float>("/vec", 2); },
                  {path, "dataset /vec", "expected rank 2", "found rank 1"});
  expect_io_error([&] { r.read<float>("/mat", 1); },
                  {path, "dataset /mat", "expected rank 1", "found rank 2", "2x2"});
}

TEST(Hdf5Errors, WrongTypeClass) {
  TempDir dir;
  const std::string path = make_fixture(dir);
  Reader r(path);
  expect_io_error([&] { r.read<float>("/ints", 2); },
                  {path, "dataset /ints", "expected float32 or float64", "int32"});
  expect_io_error([&] { r.read<double>("/ints", 2); }, {path, "dataset /ints", "int32"});
  expect_io_error([&] { r.read<std::int32_t>("/floats64", 2); },
                  {path, "dataset /floats64", "expected int32 or int64", "float64"});
  expect_io_error([&] { r.read<std::int32_t>("/big", 1); },
                  {path, "dataset /big", "does not fit in int32"});
}

TEST(Hdf5Errors, EmptyDataset) {
  TempDir dir;
  const std::string path = make_fixture(dir);
  Reader r(path);
  EXPECT_EQ(r.info("/empty").shape, (std::vector<std::int64_t>{0, 784}));
  expect_io_error([&] { r.read<float>("/empty", 2); }, {path, "dataset /empty", "empty", "0x784"});
}

TEST(Hdf5Errors, NonFiniteValues) {
  TempDir dir;
  const std::string path = make_fixture(dir);
  Reader r(path);
  const auto nan = r.read<float>("/nan", 2);  // reading is fine; validation is explicit
  expect_io_error([&] { tcemu::app::io::require_finite(nan, path, "/nan"); },
                  {path, "dataset /nan", "element [1,2]", "nan", "NaN/Inf not allowed"});
  const auto inf = r.read<double>("/inf1", 1);
  expect_io_error([&] { tcemu::app::io::require_finite(inf, path, "/inf1"); },
                  {path, "dataset /inf1", "element [1]", "-inf"});
  EXPECT_NO_THROW(tcemu::app::io::require_finite(r.read<float>("/mat", 2), path, "/mat"));
  EXPECT_NO_THROW(tcemu::app::io::require_finite(r.read<std::int32_t>("/ints", 2), path, "/ints"));
}

TEST(Hdf5Errors, AttributesOfTheWrongKind) {
  TempDir dir;
  const std::string path = make_fixture(dir);
  Reader r(path);
  expect_io_error([&] { r.string_attribute("/", "count"); }, {path, "attribute count", "not a string"});
  expect_io_error([&] { r.int_attribute("/", "name"); }, {path, "attribute name", "not an integer"});
  expect_io_error([&] { r.string_attribute("/nothing", "x"); }, {path, "/nothing", "not found"});
}

TEST(Hdf5Errors, WriterProblems) {
  TempDir dir;
  const std::string bad = dir.file("no-such-dir/out.h5");
  expect_io_error([&] { Writer w(bad); }, {bad, "cannot create", "No such file"});
  EXPECT_TRUE(dir.entries().empty());

  const std::string path = dir.file("w.h5");
  {
    Writer w(path);
    w.write("/a", std::vector<float>{1.f}, {1});
    expect_io_error([&] { w.write("/a", std::vector<float>{1.f}, {1}); }, {path, "dataset /a", "already exists"});
    expect_io_error([&] { w.write("/b", std::vector<float>{1.f, 2.f}, {3}); },
                    {path, "dataset /b", "holds 3 elements but 2"});
    expect_io_error([&] { w.write("/c", std::vector<float>{1.f}, {1, 1, 1}); }, {path, "dataset /c", "rank 3"});
    expect_io_error([&] { w.write("/a/x", std::vector<float>{1.f}, {1}); }, {path, "dataset /a/x"});
    expect_io_error([&] { w.write_string_attribute("/missing", "k", "v"); }, {path, "/missing", "not found"});
  }
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace

namespace {

// A file whose global heap claims a 1 GiB string: libhdf5 1.10 copies that many bytes out of a small
// buffer in H5HG_read (SIGSEGV) when the attribute is read. Reader's validating child takes the crash.
TEST(Hdf5Errors, CorruptGlobalHeapIsAnErrorNotACrash) {
  TempDir dir;
  const std::string path = dir.file("corrupt-heap.h5");
  {
    Writer w(path);
    w.write<float>("/x", {1.0f, 2.0f}, {2});
    w.write_string_attribute("/x", "name", "a variable-length string in the global heap");
    w.commit();
  }
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::size_t heap = bytes.find("GCOL");
  ASSERT_NE(heap, std::string::npos);
  // Collection header (16 bytes), then the first object's index (2), reference count (2), reserved (4)
  // and its size (8, little-endian).
  const std::uint64_t huge = std::uint64_t{1} << 30;
  for (int b = 0; b < 8; ++b) bytes[heap + 24 + b] = static_cast<char>((huge >> (8 * b)) & 0xff);
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes; }
  expect_io_error([&] { Reader r(path); (void)r.string_attribute("/x", "name"); },
                  {path, "corrupt HDF5 file", "/x"});
}

// Non-regular files are refused before HDF5 opens them (a FIFO would block H5Fis_hdf5 forever).
TEST(Hdf5Errors, DevicesAreNotRead) {
  expect_io_error([&] { Reader r("/dev/zero"); }, {"/dev/zero", "cannot open", "character device"});
}

}  // namespace
