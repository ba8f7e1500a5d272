#include "cli/policy/outputs.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <set>
#include <tuple>

#include "cli/policy/files.h"
#include "data/base/error.h"
#include "render/trace_io/file_names.h"

namespace attn::policy {
namespace {

std::string base_name(const std::string& path) {
    std::string p = path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p.substr(p.find_last_of('/') + 1);
}

// The absolute path with every existing part's links followed and ".", ".." and "//" folded:
// two outputs clash when these are equal, or one lies inside the other.
std::string resolve(const std::string& path) {
    std::string abs = path;
    if (abs.empty() || abs[0] != '/') {
        char cwd[PATH_MAX];
        abs = std::string(::getcwd(cwd, sizeof cwd) ? cwd : ".") + "/" + path;
    }
    std::vector<std::string> parts;
    for (std::size_t i = 0; i <= abs.size();) {
        const auto slash = std::min(abs.find('/', i), abs.size());
        const std::string part = abs.substr(i, slash - i);
        if (part == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        i = slash + 1;
    }
    // the longest existing prefix, with its links followed
    for (std::size_t n = parts.size() + 1; n-- > 0;) {
        std::string head;
        for (std::size_t k = 0; k < n; ++k) head += "/" + parts[k];
        if (head.empty()) head = "/";
        char real[PATH_MAX];
        if (::realpath(head.c_str(), real) == nullptr) continue;
        std::string out = real;
        for (std::size_t k = n; k < parts.size(); ++k) out += (out == "/" ? "" : "/") + parts[k];
        return out;
    }
    return abs;
}

bool inside(const std::string& inner, const std::string& outer) {
    return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
           (outer == "/" || inner[outer.size()] == '/');
}

struct Identity {
    dev_t dev;
    ino_t ino;
};

bool identity(const std::string& path, Identity& id) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return false;
    id = {st.st_dev, st.st_ino};
    return true;
}

struct Output {
    const char* option;
    std::string path, real;
    std::optional<Folder> folder;  // a --png/--svg/--npy folder
    std::string prefix;            // a folder's: its figures' names start with it
    std::string npy_prefix;        // and its arrays' (a model's: "model")
};

// True when `name` in folder output o is one of attn's names there: a figure (.png or .svg) or an
// array (.npy) of the run's prefixes, whichever kind of folder this run writes it as. A later run of
// the same command may write that folder as --svg or --npy and would overwrite or remove the file.
bool attn_named(const Output& o, const std::string& name) {
    if (!o.folder) return false;
    for (Folder f : {Folder::png, Folder::svg, Folder::npy})
        for (const std::string* p : {&o.prefix, &o.npy_prefix})
            if (is_output_name(f, *p, name)) return true;
    return false;
}

// Output `file` lies right inside folder output `dir`: refused when its name is one of attn's there,
// one this run writes (.png in a --png folder) or one a run of the same command may write or remove
// there (the same name as .svg or .npy: a later --svg or --npy run into that folder).
void refuse_attn_name(const Output& file, const Output& dir) {
    const std::string name = base_name(file.real);
    if (is_output_name(*dir.folder, *dir.folder == Folder::npy ? dir.npy_prefix : dir.prefix, name))
        usage_error("two outputs would both be written to '" + file.path + "'", std::string("give ") + file.option + " a different name");
    if (attn_named(dir, name))
        usage_error(std::string(file.option) + " '" + file.path + "' has one of attn's file names inside " + dir.option + " '" + dir.path +
                        "': a later run writing that folder as --png, --svg or --npy would overwrite or remove it",
                    std::string("give ") + file.option + " a name attn does not write there, or another folder");
}

void check_pair(const Output& a, const Output& b) {
    const std::string both = a.option + std::string(" '") + a.path + "' and " + b.option + " '" + b.path + "'";
    if (a.real == b.real && (!a.folder || !b.folder))
        usage_error(both + " name the same path", "give each output its own path");
    for (const auto& [file, dir] : {std::pair<const Output*, const Output*>{&a, &b}, {&b, &a}}) {
        if (file->folder) continue;
        if (inside(dir->real, file->real))
            usage_error(both + ": " + dir->option + " would need the file " + file->path + " to be a folder",
                        "give each output its own path");
        const auto slash = file->real.find_last_of('/');
        const std::string parent = slash == 0 ? "/" : file->real.substr(0, slash);
        if (parent == dir->real) refuse_attn_name(*file, *dir);
    }
    if (a.folder && b.folder && a.real != b.real) {
        for (const auto& [in, out] : {std::pair<const Output*, const Output*>{&a, &b}, {&b, &a}}) {
            const auto slash = in->real.find_last_of('/');
            const std::string parent = slash == 0 ? "/" : in->real.substr(0, slash);
            if (parent == out->real) refuse_attn_name(*in, *out);
        }
    }
}

// An output path with a space, no folder separator and no file extension reads like the sentence
// itself: `attn show --png "The cat sat"`. Ask instead of creating a folder called that.
void check_not_sentence(const std::string& value, const std::string& option, const char* example, const std::string& command) {
    if (value.find(' ') == std::string::npos || value.find('/') != std::string::npos || value.find('.') != std::string::npos)
        return;
    const bool file = option == "--json" || option == "--html";
    usage_error(option + " '" + excerpt(value, 60) + "' looks like a sentence, not a " + (file ? "file name" : "folder name"),
                "did you mean the sentence? write it outside the option: attn " + command + " \"" + excerpt(value, 60) + "\" " +
                    option + " " + example + "; for a name with spaces write " + option + " './" + excerpt(value, 60) + "'");
}

}  // namespace

render::FileType file_type(Folder folder) {
    return folder == Folder::png ? render::FileType::png : folder == Folder::svg ? render::FileType::svg : render::FileType::npy;
}

bool is_output_name(Folder folder, const std::string& prefix, const std::string& name) {
    return render::is_attn_file_name(file_type(folder), prefix, name);
}

void check_output_paths(const OutputRequest& r) {
    if (!r.sentence_command.empty())
        for (const auto& [option, path, example] :
             {std::tuple<const char*, const std::optional<std::string>*, const char*>{"--png", &r.png, "out"},
              {"--svg", &r.svg, "out"}, {"--npy", &r.npy, "out"}, {"--json", &r.json, "trace.json"}, {"--html", &r.html, "page.html"}})
            if (*path) check_not_sentence(**path, option, example, r.sentence_command);
    if (r.json) check_output_file(*r.json, "--json");
    if (r.html) check_output_file(*r.html, "--html");
    if (r.png) check_output_dir(*r.png, "--png");
    if (r.svg) check_output_dir(*r.svg, "--svg");
    if (r.npy) check_output_dir(*r.npy, "--npy");
}

void check_outputs(const OutputRequest& r) {
    // 1. standard output is the JSON trace's only
    for (const auto& [option, dir] : {std::pair<const char*, const std::optional<std::string>*>{"--png", &r.png},
                                      {"--npy", &r.npy}, {"--svg", &r.svg}})
        if (*dir && **dir == "-")
            usage_error(std::string(option) + " takes a folder; '-' (standard output) is for --json only",
                        std::string("name a folder, e.g. ") + option + " out");
    // 2. no two outputs on one path, none inside another
    std::vector<Output> outs;
    const std::string& npy_prefix = r.npy_prefix.empty() ? r.prefix : r.npy_prefix;
    if (r.json && *r.json != "-") outs.push_back({"--json", *r.json, resolve(link_target(*r.json)), std::nullopt, "", ""});
    if (r.html && *r.html != "-") outs.push_back({"--html", *r.html, resolve(link_target(*r.html)), std::nullopt, "", ""});
    if (r.png) outs.push_back({"--png", *r.png, resolve(*r.png), Folder::png, r.prefix, npy_prefix});
    if (r.svg) outs.push_back({"--svg", *r.svg, resolve(*r.svg), Folder::svg, r.prefix, npy_prefix});
    if (r.npy) outs.push_back({"--npy", *r.npy, resolve(*r.npy), Folder::npy, r.prefix, npy_prefix});
    for (std::size_t i = 0; i < outs.size(); ++i)
        for (std::size_t j = i + 1; j < outs.size(); ++j) check_pair(outs[i], outs[j]);
    // 3. no output over an input: the same file, or an input among a folder's attn-named files
    for (const InputFile& in : r.inputs) {
        Identity input{};
        if (in.path == "-" || !identity(in.path, input)) continue;
        for (const Output& o : outs) {
            Identity id{};
            if (!o.folder) {
                if (identity(o.path, id) && id.dev == input.dev && id.ino == input.ino)
                    usage_error(std::string(o.option) + " '" + o.path + "' is the same file as " + in.option + " '" +
                                    in.path + "'",
                                "write the output to another file; attn never overwrites what it reads");
                continue;
            }
            DIR* d = ::opendir(o.path.c_str());
            if (d == nullptr) continue;
            std::string clash;
            while (const dirent* e = ::readdir(d)) {
                const std::string name = e->d_name;
                if (attn_named(o, name) && identity(join_path(o.path, name), id) &&
                    id.dev == input.dev && id.ino == input.ino) {
                    clash = join_path(o.path, name);
                    break;
                }
            }
            ::closedir(d);
            if (!clash.empty())
                usage_error(std::string(o.option) + " '" + o.path + "' would overwrite " + in.option + " '" + in.path +
                                "' (as " + base_name(clash) + ")",
                            "read the input from another folder or write the output to another");
        }
    }
    // 4. each path alone: files where files go, folders where folders go
    check_output_paths(r);
}

bool json_to_stdout(const OutputRequest& r) {
    return r.json && (*r.json == "-" || same_file_as_fd(*r.json, STDOUT_FILENO));
}

void write_outputs(const OutputRequest& r, RunOutputs& out, render::FileSet set) {
    write_files_atomic(out.files);
    // each folder holds one consistent set: an earlier run's files of this prefix that this run did
    // not write (more heads, another layer, dropout) go
    const std::string& npy_prefix = r.npy_prefix.empty() ? r.prefix : r.npy_prefix;
    if (r.png) remove_stale(*r.png, Folder::png, r.prefix, out.png.names, set);
    if (r.svg) remove_stale(*r.svg, Folder::svg, r.prefix, out.svg.names, set);
    if (r.npy) remove_stale(*r.npy, Folder::npy, npy_prefix, out.npy.names, set);
}

void write_outputs(const OutputRequest& r, RunOutputs& out, render::FileSet set, const std::vector<std::string>& figure_prefixes) {
    write_files_atomic(out.files);
    for (const std::string& prefix : figure_prefixes) {
        if (r.png) remove_stale(*r.png, Folder::png, prefix, out.png.names, set);
        if (r.svg) remove_stale(*r.svg, Folder::svg, prefix, out.svg.names, set);
    }
    if (r.npy) remove_stale(*r.npy, Folder::npy, r.npy_prefix.empty() ? r.prefix : r.npy_prefix, out.npy.names, set);
}

void say_written(const OutputRequest& r, std::ostream& os) {
    if (r.json) os << "wrote " << *r.json << "\n";
    if (r.png) os << "wrote PNGs to " << *r.png << "\n";
    if (r.svg) os << "wrote SVGs to " << *r.svg << "\n";
    if (r.npy) os << "wrote .npy files to " << *r.npy << "\n";
    if (r.html) os << "wrote " << *r.html << "\n";
}

void remove_stale(const std::string& dir, Folder folder, const std::string& prefix,
                  const std::vector<std::string>& written, render::FileSet set) {
    const std::set<std::string> keep(written.begin(), written.end());
    std::vector<std::string> stale;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return;
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (!keep.count(name) && render::is_attn_file_name(file_type(folder), prefix, name, set)) stale.push_back(name);
    }
    ::closedir(d);
    for (const auto& name : stale) {
        struct stat st {};
        const std::string path = join_path(dir, name);
        if (::lstat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) ::unlink(path.c_str());
    }
}

}  // namespace attn::policy
