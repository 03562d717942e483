// The Cap'n Proto codec of fused traces (schema/plan.capnp, FuseTrace family): the state a
// TraceOptimization saves (ToState) and is rebuilt from (engine/fuse/optimization_factory.h).
// Pure functions; callable from any thread.
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
//     the root's data), so encode(decode(b)) == b for every accepted b;
//   * reads under a traversal limit proportional to the blob and a nesting limit, so a small
//     blob cannot make the reader allocate or recurse without bound;
//   * checks every stored number against the C++ enums and every position against the lists
//     it indexes, and returns Status::Corruption with the first problem found.
// Cap'n Proto reports malformed pointers by throwing kj::Exception; the decoders catch it (and
// their own CodecError) and never let an exception or undefined behaviour escape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <capnp/message.h>
#include <fmt/format.h>

#include "engine/core/status.h"
#include "engine/ir/tensor_ir.h"
#include "engine/trace/fuse_trace.h"
#include "schema/plan.capnp.h"

namespace ember {

// What a TraceOptimization saves: its trace, how many relative ops it covers, its score.
struct TraceState {
  FuseTrace trace;
  size_t len = 0;
  uint64_t score = 0;

  bool operator==(const TraceState&) const = default;
};

// The canonical bytes of a schema::TraceOptimizationState (Note [Canonical messages]).
std::vector<uint8_t> EncodeTraceState(const TraceState& state);

// Decodes and validates bytes written by EncodeTraceState: enum values, argument kinds and
// arities, positions inside the resource lists, locals inside their block, stage links, and
// len >= 1. On error returns Status::Corruption and leaves *out unspecified.
Status DecodeTraceState(std::span<const uint8_t> bytes, TraceState* out);

// The structural checks of DecodeTraceState on an in-memory trace.
Status CheckFuseTrace(const FuseTrace& trace);

// --- Building blocks shared with the plan codec (store/plan_codec.cpp) ------------------------

// Thrown by the Read* functions below on a value the C++ side cannot represent; turned into
// Status::Corruption by ReadCanonicalMessage, never seen outside a codec.
class CodecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The bytes of a canonicalized message (the words, little-endian, as they are in memory).
std::vector<uint8_t> WordsToBytes(kj::ArrayPtr<const capnp::word> words);

// Opens `bytes` as a canonical message (Note [Canonical messages]) and calls read(message).
// Returns Status::Corruption when the bytes are not a canonical message or when read throws
// CodecError or kj::Exception; `what` names the blob in the message ("plan", "trace state").
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

// Throws CodecError for a number outside DType.
DType ReadDType(uint8_t raw);
void WriteTensor(const TensorIr& tensor, schema::TensorIr::Builder out);
// Checks the status and dtype numbers and that every relative shape id is >= 0
// (MaxRelativeShapeId casts them to size_t).
TensorIr ReadTensor(schema::TensorIr::Reader in);

}  // namespace ember
