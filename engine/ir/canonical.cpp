#include "engine/ir/canonical.h"

#include <bit>
#include <limits>

#include "engine/core/check.h"

namespace ember {
namespace {

// Fixed-width little-endian writers: shifts, never memcpy, so the host's byte order and
// struct layout cannot leak into the bytes (Note [Canonical bytes]).
class Writer {
 public:
  explicit Writer(std::vector<uint8_t>& out) : out_(out) {}

  void U8(uint8_t v) { out_.push_back(v); }
  void U16(uint16_t v) { Le(v, 2); }
  void U32(uint32_t v) { Le(v, 4); }
  void U64(uint64_t v) { Le(v, 8); }
  void I64(int64_t v) { Le(static_cast<uint64_t>(v), 8); }
  void F64(double v) { U64(std::bit_cast<uint64_t>(v)); }
  void Count(size_t n) {
    EMBER_CHECK(n <= std::numeric_limits<uint32_t>::max(), "canonical bytes: {} items", n);
    U32(static_cast<uint32_t>(n));
  }

 private:
  void Le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }

  std::vector<uint8_t>& out_;
};

void WriteTensor(Writer& w, const TensorIr& t) {
  w.U64(t.id);
  w.Count(t.shape.size());
  for (int64_t d : t.shape) w.I64(d);
  w.U8(static_cast<uint8_t>(t.status));
  w.U8(static_cast<uint8_t>(t.dtype));
}

void WriteScalar(Writer& w, const ScalarIr& s) {
  w.U8(static_cast<uint8_t>(s.kind));
  w.U64(s.bits);
}

void WriteRange(Writer& w, const Slice& r) {
  w.I64(r.start);
  w.U8(r.end.has_value() ? 1 : 0);
  w.I64(r.end.value_or(0));
  w.I64(r.step);
}

}  // namespace

void AppendCanonicalBytes(const OperationIr& op, std::vector<uint8_t>& out) {
  Writer w(out);
  w.U16(static_cast<uint16_t>(op.kind));
  w.U8(static_cast<uint8_t>(op.dtype));
  w.Count(op.inputs.size());
  for (const TensorIr& t : op.inputs) WriteTensor(w, t);
  w.Count(op.outputs.size());
  for (const TensorIr& t : op.outputs) WriteTensor(w, t);
  w.Count(op.scalars.size());
  for (const ScalarIr& s : op.scalars) WriteScalar(w, s);
  w.Count(op.ranges.size());
  for (const Slice& r : op.ranges) WriteRange(w, r);
  w.Count(op.dims.size());
  for (int64_t d : op.dims) w.I64(d);
  w.U8(static_cast<uint8_t>(op.distribution.kind));
  w.F64(op.distribution.a);
  w.F64(op.distribution.b);
}

std::vector<uint8_t> CanonicalBytes(const OperationIr& op) {
  std::vector<uint8_t> out;
  AppendCanonicalBytes(op, out);
  return out;
}

void AppendCanonicalListBytes(std::span<const OperationIr> ops, std::vector<uint8_t>& out) {
  Writer w(out);
  w.U8(kCanonicalFormatVersion);
  w.Count(ops.size());
  for (const OperationIr& op : ops) AppendCanonicalBytes(op, out);
}

std::vector<uint8_t> CanonicalListBytes(std::span<const OperationIr> ops) {
  std::vector<uint8_t> out;
  AppendCanonicalListBytes(ops, out);
  return out;
}

}  // namespace ember
