// HTTP for the hub client through libcurl (data/hub/hub_http.h).
#include "data/hub/hub_http.h"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>

#include "data/base/error.h"
#include "data/base/shared_library.h"

namespace attn::hub {
namespace {

volatile std::sig_atomic_t g_stop = 0;

// libcurl, opened when the first transfer starts: linked into attn, it and the 30 libraries it needs
// (TLS, Kerberos, LDAP, SSH, ...) were loaded by every command, about 5 ms of each process's start
// (an empty program linked with attn's libraries: 13-14 ms, without libcurl 8-9 ms), though only
// attn pull downloads. The header still comes from libcurl4-openssl-dev; the library is its
// libcurl.so.4.
struct Libcurl {
    CURLcode (*global_init)(long);
    CURL* (*easy_init)();
    void (*easy_cleanup)(CURL*);
    void (*easy_reset)(CURL*);
    CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
    CURLcode (*easy_perform)(CURL*);
    const char* (*easy_strerror)(CURLcode);
    curl_slist* (*slist_append)(curl_slist*, const char*);
    void (*slist_free_all)(curl_slist*);
};

Libcurl open_libcurl() {
    const SharedLibrary lib("libcurl.so.4", "attn pull", "install Debian's libcurl4: scripts/setup.sh, or apt-get install libcurl4");
    Libcurl l{};
    lib.bind("curl_global_init", l.global_init);
    lib.bind("curl_easy_init", l.easy_init);
    lib.bind("curl_easy_cleanup", l.easy_cleanup);
    lib.bind("curl_easy_reset", l.easy_reset);
    lib.bind("curl_easy_setopt", l.easy_setopt);
    lib.bind("curl_easy_getinfo", l.easy_getinfo);
    lib.bind("curl_easy_perform", l.easy_perform);
    lib.bind("curl_easy_strerror", l.easy_strerror);
    lib.bind("curl_slist_append", l.slist_append);
    lib.bind("curl_slist_free_all", l.slist_free_all);
    return l;  // the library stays open for the process
}

// The loaded library (opened once; the first caller's error is every caller's).
const Libcurl& libcurl() {
    static const Libcurl l = open_libcurl();
    return l;
}

struct Transfer {
    HttpAnswer* answer;
    int fd = -1;
    std::uint64_t offset = 0, limit = 0;
    const Progress* progress = nullptr;
    bool too_big = false, write_failed = false, first_write = true;
    CURL* curl = nullptr;
};

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// Each response's header lines; a status line starts a new response (after a redirect), so only the
// final response's headers are kept.
std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::string line(data, size * n);
    if (line.rfind("HTTP/", 0) == 0) {
        t->answer->headers.clear();
        return size * n;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos || t->answer->headers.size() > 200) return size * n;
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ' || value.back() == '\t')) value.pop_back();
    value.erase(0, std::min(value.find_first_not_of(" \t"), value.size()));
    if (value.size() > 8192) value.resize(8192);
    t->answer->headers[lower(line.substr(0, colon))] = value;
    return size * n;
}

bool write_all(int fd, const char* data, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, data, n);
        if (w < 0) return false;
        data += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

// The body: an error answer's first 4 KiB to memory; a file's bytes to the descriptor (a 200 to a Range
// request restarts the file).
std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::size_t bytes = size * n;
    long code = 0;
    libcurl().easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
    if (code >= 300 || t->fd < 0) {
        const std::size_t keep = std::min<std::size_t>(bytes, 4096 - std::min<std::size_t>(4096, t->answer->body.size()));
        t->answer->body.append(data, keep);
        return bytes;
    }
    if (t->first_write) {
        t->first_write = false;
        if (code == 200 && t->offset > 0) {  // the server ignored Range: start again
            if (::ftruncate(t->fd, 0) != 0 || ::lseek(t->fd, 0, SEEK_SET) != 0) {
                t->write_failed = true;
                return 0;
            }
            t->offset = 0;
            t->answer->written = 0;
        }
    }
    if (t->answer->written + bytes > t->limit) {
        t->too_big = true;
        return 0;
    }
    if (!write_all(t->fd, data, bytes)) {
        t->write_failed = true;
        return 0;
    }
    t->answer->written += bytes;
    return bytes;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* t = static_cast<Transfer*>(user);
    if (g_stop != 0) return 1;
    if (t->progress != nullptr && *t->progress && !(*t->progress)(t->answer->written, t->limit)) return 1;
    return 0;
}

void once_global_init() {
    static const CURLcode init = libcurl().global_init(CURL_GLOBAL_DEFAULT);
    if (init != CURLE_OK) throw Error(ErrorKind::runtime, "libcurl could not start", "check the machine's TLS libraries");
}

}  // namespace

void request_stop() { g_stop = 1; }
bool stop_requested() { return g_stop != 0; }

std::string url_origin(const std::string& url) {
    const std::size_t scheme = url.find("://");
    if (scheme == std::string::npos) return "";
    std::size_t end = url.find_first_of("/?#", scheme + 3);
    std::string origin = lower(url.substr(0, end));
    // the default ports written out, so http://h and http://h:80 are one origin
    const std::string host = origin.substr(scheme + 3);
    if (host.find(':') == std::string::npos && host.find(']') == std::string::npos)
        origin += origin.rfind("https", 0) == 0 ? ":443" : ":80";
    return origin;
}

HttpClient::HttpClient(bool allow_http) : curl_(nullptr), allow_http_(allow_http) {
    once_global_init();
    curl_ = libcurl().easy_init();
    if (curl_ == nullptr) throw Error(ErrorKind::runtime, "libcurl could not start a transfer", "try again");
}

HttpClient::~HttpClient() { libcurl().easy_cleanup(static_cast<CURL*>(curl_)); }

namespace {

// The options every request shares: protocols, user agent, timeouts, the token, the callbacks.
curl_slist* common_setup(CURL* c, const std::string& url, const std::optional<std::string>& token, bool allow_http, Transfer& t) {
    libcurl().easy_reset(c);
    libcurl().easy_setopt(c, CURLOPT_URL, url.c_str());
    const char* protocols = allow_http ? "http,https" : "https";
    libcurl().easy_setopt(c, CURLOPT_PROTOCOLS_STR, protocols);
    libcurl().easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, protocols);
    libcurl().easy_setopt(c, CURLOPT_USERAGENT, "attn/0.1.0");
    libcurl().easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    libcurl().easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
    libcurl().easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);    // a transfer that moves nothing for 60 s has stalled
    libcurl().easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
    libcurl().easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    libcurl().easy_setopt(c, CURLOPT_HEADERDATA, &t);
    libcurl().easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    libcurl().easy_setopt(c, CURLOPT_WRITEDATA, &t);
    libcurl().easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    libcurl().easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    libcurl().easy_setopt(c, CURLOPT_XFERINFODATA, &t);
    curl_slist* headers = nullptr;
    if (token) headers = libcurl().slist_append(headers, ("Authorization: Bearer " + *token).c_str());
    return headers;
}

void finish(CURL* c, CURLcode rc, Transfer& t) {
    libcurl().easy_getinfo(c, CURLINFO_RESPONSE_CODE, &t.answer->status);
    if (rc != CURLE_OK) t.answer->error = libcurl().easy_strerror(rc);
    if (t.too_big) t.answer->error = "more bytes than the hub said the file holds";
    if (t.write_failed) t.answer->error = std::string("could not write the file: ") + std::strerror(errno);
    if (g_stop != 0) t.answer->error = "interrupted";
}

}  // namespace

HttpAnswer HttpClient::head(const std::string& url, const std::optional<std::string>& token) {
    auto* c = static_cast<CURL*>(curl_);
    HttpAnswer answer;
    Transfer t{&answer};
    t.curl = c;
    curl_slist* headers = common_setup(c, url, token, allow_http_, t);
    headers = libcurl().slist_append(headers, "Accept-Encoding: identity");
    libcurl().easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    libcurl().easy_setopt(c, CURLOPT_NOBODY, 1L);
    libcurl().easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    libcurl().easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    const CURLcode rc = libcurl().easy_perform(c);
    finish(c, rc, t);
    libcurl().slist_free_all(headers);
    return answer;
}

HttpAnswer HttpClient::get(const std::string& url, const std::optional<std::string>& token, int fd, std::uint64_t offset,
                           std::uint64_t limit, const Progress& progress) {
    auto* c = static_cast<CURL*>(curl_);
    HttpAnswer answer;
    answer.written = offset;
    Transfer t{&answer, fd, offset, limit, &progress};
    t.curl = c;
    curl_slist* headers = common_setup(c, url, token, allow_http_, t);
    libcurl().easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    libcurl().easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    libcurl().easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
    libcurl().easy_setopt(c, CURLOPT_UNRESTRICTED_AUTH, 0L);
    const std::string range = std::to_string(offset) + "-";
    if (offset > 0) libcurl().easy_setopt(c, CURLOPT_RANGE, range.c_str());
    if (::lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0) answer.error = "could not seek in the file";
    const CURLcode rc = answer.error.empty() ? libcurl().easy_perform(c) : CURLE_WRITE_ERROR;
    finish(c, rc, t);
    libcurl().slist_free_all(headers);
    return answer;
}

}  // namespace attn::hub
