#include "cli/cli.h"

int main(int argc, char** argv) { return attn::cli::run_cli(argc, argv); }
