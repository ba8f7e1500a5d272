#!/usr/bin/env bash
# Lists every #include that points UP the layer order and fails if there is one.
#
#   data  <-  core  <-  render  <-  cli/policy  <-  cli
#
# and inside data/, core/ and render/, their rooms from the bottom (docs/architecture.md):
#   data:   base <- text <- checkpoint <- hub <- inputs
#   core:   base <- kinds <- model <- analysis
#   render: view <- text <- trace_io <- layout <- backends <- terminal <- page <- outputs
#
# A file may include its own layer and the layers below it (left of it above); tests/ and fuzz/ may
# include everything. CMake enforces the same order when compiling (build/layers/, CMakeLists.txt);
# this check says which lines break it without a build. Run from anywhere; CTest runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

order=(data/base data/text data/checkpoint data/hub data/inputs core/base core/kinds core/model core/analysis render/view render/text render/trace_io render/layout render/backends render/terminal
       render/page render/outputs cli/policy cli)
layer_of() {  # the layer a path belongs to: the longest matching folder
    case "$1" in
        cli/policy/*) echo cli/policy ;;
        cli/*) echo cli ;;
        data/*/* | core/*/*) echo "$1" | cut -d/ -f1-2 ;;
        render/*/*) echo "render/$(echo "$1" | cut -d/ -f2)" ;;
        render/*) echo render/outputs ;;  # a file directly in render/ is as high as the top room
        tests/* | fuzz/*) echo tests ;;
        *) echo "" ;;
    esac
}
rank() {
    local i
    for i in "${!order[@]}"; do [ "${order[$i]}" = "$1" ] && { echo "$i"; return; }; done
    echo 99  # tests/, fuzz/: above everything
}

bad=0
# data/ and core/ hold only rooms: a file directly in them would be built by no library.
while IFS= read -r file; do
    echo "$file: lies outside the rooms of $(dirname "$file")/ (move it into one; CMakeLists.txt builds only rooms)"
    bad=1
done < <(find data core -maxdepth 1 -type f | sort)
while IFS= read -r file; do
    from=$(layer_of "$file")
    [ -z "$from" ] || [ "$from" = tests ] && continue
    while IFS=: read -r line target; do
        to=$(layer_of "$target")
        [ -z "$to" ] && continue
        if [ "$(rank "$to")" -gt "$(rank "$from")" ]; then
            echo "$file:$line: includes \"$target\" ($to is above $from)"
            bad=1
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
                 sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done < <(find data core render cli \( -name '*.h' -o -name '*.cpp' \) | sort)

if [ "$bad" -ne 0 ]; then
    echo "check_layers: a file outside the rooms or an upward include; the order is ${order[*]} (docs/architecture.md)" >&2
    exit 1
fi
echo "check_layers: every include points down (${order[*]})"
