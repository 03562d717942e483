#include "store/sqlite/database_header.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string_view>

namespace ember {

namespace {

constexpr size_t kHeaderSize = 100;
constexpr std::string_view kMagic{"SQLite format 3\0", 16};

uint32_t BigEndian(const std::array<unsigned char, kHeaderSize>& h, size_t at, size_t bytes) {
  uint32_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value = (value << 8) | h[at + i];
  return value;
}

int64_t FileSize(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

}  // namespace

Status CheckDatabaseHeader(const std::string& path) {
  int64_t size = FileSize(path);
  if (size < 0) {
    return Status::IoError(
        fmt::format("cannot inspect plan database {}: {}", path, std::strerror(errno)));
  }
  if (size == 0) return Status::Ok();
  const std::string keep_out =
      "ember does not modify it: move it away or configure another plan database path";
  if (size < static_cast<int64_t>(kHeaderSize)) {
    return Status::Corruption(fmt::format(
        "{} is not a SQLite database: it has {} bytes, fewer than a database header; {}", path,
        size, keep_out));
  }
  std::array<unsigned char, kHeaderSize> header{};
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(header.data()), kHeaderSize)) {
    return Status::IoError(fmt::format("cannot read plan database {}", path));
  }
  if (std::memcmp(header.data(), kMagic.data(), kMagic.size()) != 0) {
    return Status::Corruption(
        fmt::format("{} is not a SQLite database: it does not start with \"SQLite format 3\"; {}",
                    path, keep_out));
  }
  uint32_t page_size = BigEndian(header, 16, 2);
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) {
    return Status::Corruption(
        fmt::format("plan database {} is corrupt: its header gives page size {}; {}", path,
                    page_size, keep_out));
  }
  // A non-empty WAL may legitimately hold pages the main file does not have yet.
  if (FileSize(path + "-wal") > 0) return Status::Ok();
  // The size again, now: a checkpoint by another process writes page 1 (the header's new page
  // count) first and the file's new last pages after it, then empties the log. The size taken
  // before the header was read could predate that checkpoint, whose header then looked like a
  // truncated file's ("its header says 36 pages ... the file has 118784 bytes", seen beside
  // four writers); taken after the log is seen empty, the checkpoint is complete.
  size = FileSize(path);
  if (size < 0) {
    return Status::IoError(
        fmt::format("cannot inspect plan database {}: {}", path, std::strerror(errno)));
  }
  const uint32_t change_counter = BigEndian(header, 24, 4);
  const uint32_t pages = BigEndian(header, 28, 4);
  const uint32_t valid_for = BigEndian(header, 92, 4);
  const int64_t expected = static_cast<int64_t>(pages) * page_size;
  if (change_counter == valid_for && pages > 0 && size < expected) {
    return Status::Corruption(fmt::format(
        "plan database {} is truncated: its header says {} pages of {} bytes ({} bytes), the "
        "file has {} bytes; {}",
        path, pages, page_size, expected, size, keep_out));
  }
  if (size % page_size != 0) {
    return Status::Corruption(fmt::format(
        "plan database {} is truncated: {} bytes is not a whole number of {}-byte pages; {}", path,
        size, page_size, keep_out));
  }
  return Status::Ok();
}

}  // namespace ember
