// A shared library opened when a command first needs it (dlopen), not linked: a linked library is loaded,
// relocated and initialised by every process, whatever the command. libcurl (attn pull), libzip (zip
// archives) and OpenSSL's libcrypto (the hub's file hashes) are opened this way.
#pragma once

#include <string>

namespace attn {

class SharedLibrary {
public:
    // Opens `soname` (kept open for the process); when it cannot be loaded, an Error (runtime) says
    // "<needed_by> needs <soname>, which could not be loaded" with `install` as its hint.
    SharedLibrary(const char* soname, const std::string& needed_by, std::string install);
    // f = the library's `symbol`, of f's function type (taken from the library's own header); an Error
    // names a missing symbol.
    template <class F>
    void bind(const char* symbol, F& f) const {
        f = reinterpret_cast<F>(address(symbol));
    }

private:
    void* address(const char* symbol) const;
    void* handle_ = nullptr;
    std::string soname_, install_;
};

}  // namespace attn
