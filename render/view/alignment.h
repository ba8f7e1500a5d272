// The alignment figure (Bahdanau et al. 2015, figure 3): an encoder-decoder model's cross-attention as
// target words (rows) × source words (columns), for one head, one layer's mean over heads, or the mean
// over every layer's mean. What the matrix holds and the words that say it; the figure
// (render/outputs/alignment_figures.h) and the terminal (render/terminal/model_terminal.h) draw it.
//
// Rows. The cross set's row i is the decoder step that reads tokens[i] and predicts generated_ids[i]
// (core/base/trace.h). --align-at output (the default): row i is generated word i's, the step whose
// OUTPUT it is (all T rows). --align-at input (Shift-Att, Chen et al. 2020): generated word i's row is
// the step where it is the decoder's INPUT, decoder row i + 1; the last generated word (usually </s>) is
// no step's input and has no row (T - 1 rows).
//
// Words (--words). A piece starts a word when it is the first, when it begins with "▁" (SentencePiece),
// "Ġ" (byte-level BPE), a space or "·" (attn's label for a leading space), and when it or the piece before
// it is a special token ("<...>", "[...]", which stay words of their own). A source word's columns are
// SUMMED (the weight the row puts on the word) and a target word's rows AVERAGED (each row sums to 1, and
// so does their mean), so every row of the merged matrix still sums to 1.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/base/trace.h"

namespace attn::render {

enum class AlignAt { output, input };
// "output", "input": the --align-at words; nullopt for another word.
std::optional<AlignAt> parse_align_at(const std::string& word);

struct AlignChoice {
    std::optional<std::size_t> layer;  // a layer's number in the model (cross set); none: the mean over layers
    std::optional<std::size_t> head;   // with layer: that head alone; none: the layer's mean over heads
    AlignAt at = AlignAt::output;
    bool words = false;
};

// Groups of consecutive labels, each one word (rules above): [[0], [1, 2], [3]] for "▁Das", "▁Ha", "us", "</s>".
std::vector<std::vector<std::size_t>> word_groups(const std::vector<std::string>& labels);
// The words' labels: the pieces joined, their word-start marks ("▁", "Ġ", a space) dropped ("Haus").
std::vector<std::string> word_labels(const std::vector<std::string>& labels, const std::vector<std::vector<std::size_t>>& groups);
// m (R, C) merged: row groups averaged, column groups summed: (rows.size(), cols.size()).
Mat merge_words(const Mat& m, const std::vector<std::vector<std::size_t>>& rows, const std::vector<std::vector<std::size_t>>& cols);

// The label of each generated token (T): tokens[i + 1] for i < T - 1 (the decoder reads it next); the
// last from predictions[T - 1] when its id is among them, else "#<id>".
std::vector<std::string> generated_labels(const Trace& t);

struct Alignment {
    Mat weights;                      // (R, C): R target rows (T or T - 1 pieces, or words), C source pieces or words
    std::vector<std::string> rows, cols;
    std::string title;                // "t5 · cross-attention · " + title_word
    std::string title_word;           // "layer 5 · head 3", "layer 5 · mean of 8 heads", "mean of 6 layers × 8 heads"
    std::string caption;              // what the rows, columns and cells are, how words merge, greedy or not
    std::vector<std::string> caption_lines;  // the caption in three lines: rows; columns (and words); sums, greedy
    std::string file_word;            // "align-l5-h3", "align-l5-mean", "align-mean" (+ "-input", "-words")
};

// The alignment of an encoder-decoder trace t (render/view/set_view.h is_encoder_decoder) for choice c.
// Throws attn::Error (usage) when t has no cross set, when c.layer is not one of its layers, when c.head
// is past the last head or given without a layer, or when --align-at input leaves no row (T = 1).
Alignment alignment(const Trace& t, const AlignChoice& c);

}  // namespace attn::render
