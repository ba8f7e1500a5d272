#include "data/base/shared_library.h"

#include <dlfcn.h>

#include "data/base/error.h"

namespace attn {

SharedLibrary::SharedLibrary(const char* soname, const std::string& needed_by, std::string install)
    : handle_(::dlopen(soname, RTLD_NOW | RTLD_LOCAL)), soname_(soname), install_(std::move(install)) {
    if (handle_ == nullptr)
        throw Error(ErrorKind::runtime, needed_by + " needs " + soname_ + ", which could not be loaded", install_);
}

void* SharedLibrary::address(const char* symbol) const {
    void* p = ::dlsym(handle_, symbol);
    if (p == nullptr) throw Error(ErrorKind::runtime, soname_ + " has no " + symbol, install_);
    return p;
}

}  // namespace attn
