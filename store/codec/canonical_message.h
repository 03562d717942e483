// The checked building blocks both codecs share (plan_codec.cpp, trace_codec.cpp): opening a
// blob as a canonical message, reading stored numbers, counts, shapes and tensors.
//
// Note [Canonical messages]
// Why canonical: the plan database compares, checksums and deduplicates blobs, so the same
// value must give the same bytes on every run and machine. Every blob the codecs write is
// capnp::canonicalize of one root struct: a single segment, root pointer first, no segment
// table (a flat array of 64-bit little-endian words). Lists carry exactly the elements that
// take part in equality (a FuseOp writes FuseOpArity(kind) operands), floats travel as raw
// bits, so equal values (operator==) have equal bytes and decode(encode(x)) == x.
// Why strict: a blob comes from a file that another build, a crash mid-write or a bit flip may
// have produced. Decoding therefore
//   * accepts only canonical messages (a multiple of 8 bytes, canonical layout, nothing after
//     the root's data);
//   * reads under a traversal limit proportional to the blob and a nesting limit, so a small
//     blob cannot make the reader allocate or recurse without bound;
//   * checks every stored number against the C++ enums (stored_numbers.h) and every position
//     against the lists it indexes, and returns Status::Corruption with the first problem found.
// Cap'n Proto reports malformed pointers by throwing kj::Exception; the decoders catch it (and
// their own CodecError) and never let an exception or undefined behaviour escape.
//
// Only store/codec/ includes Cap'n Proto: the engine hands the codecs plain data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include <capnp/message.h>
#include <fmt/format.h>

#include "engine/core/status.h"
#include "engine/ir/tensor_ir.h"
#include "schema/plan.capnp.h"
#include "store/codec/stored_numbers.h"

namespace ember {

// Thrown by the Read* functions below on a value the C++ side cannot represent; turned into
// Status::Corruption by ReadCanonicalMessage, never seen outside a codec.
class CodecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The bytes of a canonicalized message (the words, little-endian, as they are in memory).
std::vector<uint8_t> WordsToBytes(kj::ArrayPtr<const capnp::word> words);

// Opens `bytes` as a canonical message and calls read(message). Returns Status::Corruption
// when the bytes are not a canonical message or when read throws CodecError or kj::Exception;
// `what` names the blob in the message ("plan", "trace state").
Status ReadCanonicalMessage(std::span<const uint8_t> bytes, std::string_view what,
                            const std::function<void(capnp::MessageReader&)>& read);

// Throws CodecError with the formatted message unless `condition`; formats only on failure
// (decoding checks every field of every plan at warm start).
template <typename... Args>
void Require(bool condition, fmt::format_string<Args...> format, Args&&... args) {
  if (!condition) [[unlikely]] {
    throw CodecError(fmt::format(format, std::forward<Args>(args)...));
  }
}

// The enum value `raw` names; throws CodecError ("unknown <what> <raw>") for a number this
// build does not know (Known, stored_numbers.h).
template <typename Enum>
Enum ReadEnum(uint8_t raw, std::string_view what) {
  const auto value = static_cast<Enum>(raw);
  Require(Known(value), "unknown {} {}", what, raw);
  return value;
}

// A list length for a builder. Cap'n Proto lists hold at most 2^29 elements; a plan is nowhere
// near, so a longer one is a bug in ember (EMBER_CHECK).
unsigned Count(size_t n);

// Throws CodecError for a number outside DType.
DType ReadDType(uint8_t raw);
void WriteShape(const Shape& shape, capnp::List<int64_t>::Builder out);
// Relative shape ids; throws CodecError for a negative one (MaxRelativeShapeId casts them to
// size_t).
Shape ReadShapeIds(capnp::List<int64_t>::Reader in);
void WriteTensor(const TensorIr& tensor, schema::TensorIr::Builder out);
// Checks the status and dtype numbers and the shape ids.
TensorIr ReadTensor(schema::TensorIr::Reader in);

}  // namespace ember
