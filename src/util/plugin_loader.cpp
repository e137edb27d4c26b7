#include "util/plugin_loader.h"

#include <dlfcn.h>

#include <vector>

namespace gshmem {
namespace {

// Directory of libgshmem_host.so, where the plugins are installed beside it.
std::string library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_dir), &info) && info.dli_fname) {
    std::string path = info.dli_fname;
    size_t slash = path.rfind('/');
    if (slash != std::string::npos) return path.substr(0, slash);
  }
  return "";
}

}  // namespace

void* open_plugin_library(const std::string& path, std::string* errors) {
  std::vector<std::string> candidates;
  if (path.find('/') == std::string::npos) {
    std::string dir = library_dir();
    if (!dir.empty()) candidates.push_back(dir + "/" + path);
  }
  candidates.push_back(path);
  errors->clear();
  for (const std::string& c : candidates) {
    void* handle = dlopen(c.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle) return handle;
    const char* e = dlerror();
    *errors += std::string(errors->empty() ? "" : "; ") + (e ? e : c);
  }
  return nullptr;
}

}  // namespace gshmem
