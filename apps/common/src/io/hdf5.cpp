// HDF5 reading/writing for tcemu (see app_common/io/hdf5.hpp). Uses the HDF5 C API directly; every
// failure becomes one IoError line "<path>: dataset <name>: <problem>" (or "<path>: <problem>").
#include "app_common/io/hdf5.hpp"

#include <climits>
#include <filesystem>

#include "tcemu/checked.hpp"
#include "app_common/io/files.hpp"

#include <hdf5.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>
#include <new>

namespace tcemu::app::io {
namespace {

static_assert(sizeof(hid_t) == sizeof(std::int64_t), "tcemu stores hid_t in std::int64_t");

/// HDF5 prints its own error stack to stderr by default; tcemu reports errors itself. The first call
/// also tells HDF5 not to close files at exit: after an H5Fclose that failed (disk full, file size
/// limit) the library keeps a half-closed file whose exit-time clean-up crashes (HDF5 1.10,
/// H5F__close_cb), turning a clean error line into SIGSEGV. Every tcemu file is closed explicitly.
void silence_hdf5() {
  static const bool once = [] {
    H5dont_atexit();  // must precede the library's initialisation; harmless (an error code) after it
    return true;
  }();
  (void)once;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

/// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(Handle&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = -1; }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle& operator=(Handle&&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  Closer close_;
};

std::string normalized(const std::string& name) {
  return (name.empty() || name[0] != '/') ? "/" + name : name;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

[[noreturn]] void fail(const std::string& path, const std::string& name, const std::string& problem) {
  throw IoError(path + ": dataset " + name + ": " + problem);
}

/// True when every link on the way to `name` exists (H5Lexists fails on a missing intermediate).
bool link_path_exists(hid_t file, const std::string& name) {
  const std::string full = normalized(name);
  if (full == "/") return true;
  std::size_t pos = 0;
  while (true) {
    pos = full.find('/', pos + 1);
    const std::string prefix = full.substr(0, pos);
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (pos == std::string::npos) return true;
  }
}

DType dtype_of(hid_t type) {
  const H5T_class_t cls = H5Tget_class(type);
  const std::size_t size = H5Tget_size(type);
  if (cls == H5T_FLOAT) {
    if (size == 4) return DType::float32;
    if (size == 8) return DType::float64;
  } else if (cls == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_2) {
    if (size == 4) return DType::int32;
    if (size == 8) return DType::int64;
  }
  return DType::other;
}

std::string type_text(hid_t type) {
  const DType d = dtype_of(type);
  if (d != DType::other) return to_string(d);
  const std::size_t bits = H5Tget_size(type) * 8;
  switch (H5Tget_class(type)) {
    case H5T_INTEGER:
      return (H5Tget_sign(type) == H5T_SGN_2 ? "int" : "uint") + std::to_string(bits);
    case H5T_FLOAT: return "float" + std::to_string(bits);
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    default: return "an unsupported type";
  }
}

template <class T>
hid_t native_type() {
  if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
  else if constexpr (std::is_same_v<T, std::int32_t>) return H5T_NATIVE_INT32;
  else return H5T_NATIVE_INT64;
}

template <class T>
hid_t file_type() {
  if constexpr (std::is_same_v<T, float>) return H5T_IEEE_F32LE;
  else if constexpr (std::is_same_v<T, double>) return H5T_IEEE_F64LE;
  else if constexpr (std::is_same_v<T, std::int32_t>) return H5T_STD_I32LE;
  else return H5T_STD_I64LE;
}

/// Opens attribute `attr` of `object`, or returns an invalid handle when the attribute is absent.
Handle open_attribute(const std::string& path, hid_t file, const std::string& object,
                      const std::string& attr) {
  const std::string obj = normalized(object);
  if (!link_path_exists(file, obj)) throw IoError(path + ": object " + obj + ": not found");
  const htri_t exists = H5Aexists_by_name(file, obj.c_str(), attr.c_str(), H5P_DEFAULT);
  if (exists < 0) throw IoError(path + ": object " + obj + ": cannot query attribute " + attr);
  if (exists == 0) return Handle(-1, H5Aclose);
  Handle a(H5Aopen_by_name(file, obj.c_str(), attr.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!a.ok()) throw IoError(path + ": object " + obj + ": cannot open attribute " + attr);
  return a;
}

void require_single_value(const std::string& path, const std::string& object, const std::string& attr,
                          hid_t a) {
  Handle space(H5Aget_space(a), H5Sclose);
  if (H5Sget_simple_extent_npoints(space.get()) != 1)
    throw IoError(path + ": object " + normalized(object) + ": attribute " + attr +
                  " is not a single value");
}

}  // namespace

const char* to_string(DType t) {
  switch (t) {
    case DType::float32: return "float32";
    case DType::float64: return "float64";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    default: return "other";
  }
}

// ------------------------------------------------------------------------ validation in a child

namespace {

/// What the validating child reports to its parent through anonymous shared memory.
struct ProbeReport {
  char object[512];   ///< the object the child was reading last (names where it crashed)
  char message[512];  ///< a clean failure's message (status kProbeFailed)
};
constexpr int kProbeFailed = 3;
constexpr long kMaxProbedObjects = 100000;
constexpr hsize_t kProbeBlockBytes = hsize_t{64} << 20;

struct ProbeWalk {
  ProbeReport* report;
  long objects = 0;
};

void probe_note(ProbeReport* report, const std::string& object) {
  std::snprintf(report->object, sizeof report->object, "%s", object.c_str());
}

[[noreturn]] void probe_fail(ProbeReport* report, const std::string& message) {
  std::snprintf(report->message, sizeof report->message, "%s", message.c_str());
  ::_exit(kProbeFailed);
}

/// Reads every attribute of `obj` the way Reader would (variable-length strings through the global
/// heap, where malformed heap addresses crash libhdf5 1.10).
herr_t probe_attribute(hid_t obj, const char* name, const H5A_info_t*, void* data) {
  auto* walk = static_cast<ProbeWalk*>(data);
  Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  if (!a.ok()) return 0;  // the real read reports it cleanly
  Handle type(H5Aget_type(a.get()), H5Tclose);
  Handle space(H5Aget_space(a.get()), H5Sclose);
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (!type.ok() || count < 0) return 0;
  if (H5Tget_class(type.get()) == H5T_STRING && H5Tis_variable_str(type.get()) > 0) {
    if (count != 1) return 0;
    Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));  // as Reader::string_attribute: same conversion path
    char* text = nullptr;
    if (H5Aread(a.get(), mem.get(), &text) >= 0 && text) H5free_memory(text);
    return 0;
  }
  if (H5Tdetect_class(type.get(), H5T_VLEN) > 0) return 0;  // never read by tcemu
  const std::size_t bytes = H5Tget_size(type.get()) * static_cast<std::size_t>(count);
  if (bytes > (std::size_t{1} << 26)) probe_fail(walk->report, "attribute " + std::string(name) + " is larger than 64 MiB");
  std::vector<unsigned char> buf(bytes + 1);
  H5Aread(a.get(), type.get(), buf.data());
  return 0;
}

/// Reads a chunked or compact dataset block by block (chunk indexes and filters are where corrupt
/// files crash libhdf5); contiguous data is read with plain pread and only needs to lie in the file.
void probe_dataset(ProbeWalk* walk, hid_t ds, const std::string& name) {
  Handle dcpl(H5Dget_create_plist(ds), H5Pclose);
  Handle space(H5Dget_space(ds), H5Sclose);
  Handle type(H5Dget_type(ds), H5Tclose);
  if (!dcpl.ok() || !space.ok() || !type.ok()) return;
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1 || rank > 2 || H5Tdetect_class(type.get(), H5T_VLEN) > 0) return;  // refused by read()
  hsize_t dims[2] = {0, 1};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (rank == 1) dims[1] = 1;
  const std::size_t elem = H5Tget_size(type.get());
  if (dims[0] == 0 || dims[1] == 0 || elem == 0 || elem > 16) return;
  if (H5Pget_layout(dcpl.get()) == H5D_CONTIGUOUS) return;
  // A claimed shape that read() refuses (overflow, more than the machine's memory) is not read here:
  // a tiny file can claim 2^62 rows of fill values.
  hsize_t total = 0;
  const std::uint64_t memory = physical_memory_bytes();
  if (__builtin_mul_overflow(dims[0], dims[1], &total) || __builtin_mul_overflow(total, hsize_t{8}, &total) ||
      (memory > 0 && total > memory))
    return;
  const hsize_t row_bytes = dims[1] * elem;
  if (row_bytes > kProbeBlockBytes) probe_fail(walk->report, "dataset " + name + ": rows larger than 64 MiB");
  const hsize_t rows_per_block = std::max<hsize_t>(1, kProbeBlockBytes / row_bytes);
  std::vector<unsigned char> buf(static_cast<std::size_t>(std::min(dims[0], rows_per_block) * row_bytes));
  for (hsize_t r0 = 0; r0 < dims[0]; r0 += rows_per_block) {
    const hsize_t rows = std::min(rows_per_block, dims[0] - r0);
    const hsize_t start[2] = {r0, 0}, count[2] = {rows, dims[1]};
    Handle fspace(H5Scopy(space.get()), H5Sclose);
    H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
    Handle mspace(H5Screate_simple(rank, count, nullptr), H5Sclose);
    if (H5Dread(ds, type.get(), mspace.get(), fspace.get(), H5P_DEFAULT, buf.data()) < 0) return;
  }
}

/// Visits one link: its object's attributes, and a dataset's chunked data.
template <class LinkInfo>
herr_t probe_link(hid_t group, const char* name, const LinkInfo*, void* data) {
  auto* walk = static_cast<ProbeWalk*>(data);
  if (++walk->objects > kMaxProbedObjects)
    probe_fail(walk->report, "more than " + std::to_string(kMaxProbedObjects) + " objects");
  const std::string object = std::string("/") + name;
  probe_note(walk->report, object);
  Handle obj(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
  if (!obj.ok()) return 0;  // dangling links are reported by the real read
  H5Aiterate2(obj.get(), H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, probe_attribute, walk);
  if (H5Iget_type(obj.get()) == H5I_DATASET) probe_dataset(walk, obj.get(), object);
  return 0;
}

/// Opens `path` and reads every object the way Reader would, in a forked child, so that a malformed
/// file that crashes libhdf5 (it does, in its metadata and global-heap readers) costs the child, not
/// the application. Throws IoError "<path>: corrupt HDF5 file: ..." naming the object being read when
/// the child died, or the child's own clean message.
void probe_in_child(const std::string& path) {
  void* mem = ::mmap(nullptr, sizeof(ProbeReport), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return;  // no isolation possible; the real reads still check what they read
  auto* report = new (mem) ProbeReport{};
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::munmap(mem, sizeof(ProbeReport));
    return;
  }
  if (pid == 0) {
    // Quiet: glibc's and the sanitizers' reports of a crash here would break the one-line error.
    const int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) ::dup2(devnull, STDERR_FILENO);
    probe_note(report, "/ (superblock)");
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file >= 0) {
      ProbeWalk walk{report};
      probe_note(report, "/");
      H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, probe_attribute, &walk);
      H5Lvisit(file, H5_INDEX_NAME, H5_ITER_NATIVE, probe_link, &walk);
    }
    ::_exit(0);  // no exit-time clean-up: it would touch the same (possibly corrupt) file again
  }
  // libhdf5 can also loop forever on malformed metadata: the child gets 10 s plus 1 s per 10 MB of
  // file (its reads are bounded by the file's size and the machine's memory bandwidth).
  struct stat st {};
  ::stat(path.c_str(), &st);
  const double limit_s = 10.0 + static_cast<double>(st.st_size) / 10e6;
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  bool timed_out = false;
  for (int sleep_us = 100;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit_s) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      timed_out = true;
      break;
    }
    ::usleep(sleep_us);
    sleep_us = std::min(sleep_us * 2, 20000);
  }
  const std::string object = report->object, message = report->message;
  ::munmap(mem, sizeof(ProbeReport));
  if (timed_out)
    throw IoError(path + ": corrupt HDF5 file: the HDF5 library did not finish reading " + object + " within " +
                  std::to_string(static_cast<int>(limit_s)) + " s");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kProbeFailed)
    throw IoError(path + ": cannot open: " + message);
  // A signal, or a sanitizer's exit status where the child was instrumented: either way libhdf5 broke.
  const std::string how = WIFSIGNALED(status) ? "crashed (signal " + std::to_string(WTERMSIG(status)) + ")"
                                              : "crashed (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
  throw IoError(path + ": corrupt HDF5 file: the HDF5 library " + how + " reading " + object);
}

}  // namespace

// ---------------------------------------------------------------------------------------- Reader

Reader::Reader(const std::string& path) : path_(path) {
  silence_hdf5();
  require_regular_file(path);  // a FIFO would block H5Fis_hdf5 forever
  if (H5Fis_hdf5(path.c_str()) <= 0) throw IoError(path + ": cannot open: not an HDF5 file");
  probe_in_child(path);
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0) throw IoError(path + ": cannot open: HDF5 could not open the file (unreadable or locked)");
}

Reader::~Reader() {
  if (file_ >= 0) H5Fclose(file_);
}

bool Reader::has_dataset(const std::string& name) const {
  const std::string full = normalized(name);
  if (!link_path_exists(file_, full)) return false;
  Handle obj(H5Oopen(file_, full.c_str(), H5P_DEFAULT), H5Oclose);
  return obj.ok() && H5Iget_type(obj.get()) == H5I_DATASET;
}

namespace {
/// Opens a dataset or throws "not found" / "is a group, not a dataset".
Handle open_dataset(const std::string& path, hid_t file, const std::string& name) {
  const std::string full = normalized(name);
  if (!link_path_exists(file, full)) fail(path, full, "not found");
  Handle obj(H5Oopen(file, full.c_str(), H5P_DEFAULT), H5Oclose);
  if (!obj.ok()) fail(path, full, "cannot open (dangling link or unreadable object)");
  if (H5Iget_type(obj.get()) != H5I_DATASET) fail(path, full, "is a group, not a dataset");
  Handle ds(H5Dopen2(file, full.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) fail(path, full, "cannot open dataset");
  return ds;
}

std::vector<std::int64_t> dataset_shape(const std::string& path, const std::string& name, hid_t ds) {
  Handle space(H5Dget_space(ds), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) fail(path, name, "cannot read its dataspace");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return std::vector<std::int64_t>(dims.begin(), dims.end());
}
}  // namespace

DatasetInfo Reader::info(const std::string& name) const {
  const std::string full = normalized(name);
  Handle ds = open_dataset(path_, file_, full);
  Handle type(H5Dget_type(ds.get()), H5Tclose);
  return DatasetInfo{dataset_shape(path_, full, ds.get()), dtype_of(type.get())};
}

template <class T>
Array<T> Reader::read(const std::string& name, int rank) const {
  const std::string full = normalized(name);
  Handle ds = open_dataset(path_, file_, full);
  Handle type(H5Dget_type(ds.get()), H5Tclose);
  const DType dtype = dtype_of(type.get());
  Array<T> out;
  out.shape = dataset_shape(path_, full, ds.get());

  if (static_cast<int>(out.shape.size()) != rank)
    fail(path_, full, "expected rank " + std::to_string(rank) + ", found rank " +
                          std::to_string(out.shape.size()) + " (shape " + shape_text(out.shape) + ")");
  constexpr bool want_float = std::is_floating_point_v<T>;
  if (want_float && dtype != DType::float32 && dtype != DType::float64)
    fail(path_, full, std::string("expected float32 or float64 data, found ") + type_text(type.get()));
  if (!want_float && dtype != DType::int32 && dtype != DType::int64)
    fail(path_, full, std::string("expected int32 or int64 data, found ") + type_text(type.get()));
  std::int64_t count = 0;
  try {
    count = checked_element_count(out.shape, sizeof(T) > 4 ? sizeof(T) : 8, path_ + ": dataset " + full);
  } catch (const InvalidArgument& e) {
    throw IoError(e.what());
  }
  if (count == 0) fail(path_, full, "is empty (shape " + shape_text(out.shape) + ")");
  // A tiny file can claim a huge chunked shape: refuse what cannot fit instead of dying in bad_alloc.
  const std::uint64_t memory = physical_memory_bytes();
  const double bytes = static_cast<double>(count) * 8.0;
  if (memory > 0 && bytes > static_cast<double>(memory))
    fail(path_, full, "shape " + shape_text(out.shape) + " needs " + std::to_string(bytes / (1u << 30)) +
                          " GiB, more than this machine's " + std::to_string(memory >> 30) + " GiB of memory");
  // What the file can really hold: contiguous data must be stored in full (a shape claimed without
  // data would be read as fill values or past the end of the file), and no dataset can expand to
  // more than deflate's ~1032:1 ratio of the file's size allows.
  const double claimed = static_cast<double>(count) * static_cast<double>(H5Tget_size(type.get()));
  struct stat st {};
  const double file_bytes = ::stat(path_.c_str(), &st) == 0 ? static_cast<double>(st.st_size) : 0.0;
  if (claimed > 1100.0 * file_bytes + 65536.0)
    fail(path_, full, "shape " + shape_text(out.shape) + " claims " + std::to_string(static_cast<long long>(claimed)) +
                          " bytes, more than a file of " + std::to_string(static_cast<long long>(file_bytes)) +
                          " bytes can hold even compressed");
  {
    Handle dcpl(H5Dget_create_plist(ds.get()), H5Pclose);
    if (dcpl.ok() && H5Pget_layout(dcpl.get()) == H5D_CONTIGUOUS &&
        static_cast<double>(H5Dget_storage_size(ds.get())) < claimed)
      fail(path_, full, "shape " + shape_text(out.shape) + " needs " + std::to_string(static_cast<long long>(claimed)) +
                            " bytes but the file stores " + std::to_string(H5Dget_storage_size(ds.get())));
  }

  if constexpr (std::is_same_v<T, std::int32_t>) {
    if (dtype == DType::int64) {
      std::vector<std::int64_t> wide(static_cast<std::size_t>(count));
      if (H5Dread(ds.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, wide.data()) < 0)
        fail(path_, full, "read failed");
      out.data.resize(wide.size());
      for (std::size_t i = 0; i < wide.size(); ++i) {
        if (wide[i] < std::numeric_limits<std::int32_t>::min() ||
            wide[i] > std::numeric_limits<std::int32_t>::max())
          fail(path_, full, "element " + std::to_string(i) + " = " + std::to_string(wide[i]) +
                                " does not fit in int32");
        out.data[i] = static_cast<std::int32_t>(wide[i]);
      }
      return out;
    }
  }
  out.data.resize(static_cast<std::size_t>(count));
  if (H5Dread(ds.get(), native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data.data()) < 0)
    fail(path_, full, "read failed");
  return out;
}

std::optional<std::string> Reader::string_attribute(const std::string& object,
                                                    const std::string& attr) const {
  Handle a = open_attribute(path_, file_, object, attr);
  if (!a.ok()) return std::nullopt;
  Handle type(H5Aget_type(a.get()), H5Tclose);
  const std::string where = path_ + ": object " + normalized(object) + ": attribute " + attr;
  if (H5Tget_class(type.get()) != H5T_STRING) throw IoError(where + " is not a string");
  require_single_value(path_, object, attr, a.get());
  if (H5Tis_variable_str(type.get()) > 0) {
    Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
    char* text = nullptr;
    if (H5Aread(a.get(), mem.get(), &text) < 0) throw IoError(where + ": read failed");
    std::string value = text ? text : "";
    if (text) H5free_memory(text);
    return value;
  }
  const std::size_t size = H5Tget_size(type.get());
  std::vector<char> buf(size + 1, '\0');
  if (H5Aread(a.get(), type.get(), buf.data()) < 0) throw IoError(where + ": read failed");
  std::string value(buf.data());  // stops at the first NUL (null-terminated / null-padded)
  while (!value.empty() && value.back() == ' ') value.pop_back();  // space-padded
  return value;
}

std::optional<std::int64_t> Reader::int_attribute(const std::string& object,
                                                  const std::string& attr) const {
  Handle a = open_attribute(path_, file_, object, attr);
  if (!a.ok()) return std::nullopt;
  Handle type(H5Aget_type(a.get()), H5Tclose);
  const std::string where = path_ + ": object " + normalized(object) + ": attribute " + attr;
  if (H5Tget_class(type.get()) != H5T_INTEGER) throw IoError(where + " is not an integer");
  require_single_value(path_, object, attr, a.get());
  std::int64_t value = 0;
  if (H5Aread(a.get(), H5T_NATIVE_INT64, &value) < 0) throw IoError(where + ": read failed");
  return value;
}

// ---------------------------------------------------------------------------------------- Writer

namespace {
/// "<path>.tmp.<pid>" next to the output, or ".tcemu-<pid>.tmp" in the same directory when that name
/// would pass the file system's limit on name length (legal output names of 247-255 bytes).
std::string temporary_name(const std::string& path) {
  const std::string suffix = ".tmp." + std::to_string(::getpid());
  const std::filesystem::path p(path);
  const std::filesystem::path dir = p.parent_path().empty() ? "." : p.parent_path();
  long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  if (name_max <= 0) name_max = NAME_MAX;
  if (p.filename().string().size() + suffix.size() <= static_cast<std::size_t>(name_max)) return path + suffix;
  return (p.parent_path() / (".tcemu-" + std::to_string(::getpid()) + ".tmp")).string();
}
}  // namespace

Writer::Writer(const std::string& path) : path_(path), tmp_path_(temporary_name(path)) {
  silence_hdf5();
  temporary_slot_ = track_temporary(tmp_path_);
  // Probe with stdio first: it gives the operating system's reason (no such directory, permission).
  if (std::FILE* probe = std::fopen(tmp_path_.c_str(), "wb")) {
    std::fclose(probe);
  } else {
    const int err = errno;
    forget_temporary(temporary_slot_);
    throw IoError(path + ": cannot create: " + std::strerror(err));
  }
  file_ = H5Fcreate(tmp_path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file_ < 0) {
    std::remove(tmp_path_.c_str());
    forget_temporary(temporary_slot_);
    throw IoError(path + ": cannot create: HDF5 could not create " + tmp_path_);
  }
}

Writer::~Writer() {
  if (file_ >= 0) H5Fclose(file_);
  if (!committed_) std::remove(tmp_path_.c_str());
  forget_temporary(temporary_slot_);
}

template <class T>
void Writer::write(const std::string& name, const std::vector<T>& data,
                   const std::vector<std::int64_t>& shape) {
  const std::string full = normalized(name);
  if (file_ < 0) fail(path_, full, "cannot write: the file is already committed");
  if (shape.size() != 1 && shape.size() != 2)
    fail(path_, full, "cannot write rank " + std::to_string(shape.size()) + " (only 1 or 2)");
  std::int64_t count = 1;
  for (auto e : shape) {
    if (e < 0) fail(path_, full, "negative extent in shape " + shape_text(shape));
    count *= e;
  }
  if (count != static_cast<std::int64_t>(data.size()))
    fail(path_, full, "shape " + shape_text(shape) + " holds " + std::to_string(count) +
                          " elements but " + std::to_string(data.size()) + " were given");
  if (link_path_exists(file_, full)) fail(path_, full, "already exists");

  std::vector<hsize_t> dims(shape.begin(), shape.end());
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  Handle ds(H5Dcreate2(file_, full.c_str(), file_type<T>(), space.get(), lcpl.get(), H5P_DEFAULT,
                       H5P_DEFAULT),
            H5Dclose);
  if (!ds.ok()) fail(path_, full, "cannot create (is a parent not a group?)");
  if (count > 0 &&
      H5Dwrite(ds.get(), native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0)
    fail(path_, full, "write failed (disk full?)");
}

void Writer::write_string_attribute(const std::string& object, const std::string& attr,
                                    const std::string& value) {
  const std::string obj = normalized(object);
  const std::string where = path_ + ": object " + obj + ": attribute " + attr;
  if (file_ < 0) throw IoError(where + ": cannot write: the file is already committed");
  if (!link_path_exists(file_, obj)) throw IoError(path_ + ": object " + obj + ": not found");
  if (H5Aexists_by_name(file_, obj.c_str(), attr.c_str(), H5P_DEFAULT) > 0)
    H5Adelete_by_name(file_, obj.c_str(), attr.c_str(), H5P_DEFAULT);
  // Variable-length UTF-8 scalar, as h5py writes a Python str attribute.
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle a(H5Acreate_by_name(file_, obj.c_str(), attr.c_str(), type.get(), space.get(), H5P_DEFAULT,
                             H5P_DEFAULT, H5P_DEFAULT),
           H5Aclose);
  const char* text = value.c_str();
  if (!a.ok() || H5Awrite(a.get(), type.get(), &text) < 0) throw IoError(where + ": write failed");
}

void Writer::write_int_attribute(const std::string& object, const std::string& attr,
                                 std::int64_t value) {
  const std::string obj = normalized(object);
  const std::string where = path_ + ": object " + obj + ": attribute " + attr;
  if (file_ < 0) throw IoError(where + ": cannot write: the file is already committed");
  if (!link_path_exists(file_, obj)) throw IoError(path_ + ": object " + obj + ": not found");
  if (H5Aexists_by_name(file_, obj.c_str(), attr.c_str(), H5P_DEFAULT) > 0)
    H5Adelete_by_name(file_, obj.c_str(), attr.c_str(), H5P_DEFAULT);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle a(H5Acreate_by_name(file_, obj.c_str(), attr.c_str(), H5T_STD_I64LE, space.get(),
                             H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
           H5Aclose);
  if (!a.ok() || H5Awrite(a.get(), H5T_NATIVE_INT64, &value) < 0)
    throw IoError(where + ": write failed");
}

void Writer::commit() {
  if (committed_) return;
  if (file_ < 0) throw IoError(path_ + ": cannot commit: the file is not open");
  // Flush first: a full disk or a file size limit shows up here, while the file can still be closed.
  const herr_t flushed = H5Fflush(file_, H5F_SCOPE_GLOBAL);
  const herr_t closed = H5Fclose(file_);
  file_ = -1;
  if (flushed < 0 || closed < 0)
    throw IoError(path_ + ": cannot write: writing " + tmp_path_ + " failed (disk full or file size limit?)");
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0)
    throw IoError(path_ + ": cannot commit: rename from " + tmp_path_ + " failed: " +
                  std::strerror(errno));
  committed_ = true;
  forget_temporary(temporary_slot_);
}

// ----------------------------------------------------------------------------------- validation

template <class T>
void require_finite(const Array<T>& a, const std::string& path, const std::string& name) {
  if constexpr (std::is_floating_point_v<T>) {
    const std::int64_t cols = a.cols();
    for (std::size_t i = 0; i < a.data.size(); ++i) {
      if (std::isfinite(a.data[i])) continue;
      const std::int64_t idx = static_cast<std::int64_t>(i);
      std::ostringstream where;
      if (a.shape.size() == 2)
        where << "[" << idx / cols << "," << idx % cols << "]";
      else
        where << "[" << idx << "]";
      std::ostringstream value;
      value << a.data[i];
      fail(path, normalized(name),
           "element " + where.str() + " is " + value.str() + " (NaN/Inf not allowed)");
    }
  } else {
    (void)a, (void)path, (void)name;  // integers are always finite
  }
}

// ------------------------------------------------------------------------ explicit instantiations

template Array<float> Reader::read<float>(const std::string&, int) const;
template Array<double> Reader::read<double>(const std::string&, int) const;
template Array<std::int32_t> Reader::read<std::int32_t>(const std::string&, int) const;

template void Writer::write<float>(const std::string&, const std::vector<float>&,
                                   const std::vector<std::int64_t>&);
template void Writer::write<double>(const std::string&, const std::vector<double>&,
                                    const std::vector<std::int64_t>&);
template void Writer::write<std::int32_t>(const std::string&, const std::vector<std::int32_t>&,
                                          const std::vector<std::int64_t>&);
template void Writer::write<std::int64_t>(const std::string&, const std::vector<std::int64_t>&,
                                          const std::vector<std::int64_t>&);

template void require_finite<float>(const Array<float>&, const std::string&, const std::string&);
template void require_finite<double>(const Array<double>&, const std::string&, const std::string&);
template void require_finite<std::int32_t>(const Array<std::int32_t>&, const std::string&,
                                           const std::string&);

}  // namespace tcemu::app::io
