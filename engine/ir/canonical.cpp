#include "engine/ir/canonical.h"

#include <bit>
#include <limits>

#include "engine/core/check.h"

namespace ember {
namespace {

// Fixed-width little-endian writers: shifts, never memcpy, so the host's byte order and
// struct layout cannot leak into the bytes (Note [Canonical bytes]). The fields are visited
// twice, by a Counter (how many bytes) and then by a Filler that writes them into room made
// once: one size check per op rather than one per byte, and HashOp can use a stack buffer.
class Counter {
 public:
  void U8(uint8_t) { n_ += 1; }
  void U16(uint16_t) { n_ += 2; }
  void U32(uint32_t) { n_ += 4; }
  void U64(uint64_t) { n_ += 8; }
  void I64(int64_t) { n_ += 8; }
  void F64(double) { n_ += 8; }
  void Count(size_t n) {
    EMBER_CHECK(n <= std::numeric_limits<uint32_t>::max(), "canonical bytes: {} items", n);
    n_ += 4;
  }
  size_t size() const { return n_; }

 private:
  size_t n_ = 0;
};

class Filler {
 public:
  explicit Filler(uint8_t* at) : at_(at) {}

  void U8(uint8_t v) { *at_++ = v; }
  void U16(uint16_t v) { Le(v, 2); }
  void U32(uint32_t v) { Le(v, 4); }
  void U64(uint64_t v) { Le(v, 8); }
  void I64(int64_t v) { Le(static_cast<uint64_t>(v), 8); }
  void F64(double v) { U64(std::bit_cast<uint64_t>(v)); }
  void Count(size_t n) { U32(static_cast<uint32_t>(n)); }  // bounded by the Counter's pass
  uint8_t* at() const { return at_; }

 private:
  void Le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) *at_++ = static_cast<uint8_t>(v >> (8 * i));
  }

  uint8_t* at_;
};

template <typename W>
void WriteTensor(W& w, const TensorIr& t) {
  w.U64(t.id);
  w.Count(t.shape.size());
  for (int64_t d : t.shape) w.I64(d);
  w.U8(static_cast<uint8_t>(t.status));
  w.U8(static_cast<uint8_t>(t.dtype));
}

template <typename W>
void WriteScalar(W& w, const ScalarIr& s) {
  w.U8(static_cast<uint8_t>(s.kind));
  w.U64(s.bits);
}

template <typename W>
void WriteRange(W& w, const Slice& r) {
  w.I64(r.start);
  w.U8(r.end.has_value() ? 1 : 0);
  w.I64(r.end.value_or(0));
  w.I64(r.step);
}

template <typename W>
void WriteOp(W& w, const OperationIr& op) {
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

}  // namespace

size_t CanonicalSize(const OperationIr& op) {
  Counter c;
  WriteOp(c, op);
  return c.size();
}

uint8_t* WriteCanonicalBytes(const OperationIr& op, uint8_t* out) {
  Filler f(out);
  WriteOp(f, op);
  return f.at();
}

void AppendCanonicalBytes(const OperationIr& op, std::vector<uint8_t>& out) {
  const size_t old = out.size();
  out.resize(old + CanonicalSize(op));
  WriteCanonicalBytes(op, out.data() + old);
}

std::vector<uint8_t> CanonicalBytes(const OperationIr& op) {
  std::vector<uint8_t> out;
  AppendCanonicalBytes(op, out);
  return out;
}

void AppendCanonicalListBytes(std::span<const OperationIr> ops, std::vector<uint8_t>& out) {
  Counter c;
  c.U8(kCanonicalFormatVersion);
  c.Count(ops.size());
  size_t total = c.size();
  for (const OperationIr& op : ops) total += CanonicalSize(op);
  const size_t old = out.size();
  out.resize(old + total);
  Filler f(out.data() + old);
  f.U8(kCanonicalFormatVersion);
  f.Count(ops.size());
  uint8_t* at = f.at();
  for (const OperationIr& op : ops) at = WriteCanonicalBytes(op, at);
}

std::vector<uint8_t> CanonicalListBytes(std::span<const OperationIr> ops) {
  std::vector<uint8_t> out;
  AppendCanonicalListBytes(ops, out);
  return out;
}

}  // namespace ember
