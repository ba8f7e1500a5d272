#include "data/inputs/jsonrows.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/base/limits.h"

namespace attn {
namespace {

std::string count(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The SAX events of one document, folded into rows as they arrive.
class RowsReader : public nlohmann::json_sax<nlohmann::json> {
public:
    RowsReader(const std::string& name, JsonCells cells, bool allow_object, const std::string& hint)
        : name_(name), cells_(cells), allow_object_(allow_object), hint_(hint) {}

    JsonRows finish() {
        if (!seen_x_) fail(allow_object_ ? "no rows found (no \"x\" key)" : "no rows found");
        return std::move(out_);
    }

    bool null() override { return scalar("null"); }
    bool boolean(bool v) override {
        if (where() == Where::row && cells_ == JsonCells::flag) return cell(v ? 1.0f : 0.0f);
        return scalar("a boolean");
    }
    bool number_integer(number_integer_t v) override { return number(static_cast<double>(v), v == 0 || v == 1, {}); }
    bool number_unsigned(number_unsigned_t v) override {
        return number(static_cast<double>(v), v == 0 || v == 1, {});
    }
    bool number_float(number_float_t v, const string_t& literal) override { return number(v, false, literal); }
    bool string(string_t& s) override {
        if (where() == Where::tokens) {
            out_.tokens.push_back(std::move(s));
            return true;
        }
        return scalar("a string");
    }
    bool binary(binary_t&) override { return scalar("binary"); }

    bool start_object(std::size_t) override {
        deeper();
        switch (where()) {
            case Where::top:
                if (!allow_object_) fail("expected an array of rows, found an object");
                stack_.push_back(Where::object);
                return true;
            case Where::object:
                if (key_ == "x" || key_ == "tokens") return scalar("an object");
                stack_.push_back(Where::skip);  // another key's value: ignored
                return true;
            case Where::skip:
                stack_.push_back(Where::skip);
                return true;
            default:
                return scalar("an object");
        }
    }
    bool key(string_t& k) override {
        if (where() != Where::object) return true;
        key_ = k;
        if ((k == "x" && seen_x_) || (k == "tokens" && out_.has_tokens)) fail("the key \"" + k + "\" appears twice");
        return true;
    }
    bool end_object() override {
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t) override {
        deeper();
        switch (where()) {
            case Where::top:
                seen_x_ = true;
                stack_.push_back(Where::rows);
                return true;
            case Where::object:
                if (key_ == "x") {
                    seen_x_ = true;
                    stack_.push_back(Where::rows);
                } else if (key_ == "tokens") {
                    out_.has_tokens = true;
                    stack_.push_back(Where::tokens);
                } else {
                    stack_.push_back(Where::skip);
                }
                return true;
            case Where::rows:
                row_cols_ = 0;
                stack_.push_back(Where::row);
                return true;
            case Where::skip:
                stack_.push_back(Where::skip);
                return true;
            default:
                return scalar("an array");
        }
    }
    bool end_array() override {
        const Where w = where();
        stack_.pop_back();
        if (w == Where::row) {
            const std::string row = "row " + std::to_string(out_.rows);
            if (row_cols_ == 0) fail(row + " is empty");
            if (out_.rows == 0) out_.cols = row_cols_;
            else if (row_cols_ != out_.cols)
                fail(row + " has " + count(row_cols_, "value", "values") + " but row 0 has " + std::to_string(out_.cols));
            ++out_.rows;
        } else if (w == Where::rows && out_.rows == 0) {
            fail("there are no rows (an empty array)");
        }
        return true;
    }

    bool parse_error(std::size_t position, const std::string& last_token,
                     const nlohmann::detail::exception& ex) override {
        if (ex.id == 406 && where() == Where::row)  // a number beyond float64, e.g. 1e999
            fail(cell_name() + " is not a finite float32 value (" + excerpt(last_token) + ")");
        // nlohmann counts the offending byte as read: the offset of that byte is position - 1.
        if (ex.id == 406)
            fail("the number " + excerpt(last_token) + " near byte offset " + std::to_string(position > 0 ? position - 1 : 0) +
                 " is beyond float64");
        std::string why = ex.what();
        const auto dash = why.rfind(" - ");
        why = dash == std::string::npos ? "syntax error" : why.substr(dash + 3);
        const auto last = why.find("; last read: '");  // the bytes before the error: noise here
        const auto close = last == std::string::npos ? last : why.find("'; ", last + 14);
        if (close != std::string::npos) why.erase(last, close + 1 - last);
        const std::size_t offset = position > 0 ? position - 1 : 0;
        fail("invalid JSON at byte offset " + std::to_string(offset) + ": " + why);
    }

private:
    enum class Where { top, object, rows, row, tokens, skip };

    Where where() const { return stack_.empty() ? Where::top : stack_.back(); }

    void deeper() const {
        if (stack_.size() + 1 > static_cast<std::size_t>(kMaxJsonDepth))
            fail("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (rows of values are 2 or 3 deep)");
    }

    std::string cell_name() const {
        return "row " + std::to_string(out_.rows) + ", column " + std::to_string(row_cols_);
    }

    [[noreturn]] void fail(const std::string& why) const { input_error(name_ + ": " + why, hint_); }

    bool number(double v, bool zero_or_one, const std::string& literal) {
        if (where() != Where::row) return scalar("a number");
        if (cells_ == JsonCells::flag) {
            if (!zero_or_one) fail(cell_name() + " is not true, false, 0 or 1");
            return cell(static_cast<float>(v));
        }
        if (!std::isfinite(v) || !(std::fabs(v) < kFloat32Limit))
            fail(cell_name() + " is not a finite float32 value" + (literal.empty() ? "" : " (" + excerpt(literal) + ")"));
        return cell(static_cast<float>(v));
    }

    bool cell(float v) {
        out_.values.push_back(v);
        ++row_cols_;
        return true;
    }

    // A value where it does not belong: name the place.
    bool scalar(const char* what) {
        switch (where()) {
            case Where::top:
                fail(std::string("expected ") + (allow_object_ ? "an array of rows or an object" : "an array of rows") +
                     ", found " + what);
            case Where::object:
                if (key_ == "x") fail(std::string("\"x\" must be an array of rows, not ") + what);
                if (key_ == "tokens") fail(std::string("\"tokens\" must be an array of strings, not ") + what);
                return true;  // another key: ignored
            case Where::rows:
                fail("row " + std::to_string(out_.rows) + " is " + what + ", not an array");
            case Where::row:
                fail(cell_name() + " is " + what + ", not " +
                     (cells_ == JsonCells::flag ? "true, false, 0 or 1" : "a number"));
            case Where::tokens:
                fail("token " + std::to_string(out_.tokens.size()) + " is " + what + ", not a string");
            case Where::skip:
                return true;
        }
        return true;
    }

    const std::string& name_;
    JsonCells cells_;
    bool allow_object_;
    const std::string& hint_;
    std::vector<Where> stack_;
    std::string key_;
    bool seen_x_ = false;
    std::size_t row_cols_ = 0;
    JsonRows out_;
};

}  // namespace

JsonRows parse_json_rows(std::string_view bytes, const std::string& name, JsonCells cells, bool allow_object,
                         const std::string& hint) {
    RowsReader reader(name, cells, allow_object, hint);
    nlohmann::json::sax_parse(bytes.begin(), bytes.end(), &reader);
    return reader.finish();
}

}  // namespace attn
