#include "tools/elf_symbols.h"

#include <cxxabi.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace loom {
namespace tools {

absl::StatusOr<std::vector<std::string>> ExportedSymbols(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto bad = [&](const char* what) {
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is not a 64-bit little-endian ELF file we can read: ",
                                                   what));
  };
  Elf64_Ehdr eh;
  if (bytes.size() < sizeof(eh)) return bad("shorter than an ELF header");
  std::memcpy(&eh, bytes.data(), sizeof(eh));
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    return bad("no ELF64 LSB magic");
  }
  // Each table must lie inside the file: offsets and sizes come from it.
  const auto inside = [&](uint64_t off, uint64_t size) { return off <= bytes.size() && size <= bytes.size() - off; };
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || !inside(eh.e_shoff, uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr))) {
    return bad("section headers outside the file");
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (eh.e_shnum > 0) std::memcpy(sections.data(), bytes.data() + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
  std::vector<std::string> out;
  for (const Elf64_Shdr& sh : sections) {
    if (sh.sh_type != SHT_DYNSYM) continue;
    if (sh.sh_link >= sections.size() || sh.sh_entsize != sizeof(Elf64_Sym) || !inside(sh.sh_offset, sh.sh_size)) {
      return bad("a dynamic symbol table outside the file");
    }
    const Elf64_Shdr& strtab = sections[sh.sh_link];
    if (!inside(strtab.sh_offset, strtab.sh_size)) return bad("a string table outside the file");
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= sh.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, bytes.data() + sh.sh_offset + off, sizeof(sym));
      const unsigned bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info);
      const unsigned vis = ELF64_ST_VISIBILITY(sym.st_other);
      if (sym.st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) ||
          (type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC) ||
          (vis != STV_DEFAULT && vis != STV_PROTECTED) || sym.st_name >= strtab.sh_size) {
        continue;
      }
      const char* name = bytes.data() + strtab.sh_offset + sym.st_name;
      out.emplace_back(name, strnlen(name, strtab.sh_size - sym.st_name));
    }
  }
  return out;
}

std::string Demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) return name;
  std::string out(d);
  std::free(d);
  return out;
}

}  // namespace tools
}  // namespace loom
