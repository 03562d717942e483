#include "store/codec/canonical_message.h"

#include <cstring>
#include <exception>

#include <kj/exception.h>

#include "engine/core/check.h"

namespace ember {
namespace {

// Decoding limits (Note [Canonical messages]). A well-formed reader touches each word about
// once; the factor leaves room for lists read twice, the slack for tiny blobs. The nesting
// limit bounds recursion in Cap'n Proto itself (a plan's strategy tree also has its own).
constexpr uint64_t kTraversalFactor = 8;
constexpr uint64_t kTraversalSlack = 1024;
constexpr int kNestingLimit = 64;

}  // namespace

unsigned Count(size_t n) {
  EMBER_CHECK(n < (size_t{1} << 29), "a list of {} elements", n);
  return static_cast<unsigned>(n);
}

DType ReadDType(uint8_t raw) {
  Require(raw < kNumDTypes, "unknown dtype {}", raw);
  return static_cast<DType>(raw);
}

void WriteShape(const Shape& shape, capnp::List<int64_t>::Builder out) {
  for (size_t i = 0; i < shape.size(); ++i) out.set(static_cast<unsigned>(i), shape[i]);
}

Shape ReadShapeIds(capnp::List<int64_t>::Reader in) {
  Shape shape;
  shape.reserve(in.size());
  for (int64_t id : in) {
    Require(id >= 0, "negative relative shape id {}", id);
    shape.push_back(id);
  }
  return shape;
}

void WriteTensor(const TensorIr& tensor, schema::TensorIr::Builder out) {
  out.setId(tensor.id);
  WriteShape(tensor.shape, out.initShape(Count(tensor.shape.size())));
  out.setStatus(static_cast<uint8_t>(tensor.status));
  out.setDtype(static_cast<uint8_t>(tensor.dtype));
}

TensorIr ReadTensor(schema::TensorIr::Reader in) {
  return TensorIr{.id = in.getId(),
                  .shape = ReadShapeIds(in.getShape()),
                  .status = ReadEnum<TensorStatus>(in.getStatus(), "tensor status"),
                  .dtype = ReadDType(in.getDtype())};
}

std::vector<uint8_t> WordsToBytes(kj::ArrayPtr<const capnp::word> words) {
  const auto* begin = reinterpret_cast<const uint8_t*>(words.begin());
  return std::vector<uint8_t>(begin, begin + words.size() * sizeof(capnp::word));
}

Status ReadCanonicalMessage(std::span<const uint8_t> bytes, std::string_view what,
                            const std::function<void(capnp::MessageReader&)>& read) {
  constexpr size_t kWord = sizeof(capnp::word);
  if (bytes.size() < kWord || bytes.size() % kWord != 0) {
    return Status::Corruption(
        fmt::format("{}: {} bytes is not a whole number of 8-byte words", what, bytes.size()));
  }
  // Copied: a blob from SQLite or a file has no alignment guarantee, and Cap'n Proto reads
  // words in place.
  const size_t num_words = bytes.size() / kWord;
  kj::Array<capnp::word> words = kj::heapArray<capnp::word>(num_words);
  std::memcpy(words.begin(), bytes.data(), bytes.size());
  const kj::ArrayPtr<const capnp::word> segments[1] = {words.asPtr()};
  capnp::ReaderOptions options;
  options.traversalLimitInWords = num_words * kTraversalFactor + kTraversalSlack;
  options.nestingLimit = kNestingLimit;
  try {
    capnp::SegmentArrayMessageReader message(kj::arrayPtr(segments, 1), options);
    if (!message.isCanonical()) {
      return Status::Corruption(fmt::format("{}: not a canonical message", what));
    }
    read(message);
  } catch (const CodecError& e) {
    return Status::Corruption(fmt::format("{}: {}", what, e.what()));
  } catch (const kj::Exception& e) {
    return Status::Corruption(fmt::format("{}: {}", what, e.getDescription().cStr()));
  } catch (const std::exception& e) {
    return Status::Corruption(fmt::format("{}: {}", what, e.what()));
  }
  return Status::Ok();
}

}  // namespace ember
