#include "oxs/eval/tensor.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "oxs/eval/buffer_pool.h"
#include "oxs/eval/convert/narrow.h"
#include "oxs/eval/dispatch.h"
#include "oxs/eval/validate/run_limits.h"
#include "oxs/ir/error.h"

namespace oxs::eval {

namespace {
// Half the machine's memory, at most 16 GiB: one bad shape must fail with a
// clear error, not get the process killed by the OOM killer.
int64_t default_allocation_limit() {
  int64_t cap = int64_t{16} << 30;
  int64_t phys = physical_memory_bytes();
  return phys > 0 ? std::min(cap, phys / 2) : cap;
}
std::atomic<int64_t> g_limit{default_allocation_limit()};

// Charges `bytes` to the budget of the run on this thread (if any). Throws
// before anything is allocated when the run would hold more than its budget.
void charge_run_budget(int64_t bytes, const Dims& dims, DataType dtype) {
  RunLimits* limits = current_run_limits();
  if (!limits) return;
  limits->budget()->charge(bytes, [&] {
    return "a " + std::string(ir::dtype_name(dtype)) + " tensor of shape " + dims_to_string(dims) +
           " (" + std::to_string(bytes) + " bytes)";
  });
}

// The elements of a string tensor and their charge: sizeof(std::string) per
// element when made, plus the heap bytes of long strings once a kernel has
// written them (Tensor::charge_string_bytes).
struct StringStore {
  std::vector<std::string> strings;
  MemoryCharge charge;
  // Kernels write only the tensors they make, so the text is final once
  // the kernel that made it returned: counted once, not on every pass.
  bool heap_counted = false;
};

std::shared_ptr<void> refund_on_free(std::shared_ptr<void> buf, int64_t bytes) {
  RunLimits* limits = current_run_limits();
  if (!limits) return buf;
  std::shared_ptr<MemoryBudget> budget = limits->budget();
  void* p = buf.get();
  return std::shared_ptr<void>(p, [buf = std::move(buf), budget, bytes](void*) mutable {
    budget->live.fetch_sub(bytes);
    buf.reset();
  });
}
}  // namespace

size_t storage_size(DataType t) {
  return ir::is_sub_byte(t) ? 1 : ir::element_size(t);
}

int64_t allocation_limit() {
  return g_limit.load();
}
void set_allocation_limit(int64_t bytes) {
  g_limit.store(bytes);
}

int64_t checked_numel(const Dims& dims, const std::string& what) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      throw Error(ErrorKind::Input,
                  what + " has a negative dimension in shape " + dims_to_string(dims));
    }
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) {
      throw Error(ErrorKind::Input,
                  what + " shape " + dims_to_string(dims) + " has more elements than fit in int64");
    }
    n *= d;
  }
  return n;
}

std::string dims_to_string(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

Tensor::Tensor(DataType dtype, Dims dims) : dtype_(dtype), dims_(std::move(dims)) {
  numel_ = checked_numel(dims_);
  if (dtype == DataType::String) {
    if (numel_ > allocation_limit() / int64_t(sizeof(std::string))) {
      throw Error(ErrorKind::Input, "a string tensor of shape " + dims_to_string(dims_) +
                                        " is over the evaluator's memory limit");
    }
    auto store = std::make_shared<StringStore>();
    store->charge.add(numel_ * int64_t(sizeof(std::string)),
                      [&] { return "a string tensor of shape " + dims_to_string(dims_); });
    store->strings.resize(static_cast<size_t>(numel_));
    strings_ = std::shared_ptr<std::vector<std::string>>(store, &store->strings);
    data_ = strings_->data();
    keep_ = std::move(store);
    return;
  }
  allocate(true);
}

void Tensor::charge_string_bytes() {
  if (dtype_ != DataType::String || !keep_) return;
  // keep_ of a string tensor is always its StringStore (the constructor
  // above is the only maker of string storage).
  auto* store = static_cast<StringStore*>(const_cast<void*>(keep_.get()));
  if (store->heap_counted) return;
  int64_t heap = 0;
  for (const std::string& e : store->strings) {
    // Beyond the small-string buffer inside std::string, an element owns
    // capacity + 1 bytes on the heap.
    if (e.capacity() > 15) heap += int64_t(e.capacity()) + 1;
  }
  if (heap > allocation_limit()) {
    throw Error(ErrorKind::Input, "a string tensor of shape " + dims_to_string(dims_) + " holds " +
                                      std::to_string(heap) +
                                      " bytes of text, more than the limit of " +
                                      std::to_string(allocation_limit()) + " bytes");
  }
  store->charge.add(heap, [&] {
    return "the text of a string tensor of shape " + dims_to_string(dims_) + " (" +
           std::to_string(heap) + " bytes)";
  });
  store->heap_counted = true;
}

int64_t held_overhead(const Value& v) {
  int64_t rank = v.is_tensor() ? int64_t(v.tensor().rank()) : 0;
  return int64_t(sizeof(Value)) + 8 * rank + 128;
}

Tensor Tensor::uninitialized(DataType dtype, Dims dims) {
  if (dtype == DataType::String) return Tensor(dtype, std::move(dims));
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.numel_ = checked_numel(t.dims_);
  t.allocate(false);
  return t;
}

void Tensor::allocate(bool zeroed) {
  const DataType dtype = dtype_;
  size_t es = storage_size(dtype);
  if (es == 0) {
    throw Error(ErrorKind::Unsupported, "the evaluator does not support element type " +
                                            std::string(ir::dtype_name(dtype)));
  }
  if (numel_ > allocation_limit() / static_cast<int64_t>(es)) {
    throw Error(ErrorKind::Input, "a " + std::string(ir::dtype_name(dtype)) + " tensor of shape " +
                                      dims_to_string(dims_) + " needs more than the limit of " +
                                      std::to_string(allocation_limit()) +
                                      " bytes; check the input shapes (or --dim values)");
  }
  size_t bytes = static_cast<size_t>(numel_) * es;
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  charge_run_budget(int64_t(rounded), dims_, dtype);
  std::shared_ptr<void> buf = acquire_buffer(rounded, zeroed);
  if (!buf) {
    if (RunLimits* l = current_run_limits()) l->budget()->live.fetch_sub(int64_t(rounded));
    throw Error(ErrorKind::IO, "out of memory allocating " + std::to_string(bytes) + " bytes");
  }
  data_ = buf.get();
  keep_ = refund_on_free(std::move(buf), int64_t(rounded));
  owned_ = true;
}

Tensor Tensor::from_ir(std::shared_ptr<const ir::Tensor> t) {
  if (t->dtype() == DataType::String || ir::is_sub_byte(t->dtype())) return from_ir(*t);
  Tensor r;
  r.dtype_ = t->dtype();
  r.dims_ = t->dims();
  r.numel_ = checked_numel(r.dims_, "tensor '" + t->name + "'");
  size_t es = ir::element_size(r.dtype_);
  if (es == 0) {
    throw Error(ErrorKind::Unsupported, "the evaluator does not support element type " +
                                            std::string(ir::dtype_name(r.dtype_)));
  }
  auto b = t->bytes();
  if (b.size() != static_cast<size_t>(r.numel_) * es) {
    throw Error(ErrorKind::Input, "tensor '" + t->name + "' has " + std::to_string(b.size()) +
                                      " bytes of data but its shape " + dims_to_string(r.dims_) +
                                      " needs " + std::to_string(r.numel_ * es));
  }
  if (reinterpret_cast<uintptr_t>(b.data()) % es != 0 || b.empty()) return from_ir(*t);
  // A model's bool bytes may hold values other than 0 and 1, which are not
  // valid C++ bools: such a tensor is copied (and normalized) below.
  if (r.dtype_ == DataType::Bool) {
    for (std::byte c : b) {
      if (c != std::byte{0} && c != std::byte{1}) return from_ir(*t);
    }
  }
  r.data_ = const_cast<std::byte*>(b.data());  // never written: kernels write fresh tensors
  r.keep_ = std::move(t);
  return r;
}

Tensor Tensor::from_ir(const ir::Tensor& t) {
  Tensor r(t.dtype(), t.dims());
  if (t.dtype() == DataType::String) {
    if (t.strings.size() != static_cast<size_t>(r.numel_)) {
      throw Error(ErrorKind::Input, "string tensor '" + t.name + "' has " +
                                        std::to_string(t.strings.size()) + " elements, shape " +
                                        dims_to_string(r.dims_) + " needs " +
                                        std::to_string(r.numel_));
    }
    *r.strings_ = t.strings;
    r.data_ = r.strings_->data();
    return r;
  }
  auto b = t.bytes();
  if (ir::is_sub_byte(t.dtype())) {
    const int64_t packed = ir::packed_nbytes(t.dtype(), r.numel_);
    if (b.size() != static_cast<size_t>(packed)) {
      throw Error(ErrorKind::Input, "tensor '" + t.name + "' has " + std::to_string(b.size()) +
                                        " bytes of data but its shape " + dims_to_string(r.dims_) +
                                        " needs " + std::to_string(packed) + " (" +
                                        std::string(ir::dtype_name(t.dtype())) + ", packed)");
    }
    unpack_sub_byte(t.dtype(), b, r.numel_, static_cast<uint8_t*>(r.data_));
    return r;
  }
  if (b.size() != r.nbytes()) {
    throw Error(ErrorKind::Input, "tensor '" + t.name + "' has " + std::to_string(b.size()) +
                                      " bytes of data but its shape " + dims_to_string(r.dims_) +
                                      " needs " + std::to_string(r.nbytes()));
  }
  if (!b.empty()) std::memcpy(r.data_, b.data(), b.size());
  if (r.dtype_ == DataType::Bool) {
    auto* p = static_cast<uint8_t*>(r.data_);
    for (size_t i = 0; i < b.size(); ++i) p[i] = p[i] != 0;
  }
  return r;
}

ir::Tensor Tensor::to_ir() const {
  ir::Tensor t(dtype_, dims_);
  if (dtype_ == DataType::String) {
    t.strings = *strings_;
  } else if (ir::is_sub_byte(dtype_)) {
    std::string bytes(static_cast<size_t>(ir::packed_nbytes(dtype_, numel_)), '\0');
    pack_sub_byte(dtype_, static_cast<const uint8_t*>(data_), numel_,
                  reinterpret_cast<std::byte*>(bytes.data()));
    t.set_storage(std::make_shared<ir::OwnedStorage>(std::move(bytes)));
  } else {
    std::string bytes(static_cast<const char*>(data_), nbytes());
    t.set_storage(std::make_shared<ir::OwnedStorage>(std::move(bytes)));
  }
  return t;
}

Tensor Tensor::reshaped(Dims dims) const {
  int64_t n = checked_numel(dims);
  if (n != numel_) {
    throw Error(ErrorKind::Invalid, "cannot reshape a tensor of shape " + dims_to_string(dims_) +
                                        " to " + dims_to_string(dims));
  }
  Tensor r = *this;
  r.dims_ = std::move(dims);
  return r;
}

Tensor Tensor::bitcast(DataType dtype) const {
  if (dtype == DataType::String || dtype_ == DataType::String ||
      storage_size(dtype) != storage_size(dtype_) || storage_size(dtype) == 0) {
    throw Error(ErrorKind::Invalid, "cannot bit-cast " + std::string(ir::dtype_name(dtype_)) +
                                        " to " + std::string(ir::dtype_name(dtype)));
  }
  Tensor r = *this;
  r.dtype_ = dtype;
  return r;
}

Tensor Tensor::clone() const {
  Tensor r(dtype_, dims_);
  if (dtype_ == DataType::String) {
    *r.strings_ = *strings_;
    r.data_ = r.strings_->data();
  } else if (nbytes()) {
    std::memcpy(r.data_, data_, nbytes());
  }
  return r;
}

double Tensor::get_as_double(int64_t i) const {
  if (ir::is_low_precision_float(dtype_)) {
    return ir::low_precision_to_float(dtype_, data<uint8_t>()[i]);
  }
  if (dtype_ == DataType::Int4 || dtype_ == DataType::Int2) return data<int8_t>()[i];
  if (dtype_ == DataType::Uint4 || dtype_ == DataType::Uint2) return data<uint8_t>()[i];
  double out = 0;
  dispatch_numeric(dtype_, [&](auto tag) {
    using T = decltype(tag);
    out = static_cast<double>(to_compute(data<T>()[i]));
  });
  return out;
}

int64_t Tensor::scalar_int() const {
  if (numel_ != 1) {
    throw Error(ErrorKind::Invalid,
                "expected a scalar but got a tensor of shape " + dims_to_string(dims_));
  }
  return to_int_vector()[0];
}

std::vector<int64_t> Tensor::to_int_vector() const {
  std::vector<int64_t> v(static_cast<size_t>(numel_));
  if (dtype_ == DataType::Int64) {
    std::copy(data<int64_t>(), data<int64_t>() + numel_, v.begin());
  } else if (dtype_ == DataType::Int32) {
    std::copy(data<int32_t>(), data<int32_t>() + numel_, v.begin());
  } else {
    throw Error(ErrorKind::Invalid,
                "expected an int32 or int64 tensor but got " + std::string(ir::dtype_name(dtype_)));
  }
  return v;
}

// ---- Value ----

// A sequence's elements with the charge for their bookkeeping.
struct SequenceStore {
  std::vector<Value> items;
  MemoryCharge charge;

  void charge_for(int64_t bytes) {
    charge.add(bytes, [&] {
      return "a sequence of " + std::to_string(items.size()) + " elements (" +
             std::to_string(charge.bytes() + bytes) + " bytes of element bookkeeping)";
    });
  }
};

Value Value::sequence(std::vector<Value> items, ir::Type elem_type) {
  Value v;
  v.kind_ = Kind::Sequence;
  v.seq_ = std::make_shared<SequenceStore>();
  int64_t bytes = 0;
  for (const Value& e : items) bytes += held_overhead(e);
  v.seq_->items = std::move(items);
  v.seq_->charge_for(bytes);
  v.elem_type_ = std::move(elem_type);
  return v;
}

Value Value::sequence_inserted(Value& seq, size_t pos, Value item) {
  if (seq.seq_.use_count() != 1) {
    std::vector<Value> items;
    items.reserve(seq.items().size() + 1);
    items.insert(items.end(), seq.items().begin(), seq.items().begin() + std::ptrdiff_t(pos));
    items.push_back(std::move(item));
    items.insert(items.end(), seq.items().begin() + std::ptrdiff_t(pos), seq.items().end());
    return sequence(std::move(items), seq.elem_type_);
  }
  Value v = std::move(seq);
  v.seq_->charge_for(held_overhead(item));
  v.seq_->items.insert(v.seq_->items.begin() + std::ptrdiff_t(pos), std::move(item));
  return v;
}

Value Value::sequence_erased(Value& seq, size_t pos) {
  if (seq.seq_.use_count() != 1) {
    std::vector<Value> items;
    items.reserve(seq.items().size());
    for (size_t i = 0; i < seq.items().size(); ++i) {
      if (i != pos) items.push_back(seq.items()[i]);
    }
    return sequence(std::move(items), seq.elem_type_);
  }
  Value v = std::move(seq);
  v.seq_->items.erase(v.seq_->items.begin() + std::ptrdiff_t(pos));
  return v;
}

Value Value::optional(std::optional<Value> e, ir::Type elem_type) {
  Value v;
  v.kind_ = Kind::Optional;
  if (e) v.opt_ = std::make_shared<Value>(std::move(*e));
  v.elem_type_ = std::move(elem_type);
  return v;
}

Value Value::map(Tensor keys, Tensor values) {
  if (keys.dtype() != DataType::Int64 && keys.dtype() != DataType::String) {
    throw Error(ErrorKind::Invalid, "map keys must be int64 or string, not " +
                                        std::string(ir::dtype_name(keys.dtype())));
  }
  if (keys.rank() != 1 || values.rank() != 1 || keys.numel() != values.numel()) {
    throw Error(ErrorKind::Invalid,
                "a map needs 1-D keys and values of the same length, got keys " +
                    dims_to_string(keys.dims()) + " and values " + dims_to_string(values.dims()));
  }
  Value v;
  v.kind_ = Kind::Map;
  v.tensor_ = std::move(keys);
  v.map_values_ = std::make_shared<const Tensor>(std::move(values));
  return v;
}

const Tensor& Value::map_keys() const {
  if (kind_ != Kind::Map) throw Error(ErrorKind::Invalid, "expected a map but got " + describe());
  return tensor_;
}
const Tensor& Value::map_values() const {
  if (kind_ != Kind::Map) throw Error(ErrorKind::Invalid, "expected a map but got " + describe());
  return *map_values_;
}

const Tensor& Value::tensor() const {
  if (kind_ != Kind::Tensor) {
    throw Error(ErrorKind::Invalid, "expected a tensor but got " + describe());
  }
  return tensor_;
}
Tensor& Value::tensor() {
  if (kind_ != Kind::Tensor) {
    throw Error(ErrorKind::Invalid, "expected a tensor but got " + describe());
  }
  return tensor_;
}
const std::vector<Value>& Value::items() const {
  if (kind_ != Kind::Sequence) {
    throw Error(ErrorKind::Invalid, "expected a sequence but got " + describe());
  }
  return seq_->items;
}
std::vector<Value>& Value::items() {
  if (kind_ != Kind::Sequence) {
    throw Error(ErrorKind::Invalid, "expected a sequence but got " + describe());
  }
  return seq_->items;
}
const Value& Value::element() const {
  if (kind_ != Kind::Optional || !opt_) {
    throw Error(ErrorKind::Invalid, "expected an optional with a value but got " + describe());
  }
  return *opt_;
}

std::string Value::describe() const {
  switch (kind_) {
    case Kind::None:
      return "none";
    case Kind::Tensor:
      return std::string(ir::dtype_name(tensor_.dtype())) + dims_to_string(tensor_.dims());
    case Kind::Sequence:
      return "seq[" + std::to_string(seq_->items.size()) + "]";
    case Kind::Optional:
      return opt_ ? "optional(" + opt_->describe() + ")" : "optional(empty)";
    case Kind::Map:
      return "map(" + std::string(ir::dtype_name(tensor_.dtype())) + "," +
             std::string(ir::dtype_name(map_values_->dtype())) + ")[" +
             std::to_string(tensor_.numel()) + "]";
  }
  return "?";
}

}  // namespace oxs::eval
