// save(): the model and its external data files are written to temporary
// files beside their targets and renamed into place only when everything is
// written and flushed, so a failed save leaves the old files untouched. A
// data file that already holds every tensor at its offset is kept as it is
// (Keep mode), and weights never read since loading are copied file to file
// in the kernel (DataFile::copy_to), never through this process's memory. Data
// files are never truncated in place: another model whose tensors are read
// lazily from the file being replaced gets a clear "was replaced" error from
// its next read rather than different bytes.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "oxs/ir/error.h"
#include "oxs/onnx/external_data.h"
#include "oxs/onnx/file_io.h"
#include "oxs/onnx/model_io.h"
#include "oxs/onnx/proto_convert.h"
#include "oxs/onnx/proto_util.h"

namespace oxs::onnx {

namespace {

constexpr uint64_t kProtoLimit = INT_MAX;

// One tensor's bytes at one offset of a data file.
struct Placement {
  const ir::Tensor* tensor;
  uint64_t offset;
  uint64_t length;
};

struct DataFilePlan {
  std::string location;  // relative to the model's directory
  std::vector<Placement> placements;
  uint64_t size = 0;
};

// Counts the bytes a save wrote and tells SaveOptions::progress every
// 16 MiB and at the end.
class SaveProgress {
 public:
  explicit SaveProgress(const ProgressFn& fn) : fn_(fn) {}
  void add(uint64_t bytes) {
    done_ += bytes;
    if (fn_ && done_ - reported_ >= (uint64_t{16} << 20)) report();
  }
  void set_total(uint64_t total) { total_ = total; }
  uint64_t done() const { return done_; }
  void report() {
    reported_ = done_;
    if (fn_) fn_(done_, total_);
  }

 private:
  const ProgressFn& fn_;
  uint64_t done_ = 0, reported_ = 0, total_ = 0;
};

// Collects small pieces into large writes; large pieces go straight through.
class BufferedWriter {
 public:
  BufferedWriter(AtomicFile& file, SaveProgress& progress) : file_(file), progress_(progress) {
    buffer_.reserve(kSize);
  }
  void write(std::string_view bytes) {
    progress_.add(bytes.size());
    if (buffer_.size() + bytes.size() > kSize) flush();
    if (bytes.size() >= kSize / 4) {
      flush();  // what is buffered comes first
      file_.write(bytes.data(), bytes.size());
    } else {
      buffer_.append(bytes);
    }
  }
  void flush() {
    file_.write(buffer_.data(), buffer_.size());
    buffer_.clear();
  }

 private:
  static constexpr size_t kSize = size_t{1} << 20;
  AtomicFile& file_;
  SaveProgress& progress_;
  std::string buffer_;
};

void set_entry(wire::TensorProto* p, const char* key, const std::string& value) {
  auto* e = p->add_external_data();
  e->set_key(key);
  e->set_value(value);
}

const ExternalStorage* external_storage(const ir::Tensor& t) {
  return dynamic_cast<const ExternalStorage*>(t.storage().get());
}

// The directory a data file at `location` (relative to the model's
// directory `dir`) goes into: each directory of `location` is opened below
// its parent with O_NOFOLLOW and created where missing (OutputDir), so a
// symbolic link planted there, even between a check and the write, is
// refused, never written through.
std::unique_ptr<OutputDir> open_data_dir(const std::string& dir, const std::string& location) {
  auto d = std::make_unique<OutputDir>(OutputDir::open(dir, false));
  for (size_t start = 0, end; (end = location.find('/', start)) != std::string::npos;
       start = end + 1) {
    const std::string part = location.substr(start, end - start);
    if (part.empty() || part == ".") continue;
    d = std::make_unique<OutputDir>(d->subdir(part));
  }
  return d;
}

// True if the file at `target` already holds every placement (the tensors
// are still the bytes of that very file at the same offsets).
bool already_in_place(const DataFilePlan& plan, const std::string& target) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  for (const Placement& p : plan.placements) {
    const ExternalStorage* s = external_storage(*p.tensor);
    if (!s || s->file().dev() != st.st_dev || s->file().ino() != st.st_ino ||
        s->offset() != p.offset || static_cast<uint64_t>(st.st_size) < p.offset + p.length) {
      return false;
    }
  }
  return true;
}

// A tensor's bytes into a data file at `offset`. A weight still in its data
// file (never read) is copied file to file by the kernel, so saving a model
// whose weights did not change reads none of them into memory, unless that
// data file is among the `replaced` ones; the rest are written from memory.
void write_tensor(AtomicFile& file, const ir::Tensor& t, uint64_t offset,
                  const std::set<std::pair<dev_t, ino_t>>& replaced) {
  const ExternalStorage* s = external_storage(t);
  if (s && s->kind() == ir::Storage::Kind::Lazy &&
      !replaced.count({s->file().dev(), s->file().ino()})) {
    s->file().copy_to(s->offset(), s->size(), file.fd(), offset, file.target(), t.name);
    return;
  }
  auto bytes = t.bytes();
  file.pwrite(bytes.data(), bytes.size(), offset);
}

void check_overlaps(DataFilePlan& plan, const std::string& model) {
  std::sort(plan.placements.begin(), plan.placements.end(),
            [](const Placement& a, const Placement& b) { return a.offset < b.offset; });
  for (size_t i = 1; i < plan.placements.size(); ++i) {
    const Placement& a = plan.placements[i - 1];
    const Placement& b = plan.placements[i];
    const bool same = a.offset == b.offset && a.length == b.length;
    if (!same && b.offset < a.offset + a.length) {
      throw Error(ErrorKind::Usage,
                  "tensors '" + a.tensor->name + "' and '" + b.tensor->name +
                      "' overlap in external data file '" + plan.location +
                      "'; save with SaveOptions::ExternalData::External to lay them out anew",
                  {.file = model});
    }
  }
}

}  // namespace

void save(const ir::Model& model, const std::string& path, const SaveOptions& options) {
  using Mode = SaveOptions::ExternalData;
  if (options.threshold < 0) {
    throw Error(ErrorKind::Usage, "external data threshold must not be negative", {.file = path});
  }
  if (options.alignment < 1) {
    throw Error(ErrorKind::Usage, "external data alignment must be at least 1", {.file = path});
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw Error(ErrorKind::Usage, "is a directory; give a file name to save the model to",
                {.file = path});
  }
  const std::string dir = parent_dir(path);
  const auto alignment = static_cast<uint64_t>(options.alignment);

  std::map<std::string, DataFilePlan> plans;  // by location
  ToProtoOptions to;
  to.file = path;
  to.max_inline_bytes = kProtoLimit;

  if (options.external_data == Mode::External) {
    std::string name =
        options.external_file.empty() ? base_name(path) + ".data" : options.external_file;
    check_location_syntax(name, path, "(data file)", ErrorKind::Usage);
    if (name.find('/') != std::string::npos || name == base_name(path)) {
      throw Error(ErrorKind::Usage,
                  "external data file '" + name +
                      "' must be a plain file name beside the model, not the model itself",
                  {.file = path});
    }
    DataFilePlan& plan = plans[name];
    plan.location = name;
    to.placer = [&plan, &options, alignment](const ir::Tensor& t, wire::TensorProto* p) {
      if (t.encoding == ir::Tensor::Encoding::Typed) return false;  // as onnx does: raw only
      const uint64_t length = t.stored_size();
      if (length < static_cast<uint64_t>(options.threshold)) return false;
      const uint64_t offset = (plan.size + alignment - 1) / alignment * alignment;
      plan.placements.push_back({&t, offset, length});
      plan.size = offset + length;
      set_entry(p, "location", plan.location);
      set_entry(p, "offset", std::to_string(offset));
      set_entry(p, "length", std::to_string(length));
      p->set_data_location(wire::TensorProto::EXTERNAL);
      return true;
    };
  } else if (options.external_data == Mode::Keep) {
    to.placer = [&plans, &path](const ir::Tensor& t, wire::TensorProto* p) {
      if (t.encoding != ir::Tensor::Encoding::External) return false;
      const ir::ExternalData& ext = t.external;
      check_location_syntax(ext.location, path, t.name, ErrorKind::Usage);
      const uint64_t length = t.stored_size();
      if (ext.length >= 0 && static_cast<uint64_t>(ext.length) != length) {
        throw Error(ErrorKind::Usage,
                    "tensor '" + t.name + "' now has " + std::to_string(length) +
                        " bytes but its external data slot in '" + ext.location + "' holds " +
                        std::to_string(ext.length) +
                        "; save with SaveOptions::ExternalData::External to lay it out anew",
                    {.file = path});
      }
      // "w.bin" and "./w.bin" are one file: one plan, written once.
      const std::string key = normalize_location(ext.location);
      if (key.empty()) {
        throw Error(
            ErrorKind::Usage,
            "tensor '" + t.name + "': external data location '" + ext.location + "' names no file",
            {.file = path});
      }
      DataFilePlan& plan = plans[key];
      plan.location = key;
      const auto offset = static_cast<uint64_t>(ext.offset);
      plan.placements.push_back({&t, offset, length});
      plan.size = std::max(plan.size, offset + length);
      if (!ext.entries.empty()) {
        for (const auto& [k, v] : ext.entries) set_entry(p, k.c_str(), v);
      } else {
        set_entry(p, "location", ext.location);
        if (ext.offset != 0) set_entry(p, "offset", std::to_string(ext.offset));
        if (ext.length >= 0) set_entry(p, "length", std::to_string(ext.length));
      }
      p->set_data_location(wire::TensorProto::EXTERNAL);
      return true;
    };
  }

  // The model first: writing it runs the placers, which plan the data files.
  AtomicFile model_file(path);
  SaveProgress progress(options.progress);
  {
    BufferedWriter out(model_file, progress);
    write_model(model, to, [&out](std::string_view bytes) { out.write(bytes); });
    out.flush();
  }
  model_file.finish();

  uint64_t total = progress.done();
  for (const auto& [location, plan] : plans) total += plan.size;
  progress.set_total(total);

  // The data files to write: those not already holding their tensors.
  std::vector<std::pair<const DataFilePlan*, std::string>> to_write;  // (plan, target)
  for (auto& [location, plan] : plans) {
    if (plan.placements.empty()) continue;
    const std::string target = dir + "/" + location;
    if (location == base_name(path)) {
      throw Error(ErrorKind::Usage,
                  "tensor '" + plan.placements.front().tensor->name +
                      "' keeps its external data in the model file itself ('" + location +
                      "'); save with SaveOptions::ExternalData::External or Inline",
                  {.file = path});
    }
    check_overlaps(plan, path);
    if (options.external_data == Mode::Keep && already_in_place(plan, target)) continue;
    to_write.emplace_back(&plan, target);
  }
  // The files the renames below replace: a weight still unread in one of
  // them is read into memory while it is written, so that the model keeps
  // its bytes after the rename; every other unread weight is copied file to
  // file by the kernel.
  std::set<std::pair<dev_t, ino_t>> replaced;
  for (const auto& [plan, target] : to_write) {
    struct stat old {};
    if (::lstat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
      replaced.emplace(old.st_dev, old.st_ino);
    }
  }
  // Write everything to temporary files first (their directories stay open
  // until the files are renamed into them).
  std::vector<std::unique_ptr<OutputDir>> data_dirs;
  std::vector<std::unique_ptr<AtomicFile>> data_files;
  for (const auto& [plan, target] : to_write) {
    data_dirs.push_back(open_data_dir(dir, plan->location));
    auto file = data_dirs.back()->atomic_file(base_name(plan->location));
    for (const Placement& p : plan->placements) {
      write_tensor(*file, *p.tensor, p.offset, replaced);
      progress.add(p.length);
    }
    file->truncate(plan->size);
    file->finish();
    data_files.push_back(std::move(file));
  }
  // Every tensor whose data file is replaced has read its bytes by now, so
  // renaming over that file cannot change what it holds.
  for (auto& f : data_files) f->commit();
  model_file.commit();
  progress.set_total(progress.done());  // data already in place was not rewritten
  progress.report();
}

}  // namespace oxs::onnx
