#pragma once
/// \file io/hdf5.hpp
/// HDF5 reading and writing of 1-D/2-D float32/float64/int32 datasets and string attributes, with
/// errors that name the file, the dataset and the problem (IoError). Datasets are row-major (C order),
/// as HDF5 and h5py store them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tcemu/error.hpp"
#include "tcemu/matrix.hpp"

namespace tcemu::app::io {

/// Element type stored in a dataset, as tcemu names it.
enum class DType { float32, float64, int32, int64, other };
/// "float32", "float64", "int32", "int64", or "other".
const char* to_string(DType t);

/// Shape and element type of a dataset.
struct DatasetInfo {
  std::vector<std::int64_t> shape;
  DType dtype = DType::other;
};

/// An in-memory dataset: row-major data and its shape (rank 1 or 2).
template <class T>
struct Array {
  std::vector<T> data;
  std::vector<std::int64_t> shape;

  std::int64_t rows() const { return shape.empty() ? 0 : shape[0]; }
  std::int64_t cols() const { return shape.size() < 2 ? 1 : shape[1]; }
  /// Row-major view (rank-1 arrays are seen as a column).
  MatrixView<const T> view() const { return row_major(data.data(), rows(), cols()); }
  MatrixView<T> view() { return row_major(data.data(), rows(), cols()); }
};

/// Read access to one HDF5 file. Opening a missing, non-regular (directory, FIFO, device) or non-HDF5
/// file throws IoError "<path>: cannot open: <reason>". Before the file is used, a forked child opens
/// it and reads every attribute and every chunked dataset the way the Reader would: malformed
/// metadata that crashes libhdf5 (its global-heap and chunk-index readers do) then costs the child,
/// and the constructor throws IoError "<path>: corrupt HDF5 file: the HDF5 library crashed reading
/// <object>" (or "did not finish reading <object> within N s": the child gets 10 s plus 1 s per 10 MB
/// of file, since malformed metadata can also make libhdf5 loop). Contiguous data (plain reads at
/// checked offsets) is not read twice.
class Reader {
 public:
  explicit Reader(const std::string& path);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  const std::string& path() const { return path_; }
  /// True if a dataset (not a group) of that absolute name exists, e.g. "/train".
  bool has_dataset(const std::string& name) const;
  /// Shape and type; throws IoError "<path>: dataset <name>: not found" when absent.
  DatasetInfo info(const std::string& name) const;
  /// Reads a dataset of rank `rank` (1 or 2). T = float/double accepts float32 and float64 datasets,
  /// T = std::int32_t accepts int32 and int64 (values must fit). Throws IoError naming path and dataset
  /// for: missing dataset, wrong rank, wrong type class (e.g. integers where floats are expected),
  /// an empty dataset (a zero extent), a shape whose element count overflows 64-bit sizes, or one
  /// that needs more memory than the machine has (a small chunked file can claim any shape).
  template <class T>
  Array<T> read(const std::string& name, int rank) const;
  /// String attribute `attr` of the object `object` ("/" for the file), or nullopt if absent.
  std::optional<std::string> string_attribute(const std::string& object, const std::string& attr) const;
  /// Integer attribute, or nullopt if absent.
  std::optional<std::int64_t> int_attribute(const std::string& object, const std::string& attr) const;

 private:
  std::string path_;
  std::int64_t file_ = -1;
};

/// Write access with all-or-nothing semantics: data go to "<path>.tmp.<pid>" (".tcemu-<pid>.tmp" in
/// the same directory when that name would be too long) and commit() renames it to `path`; a Writer
/// destroyed without commit() removes the temporary file, and so does SIGINT/SIGTERM once
/// remove_temporaries_on_signals() is installed (app_common/io/files.hpp), so no half-written output is
/// ever left behind.
class Writer {
 public:
  explicit Writer(const std::string& path);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  /// Writes a dataset (creating intermediate groups, e.g. "/fp16x2/neighbors"). `shape` has rank 1 or
  /// 2 and its product must equal data.size(). T: float, double, std::int32_t, std::int64_t.
  template <class T>
  void write(const std::string& name, const std::vector<T>& data, const std::vector<std::int64_t>& shape);
  /// Writes (or replaces) a string attribute on an existing object ("/" for the file).
  void write_string_attribute(const std::string& object, const std::string& attr, const std::string& value);
  /// Writes (or replaces) an integer attribute.
  void write_int_attribute(const std::string& object, const std::string& attr, std::int64_t value);
  /// Closes and renames the temporary file to the final path; throws IoError on failure.
  void commit();

 private:
  std::string path_, tmp_path_;
  std::int64_t file_ = -1;
  int temporary_slot_ = -1;  ///< tcemu::app::io::track_temporary's slot: removed on SIGINT/SIGTERM
  bool committed_ = false;
};

/// Throws IoError "<path>: dataset <name>: element [i,j] is <value> (NaN/Inf not allowed)" for the
/// first non-finite element.
template <class T>
void require_finite(const Array<T>& a, const std::string& path, const std::string& name);

}  // namespace tcemu::app::io
