#include "tools/train/npy.h"

#include <zlib.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace loom {
namespace train {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

uint64_t Le(const std::string& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<size_t>(i)]);
  return v;
}

// The value of 'key' in the header's Python dict literal, as written.
std::string HeaderValue(const std::string& header, const std::string& key) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  size_t v = header.find(':', k);
  if (v == std::string::npos) return "";
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  if (v >= header.size()) return "";
  const char open = header[v];
  const char close = open == '(' ? ')' : open == '\'' ? '\'' : ',';
  const size_t end = header.find(close, v + 1);
  if (end == std::string::npos) return header.substr(v);
  return header.substr(v, end - v + (close == ',' ? 0 : 1));
}

// Element i of a little-endian array of `descr`'s kind and size.
template <typename T>
double Read(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<double>(v);
}

}  // namespace

absl::StatusOr<NpyArray> ParseNpy(std::string b, const std::string& name) {
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": not a .npy file (no \\x93NUMPY magic)"));
  }
  const int major = static_cast<unsigned char>(b[6]);
  if (major < 1 || major > 3) return absl::InvalidArgumentError(absl::StrCat(name, ": .npy format version ", major, " is not 1 to 3"));
  const size_t len_bytes = major == 1 ? 2 : 4, start = 8 + len_bytes;
  if (b.size() < start) return absl::InvalidArgumentError(absl::StrCat(name, ": truncated header"));
  const size_t header_len = Le(b, 8, static_cast<int>(len_bytes));
  if (b.size() < start + header_len) return absl::InvalidArgumentError(absl::StrCat(name, ": truncated header"));
  const std::string header = b.substr(start, header_len);
  NpyArray a;
  std::string descr = HeaderValue(header, "descr");
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'') {
    return absl::InvalidArgumentError(absl::StrCat(name, ": header has no descr: ", header));
  }
  a.descr = descr.substr(1, descr.size() - 2);
  if (HeaderValue(header, "fortran_order").rfind("True", 0) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": Fortran-order arrays are not supported (save a C-order copy)"));
  }
  std::string shape = HeaderValue(header, "shape");
  if (shape.size() < 2 || shape.front() != '(') return absl::InvalidArgumentError(absl::StrCat(name, ": header has no shape: ", header));
  int64_t count = 1;
  for (absl::string_view d : absl::StrSplit(absl::string_view(shape).substr(1, shape.size() - 2), ',', absl::SkipWhitespace())) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(d), &v) || v < 0) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": bad shape ", shape));
    }
    // A shape larger than the file is refused before its product can
    // overflow (each element takes at least one byte).
    if (v > 0 && count > static_cast<int64_t>(b.size()) / v) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": shape ", shape, " holds more elements than the file has bytes"));
    }
    a.shape.push_back(v);
    count *= v;
  }
  // '<' little-endian, '|' not applicable (one byte), '=' native (x86: little).
  const std::string& t = a.descr;
  if (t.size() < 3 || (t[0] != '<' && t[0] != '|' && t[0] != '=')) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": dtype '", t, "' is not supported (little-endian numbers only)"));
  }
  const std::string kind = t.substr(1);
  double (*read)(const char*) = nullptr;
  size_t size = 0;
  if (kind == "f4") read = &Read<float>, size = 4;
  else if (kind == "f8") read = &Read<double>, size = 8;
  else if (kind == "i1") read = &Read<int8_t>, size = 1;
  else if (kind == "i2") read = &Read<int16_t>, size = 2;
  else if (kind == "i4") read = &Read<int32_t>, size = 4;
  else if (kind == "i8") read = &Read<int64_t>, size = 8;
  else if (kind == "u1" || kind == "b1") read = &Read<uint8_t>, size = 1;
  else if (kind == "u2") read = &Read<uint16_t>, size = 2;
  else if (kind == "u4") read = &Read<uint32_t>, size = 4;
  else if (kind == "u8") read = &Read<uint64_t>, size = 8;
  if (read == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": dtype '", t,
                                                   "' is not supported (bool, int8-64, uint8-64, float32, float64)"));
  }
  const size_t data = start + header_len;
  if (b.size() - data < static_cast<size_t>(count) * size) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", count, " elements of ", size, " bytes need ",
                                                   static_cast<size_t>(count) * size, " bytes; found ", b.size() - data));
  }
  a.count = count;
  a.offset = data;
  a.size = size;
  a.read = read;
  a.bytes = std::move(b);
  return a;
}

absl::StatusOr<NpyArray> ReadNpy(const std::string& path) {
  absl::StatusOr<std::string> b = ReadFile(path);
  if (!b.ok()) return b.status();
  return ParseNpy(*std::move(b), path);
}

absl::StatusOr<std::map<std::string, NpyArray>> ReadNpz(const std::string& path) {
  absl::StatusOr<std::string> file = ReadFile(path);
  if (!file.ok()) return file.status();
  const std::string& z = *file;
  const auto bad = [&](const std::string& why) { return absl::InvalidArgumentError(absl::StrCat(path, ": ", why)); };
  // The end-of-central-directory record: the last signature 0x06054b50
  // within 64 KiB (+ 22 bytes) of the end.
  if (z.size() < 22) return bad("not a zip file (too short)");
  size_t eocd = std::string::npos;
  for (size_t i = z.size() - 22 + 1; i-- > 0 && z.size() - i <= 65557;) {
    if (Le(z, i, 4) == 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd == std::string::npos) return bad("not a zip file (no end of central directory)");
  uint64_t entries = Le(z, eocd + 10, 2), cd = Le(z, eocd + 16, 4);
  if ((entries == 0xFFFF || cd == 0xFFFFFFFF) && eocd >= 20 && Le(z, eocd - 20, 4) == 0x07064b50) {
    const uint64_t rec = Le(z, eocd - 20 + 8, 8);  // the zip64 end-of-central-directory record
    if (rec + 56 > z.size() || Le(z, rec, 4) != 0x06064b50) return bad("bad zip64 end of central directory");
    entries = Le(z, rec + 32, 8);
    cd = Le(z, rec + 48, 8);
  }
  std::map<std::string, NpyArray> arrays;
  size_t p = cd;
  for (uint64_t e = 0; e < entries; ++e) {
    if (p + 46 > z.size() || Le(z, p, 4) != 0x02014b50) return bad("bad central directory entry");
    const uint64_t method = Le(z, p + 10, 2), name_len = Le(z, p + 28, 2), extra_len = Le(z, p + 30, 2),
                   comment_len = Le(z, p + 32, 2);
    uint64_t csize = Le(z, p + 20, 4), usize = Le(z, p + 24, 4), offset = Le(z, p + 42, 4);
    if (p + 46 + name_len + extra_len > z.size()) return bad("bad central directory entry");
    const std::string name = z.substr(p + 46, name_len);
    // Zip64 extra field (id 1): the 8-byte values of the fields that are
    // 0xFFFFFFFF above, in the order usize, csize, offset.
    const size_t extra_end = p + 46 + name_len + extra_len;
    for (size_t x = p + 46 + name_len; x + 4 <= extra_end;) {
      const uint64_t id = Le(z, x, 2), len = Le(z, x + 2, 2);
      size_t f = x + 4;
      if (id == 1) {
        for (uint64_t* v : {&usize, &csize, &offset}) {
          if (*v == 0xFFFFFFFF && f + 8 <= x + 4 + len && f + 8 <= extra_end) {
            *v = Le(z, f, 8);
            f += 8;
          }
        }
      }
      x += 4 + len;
    }
    p += 46 + name_len + extra_len + comment_len;
    if (offset >= z.size() || z.size() - offset < 30 || Le(z, offset, 4) != 0x04034b50) {
      return bad("bad local header of " + name);
    }
    const uint64_t data = offset + 30 + Le(z, offset + 26, 2) + Le(z, offset + 28, 2);
    if (data > z.size() || csize > z.size() - data) return bad(name + " runs past the end of the file");
    std::string bytes;
    if (method == 0) {
      bytes = z.substr(data, csize);
    } else if (method == 8) {
      // Deflate expands at most about 1032 times: a larger size is corrupt.
      if (usize > 1032 * csize + 1024) return bad(absl::StrCat(name, ": ", usize, " bytes cannot come from ", csize));
      bytes.resize(usize);
      z_stream s{};
      if (inflateInit2(&s, -MAX_WBITS) != Z_OK) return bad("zlib inflateInit2 failed");
      s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data() + data));
      s.avail_in = static_cast<uInt>(csize);
      s.next_out = reinterpret_cast<Bytef*>(bytes.data());
      s.avail_out = static_cast<uInt>(usize);
      const int r = inflate(&s, Z_FINISH);
      inflateEnd(&s);
      if (r != Z_STREAM_END || s.total_out != usize) return bad(name + ": deflate data does not inflate to its size");
    } else {
      return bad(absl::StrCat(name, ": compression method ", method, " (only stored and deflate)"));
    }
    absl::StatusOr<NpyArray> a = ParseNpy(std::move(bytes), path + ":" + name);
    if (!a.ok()) return a.status();
    arrays[std::string(absl::StripSuffix(name, ".npy"))] = *std::move(a);
  }
  return arrays;
}

}  // namespace train
}  // namespace loom
