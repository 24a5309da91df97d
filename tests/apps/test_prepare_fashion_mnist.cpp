// scripts/prepare_fashion_mnist.py on small synthetic IDX files: layout of both output files, exact
// neighbours with ties broken by the smaller train index, IDX validation, idempotence.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <random>

#include "../io/temp_dir.hpp"
#include "knn_fixtures.hpp"
#include "app_common/io/hdf5.hpp"

namespace {

using tcemu::testing::TempDir;

constexpr int kSide = 4;  // 4 x 4 "images"
constexpr int kPixels = kSide * kSide;
constexpr int kTrain = 120, kTest = 10, kNeighbors = 5;

void put_be32(std::ofstream& f, std::uint32_t v) {
  const unsigned char b[4] = {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16),
                              static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
  f.write(reinterpret_cast<const char*>(b), 4);
}

/// Writes a gzip-compressed IDX file (magic, dims, unsigned bytes).
void write_idx_gz(const std::string& path, std::uint32_t magic, const std::vector<std::uint32_t>& dims,
                  const std::vector<std::uint8_t>& bytes) {
  {
    std::ofstream f(path, std::ios::binary);
    put_be32(f, magic);
    for (auto d : dims) put_be32(f, d);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  ASSERT_EQ(std::system(("gzip -f '" + path + "'").c_str()), 0);
}

/// The script in this source tree: $TCEMU_SOURCE_DIR, or three levels above this file
/// (tests/apps/<file>; CMake compiles it by absolute path).
std::string script() {
  const char* src = std::getenv("TCEMU_SOURCE_DIR");
  const std::filesystem::path root =
      src ? std::filesystem::path(src) : std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
  return (root / "scripts" / "prepare_fashion_mnist.py").string();
}

class PrepareFashionMnist : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(script())) << script();
    // The script needs Debian's python3-numpy and python3-h5py (scripts/setup.sh installs them); a
    // machine without them (e.g. the lent GPU image) cannot run it at all.
    if (std::system("/usr/bin/python3 -c 'import numpy, h5py' > /dev/null 2>&1") != 0)
      GTEST_SKIP() << "/usr/bin/python3 lacks numpy/h5py";
    std::filesystem::create_directories(src_.path() / "in");
    std::filesystem::create_directories(src_.path() / "out");
    // Pixels 0..7 on a coarse grid so that many squared distances tie exactly.
    std::mt19937 gen(3);
    std::uniform_int_distribution<int> px(0, 7);
    train_.resize(kTrain * kPixels);
    test_.resize(kTest * kPixels);
    for (auto& v : train_) v = static_cast<std::uint8_t>(px(gen) * 36);
    for (auto& v : test_) v = static_cast<std::uint8_t>(px(gen) * 36);
    for (int j = 0; j < kPixels; ++j) train_[50 * kPixels + j] = train_[7 * kPixels + j];  // a duplicate
    for (int i = 0; i < kTrain; ++i) train_labels_.push_back(static_cast<std::uint8_t>(i % 10));
    for (int i = 0; i < kTest; ++i) test_labels_.push_back(static_cast<std::uint8_t>((i * 3) % 10));
  }
  void write_inputs(std::uint32_t train_image_magic = 0x803) {
    const std::string in = (src_.path() / "in").string();
    write_idx_gz(in + "/train-images-idx3-ubyte", train_image_magic, {kTrain, kSide, kSide}, train_);
    write_idx_gz(in + "/train-labels-idx1-ubyte", 0x801, {kTrain}, train_labels_);
    write_idx_gz(in + "/t10k-images-idx3-ubyte", 0x803, {kTest, kSide, kSide}, test_);
    write_idx_gz(in + "/t10k-labels-idx1-ubyte", 0x801, {kTest}, test_labels_);
  }
  knn_test::Ran prepare(const std::string& extra = "") {
    const std::string args = "--source-dir '" + (src_.path() / "in").string() + "' --out-dir '" +
                             (src_.path() / "out").string() + "' --neighbors " + std::to_string(kNeighbors) +
                             " --batch 4 " + extra;
    const std::string out = (src_.path() / "stdout.txt").string(), err = (src_.path() / "stderr.txt").string();
    const int raw = std::system(("/usr/bin/python3 '" + script() + "' " + args + " >'" + out + "' 2>'" + err + "'").c_str());
    return knn_test::Ran{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, knn_test::slurp(out), knn_test::slurp(err)};
  }
  std::string out_file(const std::string& name) const { return (src_.path() / "out" / name).string(); }

  TempDir src_;
  std::vector<std::uint8_t> train_, test_, train_labels_, test_labels_;
};

TEST_F(PrepareFashionMnist, WritesBothFilesWithExactNeighbours) {
  write_inputs();
  const auto r = prepare();
  ASSERT_EQ(r.status, 0) << r.err << r.out;

  tcemu::app::io::Reader f(out_file("fashion-mnist-784-euclidean.h5"));
  EXPECT_EQ(f.string_attribute("/", "distance"), std::optional<std::string>("euclidean"));  // h5py's vlen str
  EXPECT_EQ(f.info("/train").dtype, tcemu::app::io::DType::float32);
  EXPECT_EQ(f.info("/neighbors").dtype, tcemu::app::io::DType::int32);
  const auto train = f.read<float>("/train", 2);
  const auto test = f.read<float>("/test", 2);
  ASSERT_EQ(train.shape, (std::vector<std::int64_t>{kTrain, kPixels}));
  ASSERT_EQ(test.shape, (std::vector<std::int64_t>{kTest, kPixels}));
  for (std::size_t i = 0; i < train_.size(); ++i) ASSERT_EQ(train.data[i], float(train_[i]));
  for (std::size_t i = 0; i < test_.size(); ++i) ASSERT_EQ(test.data[i], float(test_[i]));

  knn::Dataset data;
  data.n = kTrain;
  data.q = kTest;
  data.d = kPixels;
  data.train = train.data;
  data.queries = test.data;
  std::vector<double> sq;
  const auto truth = knn_test::brute_force(data, kNeighbors, &sq);  // ties -> smaller index
  const auto nb = f.read<std::int32_t>("/neighbors", 2);
  EXPECT_EQ(nb.shape, (std::vector<std::int64_t>{kTest, kNeighbors}));
  EXPECT_EQ(nb.data, truth);
  const auto dist = f.read<float>("/distances", 2);
  for (std::size_t e = 0; e < sq.size(); ++e) EXPECT_EQ(dist.data[e], static_cast<float>(std::sqrt(sq[e])));
  bool any_tie = false;  // the fixture really exercises tie-breaking
  for (std::size_t e = 0; e + 1 < sq.size(); ++e) any_tie |= (e + 1) % kNeighbors != 0 && sq[e] == sq[e + 1];
  EXPECT_TRUE(any_tie);

  tcemu::app::io::Reader km(out_file("fashion-mnist-kmeans.h5"));
  const auto all = km.read<float>("/data", 2);
  const auto labels = km.read<std::int32_t>("/labels", 1);
  ASSERT_EQ(all.shape, (std::vector<std::int64_t>{kTrain + kTest, kPixels}));
  ASSERT_EQ(labels.shape, (std::vector<std::int64_t>{kTrain + kTest}));
  EXPECT_EQ(all.data[kTrain * kPixels + 3], float(test_[3]));  // test images follow the train images
  EXPECT_EQ(labels.data[kTrain + 1], test_labels_[1]);
  EXPECT_EQ(labels.data[11], train_labels_[11]);

  const auto again = prepare();  // idempotent: nothing rewritten
  EXPECT_EQ(again.status, 0);
  EXPECT_NE(again.out.find("exist"), std::string::npos) << again.out;
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(src_.path() / "out")) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"fashion-mnist-784-euclidean.h5", "fashion-mnist-kmeans.h5"}));
}

TEST_F(PrepareFashionMnist, RejectsABadMagicNumberWithOneLine) {
  write_inputs(0x801);  // a labels magic where an images file is expected
  const auto r = prepare();
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("prepare_fashion_mnist: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("train-images-idx3-ubyte.gz"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bad IDX magic number 0x00000801 (expected 0x00000803)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(src_.path() / "out"));
}

TEST_F(PrepareFashionMnist, RejectsMissingInput) {
  const auto r = prepare();  // no inputs written
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("train-images-idx3-ubyte.gz: no such file"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(src_.path() / "out"));
}

}  // namespace
