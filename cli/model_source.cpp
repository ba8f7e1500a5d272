// --model NAME through the Hugging Face cache, and attn pull's downloads (cli/model_source.h).
#include "cli/model_source.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <iostream>

#include "cli/command_line.h"
#include "cli/policy/files.h"
#include "data/base/error.h"
#include "data/base/strings.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/hub/hub_cache.h"
#include "data/hub/hub_http.h"
#include "data/hub/hub_pull.h"
#include "render/view/model_title.h"

namespace attn::cli {
namespace {

bool is_folder(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// One rewritten line on stderr per file being downloaded: bytes, rate and time left; nothing when stderr
// is not a terminal. Cleared when the download ends.
class DownloadLine {
public:
    DownloadLine() : enabled_(::isatty(STDERR_FILENO) != 0) {}
    ~DownloadLine() { clear(); }
    bool operator()(const std::string& file, std::uint64_t done, std::uint64_t total) {
        const auto now = std::chrono::steady_clock::now();
        if (file != file_) file_ = file, start_ = now, last_ = now - std::chrono::seconds(1);
        if (!enabled_ || now - last_ < std::chrono::milliseconds(200)) return true;
        last_ = now;
        const double secs = std::chrono::duration<double>(now - start_).count(), rate = secs > 0.2 ? static_cast<double>(done) / secs : 0;
        std::string line = "attn pull: " + file + "  " + decimal_bytes(static_cast<double>(done)) + " / " + decimal_bytes(static_cast<double>(total));
        if (rate > 0) {
            const long left = static_cast<long>(static_cast<double>(total - std::min(done, total)) / rate);
            char eta[48];
            std::snprintf(eta, sizeof eta, "  %s/s  %ld:%02ld left", decimal_bytes(rate).c_str(), left / 60, left % 60);
            line += eta;
        }
        if (line.size() > 100) line.resize(100);
        std::fprintf(stderr, "\r%-100s", line.c_str());
        std::fflush(stderr);
        printed_ = true;
        return true;
    }
    void clear() {
        if (printed_) std::fprintf(stderr, "\r%-100s\r", "");
        printed_ = false;
    }

private:
    bool enabled_, printed_ = false;
    std::string file_;
    std::chrono::steady_clock::time_point start_, last_;
};

volatile std::sig_atomic_t g_stop_signal = 0;  // the signal that stopped a download

extern "C" void stop_download(int sig) {
    g_stop_signal = sig;
    hub::request_stop();
}

// SIGINT, SIGTERM and SIGHUP stop the transfer (the download loop removes its temporary file) while in
// scope; the process then ends by that signal, as it would have without the cleanup.
struct StopOnSignal {
    static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction old[3] = {};
    StopOnSignal() {
        struct sigaction sa {};
        sa.sa_handler = stop_download;
        ::sigemptyset(&sa.sa_mask);
        for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &sa, &old[i]);
    }
    ~StopOnSignal() {
        for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &old[i], nullptr);
    }
};

// A path as a note shows it: a cache folder's name may hold any byte but '/' and NUL, and a terminal
// would obey control characters, so they are written \xHH (excerpt, data/base/error.h).
std::string shown(const std::string& path) { return excerpt(path, path.size()); }

// A note for stderr: at once on a terminal; otherwise after the command succeeded, so that an error
// stays the one line on stderr.
std::string g_deferred;
void note(const std::string& text) {
    if (::isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "%s\n", text.c_str());
    else g_deferred += text + "\n";
}

hub::PullResult pull(const hub::HubEnvironment& env, const hub::RepoRef& ref) {
    DownloadLine line;
    hub::PullEvents events;
    events.progress = [&line](const std::string& file, std::uint64_t done, std::uint64_t total) { return line(file, done, total); };
    events.note = [&line](const std::string& text) {  // beside the progress line: on a terminal only
        if (::isatty(STDERR_FILENO) == 0) return;
        line.clear();
        std::fprintf(stderr, "attn pull: %s\n", text.c_str());
    };
    StopOnSignal stop;
    try {
        return hub::pull_model(env, ref, events);
    } catch (const Error& e) {
        if (!hub::stop_requested()) throw;
        line.clear();
        std::fprintf(stderr, "%s\n", error_line(e.what(), e.hint()).c_str());
        const int sig = g_stop_signal != 0 ? static_cast<int>(g_stop_signal) : SIGINT;
        std::signal(sig, SIG_DFL);  // the parent sees the signal, as after any other interrupt
        std::raise(sig);
        throw;
    }
}

}  // namespace

std::unique_ptr<ModelCheckpoint> load_model(const std::string& dir) {
    auto m = load_model_checkpoint(dir);
    if (const std::string unused = unused_tensors_note(*m); !unused.empty()) note("attn: warning: " + shown(unused));
    return m;
}

void print_deferred_notes() {
    std::fputs(g_deferred.c_str(), stderr);
    g_deferred.clear();
}

std::string model_display_name(const std::string& folder) {
    if (auto repo = hub::repo_of_snapshot_path(folder)) return render::printable_name(*repo);
    std::string name = policy::folder_name(folder);
    if (name == "." || name == ".." || name == "/") {  // --model . names the folder it stands for
        if (char* real = ::realpath(folder.c_str(), nullptr)) {
            name = policy::folder_name(real);
            std::free(real);
        }
    }
    return render::printable_name(name);
}

std::string pull_model_files(const std::string& name, bool print_summary) {
    const hub::RepoRef ref = hub::parse_repo_ref(name);
    const hub::HubEnvironment env = hub::hub_environment();
    if (env.offline)
        usage_error("attn pull needs the network, but HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE is set",
                    "unset it to download; offline, attn uses what the cache holds (attn models --cached)");
    const hub::PullResult r = pull(env, ref);
    if (print_summary)
        std::cout << ref.text() << " at commit " << r.snapshot.commit << ": " << r.files << " files, " << r.downloaded << " downloaded ("
                  << decimal_bytes(static_cast<double>(r.bytes)) << ")\n"
                  << shown(r.snapshot.path) << "\n";
    return r.snapshot.path;
}

std::string model_folder(const std::string& name, bool offline) {
    if (is_folder(name) || !hub::looks_like_repo_id(name)) return name;
    const hub::RepoRef ref = hub::parse_repo_ref(name);
    const hub::HubEnvironment env = hub::hub_environment();
    const std::optional<hub::Snapshot> s = hub::find_snapshot(env.cache, ref);
    const std::vector<std::string> missing = s ? hub::missing_model_files(s->path) : std::vector<std::string>{};
    if (s && missing.empty()) {
        note("attn: " + ref.text() + " from the Hugging Face cache: " + shown(s->path));
        return s->path;
    }
    if (offline || env.offline) {
        const std::string why = offline ? "--offline" : "HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE";
        if (s)
            input_error("the cached snapshot of " + ref.text() + " lacks " + join(missing) + " (" + s->path + "), and " + why + " forbids downloading it",
                        "run attn pull " + ref.text() + " where the network allows, or give a model folder");
        input_error("'" + name + "' is neither a folder nor a model in the Hugging Face cache (" + env.cache + ")",
                    "run attn pull " + ref.text() + " where the network allows (" + why + " forbids it now), or give a model folder");
    }
    if (::isatty(STDERR_FILENO) != 0) note("attn: " + ref.text() + " is not in the Hugging Face cache (" + shown(env.cache) + "): downloading it");
    const std::string path = pull_model_files(name, false);
    note("attn: " + ref.text() + " from the Hugging Face cache: " + shown(path));
    return path;
}

}  // namespace attn::cli
