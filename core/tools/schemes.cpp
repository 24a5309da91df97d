// tcemu-schemes: the scheme catalogue as built from the registered descriptors
// (core/include/tcemu/schemes/). Without options it prints the `--list-schemes` table; --markdown
// prints docs/schemes.md; --check FILE exits 1 (printing the first differing line) when FILE is not
// exactly the --markdown text — the CTest test SchemesDoc.UpToDate runs it on docs/schemes.md.
// Regenerate the file with: tcemu-schemes --markdown > docs/schemes.md
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "tcemu/scheme.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tcemu-schemes: the scheme catalogue (text table, Markdown, or a check of docs/schemes.md)"};
  bool markdown = false;
  std::string check, target = "fp32";
  app.add_flag("--markdown", markdown, "print docs/schemes.md");
  app.add_option("--check", check, "compare FILE with the --markdown text; exit 1 when they differ");
  app.add_option("--target", target, "target of the text table (fp32 or fp64)")->check(CLI::IsMember({"fp32", "fp64"}));
  CLI11_PARSE(app, argc, argv);
  try {
    if (!check.empty()) {
      std::ifstream in(check, std::ios::binary);
      if (!in) {
        std::cerr << "tcemu-schemes: error: " << check << ": cannot read\n";
        return 2;
      }
      std::ostringstream have;
      have << in.rdbuf();
      const std::string want = tcemu::catalogue_markdown();
      if (have.str() == want) return 0;
      std::istringstream h(have.str()), w(want);
      std::string lh, lw;
      for (int line = 1;; ++line) {
        const bool bh = static_cast<bool>(std::getline(h, lh)), bw = static_cast<bool>(std::getline(w, lw));
        if (!bh && !bw) break;
        if (!bh || !bw || lh != lw) {
          std::cerr << "tcemu-schemes: " << check << " differs from the descriptors' catalogue at line " << line
                    << ":\n  file:      " << (bh ? lh : "<end of file>") << "\n  generated: " << (bw ? lw : "<end>")
                    << "\nregenerate it: tcemu-schemes --markdown > docs/schemes.md\n";
          break;
        }
      }
      return 1;
    }
    std::cout << (markdown ? tcemu::catalogue_markdown() : tcemu::catalogue_table(tcemu::parse_target(target)));
  } catch (const std::exception& e) {
    std::cerr << "tcemu-schemes: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
