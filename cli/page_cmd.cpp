// attn page FILE: the live page for a class. One self-contained HTML file that runs attn's core (compiled
// to WebAssembly, embedded in attn at build time) on whatever sentence, kind and options a student
// types, offline; it opens on a causal run of the chapter's sentence, computed here.
#include <iostream>

#include "cli/cli.h"
#include "cli/common_options.h"
#include "cli/policy/files.h"
#include "core/kinds/kinds.h"
#include "data/base/error.h"
#include "data/inputs/inputs.h"
#include "render/page/html.h"

namespace attn::cli {

void setup_page(CLI::App& app) {
    auto file = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("page", "Write the live page: attn in the browser, offline, for any typed sentence");
    cmd->footer(
        "Examples:\n"
        "  attn page lab.html\n"
        "  attn show --kind mha --heads 4 --range data \"The cat sat on the mat\" --html lab.html\n"
        "Open lab.html in a recent Chromium, Firefox or Safari, from a USB stick or an LMS: no install, no network.\n"
        "A lab that starts elsewhere: attn show's page of that run (--html FILE) carries the same panel, preset to it.");
    cmd->add_option("file", *file, "The HTML file to write")->required();
    auto color = std::make_shared<std::string>("auto");
    bind_color_option(*cmd, *color);  // the page has no shaded terminal cells; taken as every command takes it
    cmd->callback([file, color] {
        if (render::live_core_js().empty())
            usage_error("attn page needs attn's core compiled to WebAssembly, and this attn was built without em++",
                        "install emscripten (scripts/setup.sh, or apt-get install emscripten) and rebuild attn");
        policy::check_output_file(*file, "page");
        // the page opens on the chapter's sentence through a causal head, as `attn show` would run it
        const std::vector<std::string> words = {"--kind", "causal", "Your journey starts with one step"};
        InputRequest req;
        req.sentence = words[2];
        const Inputs in = make_inputs(req);
        SettingsRequest s;
        s.kind = words[1];
        RunShape shape{in.x.shape(0), in.source_x.shape(0), in.x.shape(1), in.source_x.shape(1)};
        const Trace t = run_attention(in, resolve_settings(s, shape));
        policy::write_file_atomic(*file, render::render_html(t, {"attn page", std::nullopt, std::nullopt, words}));
        std::cout << "wrote " << *file << "\n";
    });
}

}  // namespace attn::cli
