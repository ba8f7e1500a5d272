// HTTP for the hub client, through libcurl: a HEAD that follows no redirect, and a GET into a file
// descriptor that resumes with Range. TLS verification is libcurl's default and never turned off;
// plain http:// only when the client is made for an http:// endpoint (tests' local hub). A stop
// request (request_stop(), safe from a signal handler) aborts a transfer at its next progress call.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace attn::hub {

struct HttpAnswer {
    long status = 0;                             // 0: no answer (error says why)
    std::map<std::string, std::string> headers;  // lower-case names; the final response's only
    std::string body;                            // an error answer's first 4 KiB
    std::string error;                           // libcurl's reason when the transfer failed
    std::uint64_t written = 0;                   // GET: the file's size after the transfer
};

// Called with the bytes of the file so far and its expected size; false aborts the transfer.
using Progress = std::function<bool(std::uint64_t done, std::uint64_t total)>;

class HttpClient {
public:
    explicit HttpClient(bool allow_http);
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // HEAD with Accept-Encoding: identity, the token as Bearer authorization, no redirect followed.
    HttpAnswer head(const std::string& url, const std::optional<std::string>& token);
    // GET into fd (a file open for writing, holding `offset` bytes already): with offset > 0 asks for
    // Range: bytes=offset-, and a 200 answer truncates the file and starts again. At most `limit`
    // bytes in all. Redirects followed (5 at most); libcurl sends the token to no other host.
    HttpAnswer get(const std::string& url, const std::optional<std::string>& token, int fd, std::uint64_t offset,
                   std::uint64_t limit, const Progress& progress);

private:
    void* curl_;  // CURL*
    bool allow_http_;
};

// Asks every transfer in progress to stop (async-signal-safe); stop_requested() tells whether it was.
void request_stop();
bool stop_requested();

// The scheme, host and port of a URL ("http://127.0.0.1:8000"), to tell another host from the hub.
std::string url_origin(const std::string& url);

}  // namespace attn::hub
