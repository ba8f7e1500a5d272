#include "data/checkpoint/torch_pickle.h"

#include <cstring>
#include <limits>
#include <unordered_map>

#include "data/base/error.h"
#include "data/base/utf8.h"

namespace attn {

const char* const kTorchPickleHint =
    "a weights file holds only tensors: get the model's model.safetensors, or a pytorch_model.bin saved by "
    "torch.save(model.state_dict())";

namespace {

const char* const kPickleDamaged = "the file is damaged or incomplete: download it again";

// The globals a state dict's pickle may name; a storage type is `first_storage` + its row in kStorages.
enum Global : std::int64_t { ordered_dict, rebuild_tensor_v2, rebuild_parameter, first_storage };

// torch's typed storages, as the safetensors dtype of their elements. Every real, integer and bool type
// is read, so that buffers a model does not use (GPT-2's h.N.attn.bias, uint8 or bool in transformers 4.x;
// BERT's int64 position_ids) pass as they do in model.safetensors: the model reader refuses a dtype only
// for a tensor it reads. Complex and quantised storages are refused by name.
struct StorageType {
    const char* name;
    const char* dtype;
    std::size_t elem_size;
};
constexpr StorageType kStorages[] = {
    {"FloatStorage", "F32", 4}, {"HalfStorage", "F16", 2}, {"BFloat16Storage", "BF16", 2}, {"DoubleStorage", "F64", 8},
    {"LongStorage", "I64", 8},  {"IntStorage", "I32", 4},  {"ShortStorage", "I16", 2},     {"CharStorage", "I8", 1},
    {"ByteStorage", "U8", 1},   {"BoolStorage", "BOOL", 1},
};
constexpr std::int64_t kStorageCount = static_cast<std::int64_t>(sizeof(kStorages) / sizeof(kStorages[0]));
static_assert(kStorageCount == 10, "one row per storage type torch.save writes for a real, integer or bool tensor");

// Pickle opcode names, for refusals (Python's pickletools names; protocols 0-5).
const char* opcode_name(std::uint8_t op) {
    switch (op) {
        case '(': return "MARK"; case '.': return "STOP"; case '0': return "POP"; case '1': return "POP_MARK";
        case '2': return "DUP"; case 'F': return "FLOAT"; case 'I': return "INT"; case 'J': return "BININT";
        case 'K': return "BININT1"; case 'L': return "LONG"; case 'M': return "BININT2"; case 'N': return "NONE";
        case 'P': return "PERSID"; case 'Q': return "BINPERSID"; case 'R': return "REDUCE"; case 'S': return "STRING";
        case 'T': return "BINSTRING"; case 'U': return "SHORT_BINSTRING"; case 'V': return "UNICODE";
        case 'X': return "BINUNICODE"; case 'a': return "APPEND"; case 'b': return "BUILD"; case 'c': return "GLOBAL";
        case 'd': return "DICT"; case '}': return "EMPTY_DICT"; case 'e': return "APPENDS"; case 'g': return "GET";
        case 'h': return "BINGET"; case 'i': return "INST"; case 'j': return "LONG_BINGET"; case 'l': return "LIST";
        case ']': return "EMPTY_LIST"; case 'o': return "OBJ"; case 'p': return "PUT"; case 'q': return "BINPUT";
        case 'r': return "LONG_BINPUT"; case 's': return "SETITEM"; case 't': return "TUPLE"; case ')': return "EMPTY_TUPLE";
        case 'u': return "SETITEMS"; case 'G': return "BINFLOAT"; case 0x80: return "PROTO"; case 0x81: return "NEWOBJ";
        case 0x82: return "EXT1"; case 0x83: return "EXT2"; case 0x84: return "EXT4"; case 0x85: return "TUPLE1";
        case 0x86: return "TUPLE2"; case 0x87: return "TUPLE3"; case 0x88: return "NEWTRUE"; case 0x89: return "NEWFALSE";
        case 0x8a: return "LONG1"; case 0x8b: return "LONG4"; case 0x8c: return "SHORT_BINUNICODE";
        case 0x8d: return "BINUNICODE8"; case 0x8e: return "BINBYTES8"; case 0x8f: return "EMPTY_SET";
        case 0x90: return "ADDITEMS"; case 0x91: return "FROZENSET"; case 0x92: return "NEWOBJ_EX";
        case 0x93: return "STACK_GLOBAL"; case 0x94: return "MEMOIZE"; case 0x95: return "FRAME";
        case 0x96: return "BYTEARRAY8"; case 0x97: return "NEXT_BUFFER"; case 0x98: return "READONLY_BUFFER";
        case 'B': return "BINBYTES"; case 'C': return "SHORT_BINBYTES";
        default: return nullptr;
    }
}

std::string hex_byte(std::uint8_t b) {
    const char* hex = "0123456789abcdef";
    return std::string("0x") + hex[b >> 4] + hex[b & 15];
}

class Interpreter {
public:
    Interpreter(const std::uint8_t* data, std::size_t size, const std::string& path) : p_(data), n_(size), path_(path) {}

    Pickle run() {
        for (;;) {
            if (at_ >= n_) damaged("the pickle ends without STOP");
            op_at_ = at_;
            const std::uint8_t op = p_[at_++];
            if (step(op)) break;
        }
        out_.end = at_;
        return std::move(out_);
    }

private:
    const std::uint8_t* p_;
    std::size_t n_, at_ = 0, op_at_ = 0;
    const std::string& path_;
    Pickle out_;
    std::vector<std::size_t> stack_, marks_;
    std::unordered_map<std::uint32_t, std::size_t> memo_;

    // ---- errors ----
    [[noreturn]] void damaged(const std::string& what) const { input_error(path_ + ": " + what, kPickleDamaged); }
    [[noreturn]] void refuse(const std::string& what) const {
        input_error(path_ + ": the pickle " + what + ", which no state dict holds; attn never runs code from a checkpoint",
                    kTorchPickleHint);
    }
    [[noreturn]] void malformed(const std::string& what) const {
        input_error(path_ + ": the pickle " + what + " (byte " + std::to_string(op_at_) + "), which is not a state dict torch.save writes",
                    kTorchPickleHint);
    }

    // ---- reading the opcode's argument ----
    const std::uint8_t* take(std::size_t k) {
        if (k > n_ - at_) damaged("the pickle ends inside " + std::string(opcode_name(p_[op_at_])) + " at byte " + std::to_string(op_at_));
        const std::uint8_t* q = p_ + at_;
        at_ += k;
        return q;
    }
    std::uint64_t le(std::size_t k) {
        const std::uint8_t* q = take(k);
        std::uint64_t v = 0;
        for (std::size_t i = k; i-- > 0;) v = v << 8 | q[i];
        return v;
    }
    std::string line() {  // GLOBAL's module and name: text up to a newline, at most 256 bytes
        const std::size_t start = at_;
        while (at_ < n_ && p_[at_] != '\n' && at_ - start <= 256) ++at_;
        if (at_ >= n_) damaged("the pickle ends inside GLOBAL at byte " + std::to_string(op_at_));
        if (p_[at_] != '\n') refuse("names a global longer than 256 bytes");
        std::string s(reinterpret_cast<const char*>(p_ + start), at_ - start);
        ++at_;
        return s;
    }

    // ---- the arena and the stack ----
    std::size_t make(PickleObject o) {
        if (out_.objects.size() >= kMaxPickleObjects) malformed("makes more than " + std::to_string(kMaxPickleObjects) + " objects");
        out_.objects.push_back(std::move(o));
        return out_.objects.size() - 1;
    }
    std::size_t make(PickleObject::Kind k) {
        PickleObject o;
        o.kind = k;
        return make(std::move(o));
    }
    void push(std::size_t id) {
        if (stack_.size() >= kMaxPickleStack) malformed("stacks more than " + std::to_string(kMaxPickleStack) + " values");
        stack_.push_back(id);
    }
    std::size_t pop() {
        if (stack_.size() <= (marks_.empty() ? 0 : marks_.back()))
            malformed(std::string(opcode_name(p_[op_at_])) + " pops an empty stack");
        const std::size_t id = stack_.back();
        stack_.pop_back();
        return id;
    }
    std::size_t top() {
        if (stack_.size() <= (marks_.empty() ? 0 : marks_.back()))
            malformed(std::string(opcode_name(p_[op_at_])) + " reads an empty stack");
        return stack_.back();
    }
    std::vector<std::size_t> pop_mark() {  // the items since the last MARK, which is removed
        if (marks_.empty()) malformed(std::string(opcode_name(p_[op_at_])) + " has no MARK before it");
        const std::size_t m = marks_.back();
        marks_.pop_back();
        std::vector<std::size_t> items(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
        stack_.resize(m);
        return items;
    }
    PickleObject& obj(std::size_t id) { return out_.objects[id]; }
    void put(std::uint64_t index) {
        if (memo_.size() >= kMaxPickleMemo && memo_.find(static_cast<std::uint32_t>(index)) == memo_.end())
            malformed("memoises more than " + std::to_string(kMaxPickleMemo) + " values");
        memo_[static_cast<std::uint32_t>(index)] = top();
    }
    void get(std::uint64_t index) {
        const auto it = memo_.find(static_cast<std::uint32_t>(index));
        if (it == memo_.end()) malformed("gets memo entry " + std::to_string(index) + ", which was never put");
        push(it->second);
    }
    std::size_t integer(std::int64_t v) {
        PickleObject o;
        o.kind = PickleObject::Kind::integer, o.integer = v;
        return make(std::move(o));
    }
    std::size_t tuple(std::vector<std::size_t> items) {
        PickleObject o;
        o.kind = PickleObject::Kind::tuple, o.items = std::move(items);
        return make(std::move(o));
    }

    // ---- globals and calls ----
    std::size_t global(const std::string& module, const std::string& name) {
        auto g = [&](Global which) {
            PickleObject o;
            o.kind = PickleObject::Kind::global, o.integer = which, o.text = module + "." + name;
            return make(std::move(o));
        };
        if (module == "collections" && name == "OrderedDict") return g(ordered_dict);
        if (module == "torch._utils" && name == "_rebuild_tensor_v2") return g(rebuild_tensor_v2);
        if (module == "torch._utils" && name == "_rebuild_parameter") return g(rebuild_parameter);
        for (std::int64_t i = 0; i < kStorageCount; ++i)
            if (module == "torch" && name == kStorages[i].name) return g(static_cast<Global>(first_storage + i));
        if (module == "torch" && name.size() > 7 && name.compare(name.size() - 7, 7, "Storage") == 0)
            input_error(path_ + ": the checkpoint holds a torch." + excerpt(name, 64) + ", which attn does not read (it reads the real, "
                                "integer and bool storages: Float, Half, BFloat16, Double, Long, Int, Short, Char, Byte, Bool)",
                        "save the model's weights in float32, float16 or bfloat16");
        refuse("calls " + excerpt(module, 80) + "." + excerpt(name, 80));
    }

    std::uint64_t whole(std::size_t id, const char* what) {
        const PickleObject& o = obj(id);
        if (o.kind != PickleObject::Kind::integer || o.integer < 0) malformed("gives a " + std::string(what) + " that is not a whole number");
        return static_cast<std::uint64_t>(o.integer);
    }
    std::vector<std::uint64_t> wholes(std::size_t id, const char* what) {
        if (obj(id).kind != PickleObject::Kind::tuple) malformed("gives a tensor " + std::string(what) + " that is not a tuple");
        if (obj(id).items.size() > kMaxTensorRank)
            malformed("gives a tensor of rank " + std::to_string(obj(id).items.size()) + " (at most " + std::to_string(kMaxTensorRank) + ")");
        std::vector<std::uint64_t> v;
        for (std::size_t i : obj(id).items) v.push_back(whole(i, what));
        return v;
    }
    bool is_empty_dict(std::size_t id) {
        return obj(id).kind == PickleObject::Kind::dict && obj(id).items.empty();
    }

    // _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, backward_hooks[, metadata])
    std::size_t rebuild_tensor(const std::vector<std::size_t>& a) {
        if (a.size() != 6 && a.size() != 7) malformed("calls _rebuild_tensor_v2 with " + std::to_string(a.size()) + " arguments, not 6");
        if (obj(a[0]).kind != PickleObject::Kind::storage) malformed("calls _rebuild_tensor_v2 on something that is not a storage");
        TorchView v;
        v.storage = obj(a[0]).ref;
        v.offset = whole(a[1], "storage offset");
        v.size = wholes(a[2], "size");
        v.stride = wholes(a[3], "stride");
        if (v.size.size() != v.stride.size()) malformed("gives a tensor whose size and stride differ in length");
        if (obj(a[4]).kind != PickleObject::Kind::boolean) malformed("gives a requires_grad that is not True or False");
        if (!is_empty_dict(a[5])) malformed("gives a tensor backward hooks");
        if (a.size() == 7 && !is_empty_dict(a[6]) && obj(a[6]).kind != PickleObject::Kind::none)
            malformed("gives a tensor metadata");
        out_.views.push_back(std::move(v));
        PickleObject o;
        o.kind = PickleObject::Kind::tensor, o.ref = out_.views.size() - 1;
        return make(std::move(o));
    }

    void reduce() {
        const std::size_t args = pop(), callable = pop();
        const PickleObject& c = obj(callable);
        if (c.kind != PickleObject::Kind::global) malformed("calls a value that is not a global");
        if (obj(args).kind != PickleObject::Kind::tuple) malformed("calls " + c.text + " without an argument tuple");
        const std::vector<std::size_t> a = obj(args).items;
        switch (c.integer) {
            case ordered_dict: {
                if (!a.empty()) malformed("calls collections.OrderedDict with arguments");
                PickleObject o;
                o.kind = PickleObject::Kind::dict, o.ordered_dict = true;
                push(make(std::move(o)));
                return;
            }
            case rebuild_tensor_v2: push(rebuild_tensor(a)); return;
            case rebuild_parameter:  // _rebuild_parameter(data, requires_grad, backward_hooks): the tensor itself
                if (a.size() != 3 || obj(a[0]).kind != PickleObject::Kind::tensor) malformed("calls _rebuild_parameter without a tensor");
                push(a[0]);
                return;
            default: refuse("calls " + c.text);  // a storage type is named, never called
        }
    }

    // ('storage', torch.<Type>Storage, key, location, numel) — the legacy format adds a sixth element,
    // view_metadata, None for every storage PyTorch 1.x saves.
    std::size_t persistent_load(std::size_t pid) {
        const PickleObject& t = obj(pid);
        if (t.kind != PickleObject::Kind::tuple || (t.items.size() != 5 && t.items.size() != 6))
            malformed("has a persistent id that is not ('storage', type, key, location, numel)");
        const auto& it = t.items;
        if (obj(it[0]).kind != PickleObject::Kind::string || obj(it[0]).text != "storage")
            malformed("has a persistent id that is not a storage");
        const PickleObject& type = obj(it[1]);
        if (type.kind != PickleObject::Kind::global || type.integer < first_storage)
            malformed("has a storage whose type is not a torch storage type");
        if (obj(it[2]).kind != PickleObject::Kind::string || obj(it[3]).kind != PickleObject::Kind::string)
            malformed("has a storage whose key or location is not a string");
        if (it.size() == 6 && obj(it[5]).kind != PickleObject::Kind::none) malformed("has a storage view (view_metadata)");
        TorchStorageRef s;
        s.key = obj(it[2]).text;
        const StorageType& st = kStorages[type.integer - first_storage];
        s.dtype = st.dtype, s.elem_size = st.elem_size;
        s.numel = whole(it[4], "storage size");
        std::size_t index = out_.storages.size();
        for (std::size_t i = 0; i < out_.storages.size(); ++i)
            if (out_.storages[i].key == s.key) index = i;
        if (index == out_.storages.size()) {
            out_.storages.push_back(s);
        } else if (out_.storages[index].dtype != s.dtype || out_.storages[index].numel != s.numel) {
            malformed("gives storage '" + excerpt(s.key, 64) + "' two types or sizes");
        }
        PickleObject o;
        o.kind = PickleObject::Kind::storage, o.ref = index;
        return make(std::move(o));
    }

    void set_items(std::size_t dict, const std::vector<std::size_t>& kv) {
        if (obj(dict).kind != PickleObject::Kind::dict) malformed("sets items of something that is not a dict");
        if (kv.size() % 2 != 0) malformed("sets a key without a value");
        auto& items = obj(dict).items;
        items.insert(items.end(), kv.begin(), kv.end());
    }

    // One opcode; true at STOP. The opcodes are those torch.save writes with pickle protocol 2 for a
    // state dict and the legacy format's other pickles; each is named with why torch writes it.
    bool step(std::uint8_t op) {
        using K = PickleObject::Kind;
        switch (op) {
            case 0x80: {  // PROTO: torch.save's pickle_protocol is 2 (protocol 4 would add FRAME and MEMOIZE)
                const auto v = le(1);
                if (v > 2) malformed("uses pickle protocol " + std::to_string(v) + "; torch.save writes protocol 2");
                return false;
            }
            case '.':  // STOP: the value on top is the result
                out_.top = pop();
                if (!stack_.empty() || !marks_.empty()) malformed("stops with values left on the stack");
                return true;
            case 'c': {  // GLOBAL: the state dict's class, tensor rebuilder and storage types
                const std::string module = line(), name = line();
                push(global(module, name));
                return false;
            }
            case 'q': put(le(1)); return false;  // BINPUT, LONG_BINPUT: the pickler memoises every object
            case 'r': put(le(4)); return false;
            case 'h': get(le(1)); return false;  // BINGET, LONG_BINGET: repeated globals and strings, tied storages
            case 'j': get(le(4)); return false;
            case '}': push(make(K::dict)); return false;   // EMPTY_DICT: _metadata, sys_info and backward hooks' args
            case ']': push(make(K::list)); return false;   // EMPTY_LIST: the legacy format's list of storage keys
            case ')': push(tuple({})); return false;       // EMPTY_TUPLE: OrderedDict()'s arguments, a scalar's size
            case '(':  // MARK: before a tuple's items and a batch of dict items or list items
                if (marks_.size() >= kMaxPickleMarks) malformed("nests MARK more than " + std::to_string(kMaxPickleMarks) + " deep");
                marks_.push_back(stack_.size());
                return false;
            case 'X': {  // BINUNICODE: names, storage keys, 'storage', 'cpu'
                const std::uint64_t len = le(4);
                const std::uint8_t* s = take(static_cast<std::size_t>(len));
                PickleObject o;
                o.kind = K::string, o.text.assign(reinterpret_cast<const char*>(s), static_cast<std::size_t>(len));
                char32_t cp = 0;
                for (std::size_t i = 0, k = 0; i < o.text.size(); i += k)  // Python decodes it as UTF-8 or fails
                    if ((k = utf8_decode(o.text, i, cp)) == 0) malformed("holds a string that is not UTF-8");
                push(make(std::move(o)));
                return false;
            }
            case 't': push(tuple(pop_mark())); return false;  // TUPLE: a persistent id, _rebuild_tensor_v2's args
            case 0x85: {  // TUPLE1, TUPLE2, TUPLE3: sizes and strides of rank 1 to 3
                const std::size_t a = pop();
                push(tuple({a}));
                return false;
            }
            case 0x86: {
                const std::size_t b = pop(), a = pop();
                push(tuple({a, b}));
                return false;
            }
            case 0x87: {
                const std::size_t c = pop(), b = pop(), a = pop();
                push(tuple({a, b, c}));
                return false;
            }
            case 'K': push(integer(static_cast<std::int64_t>(le(1)))); return false;  // BININT1, BININT2, BININT: numbers
            case 'M': push(integer(static_cast<std::int64_t>(le(2)))); return false;
            case 'J': push(integer(static_cast<std::int32_t>(static_cast<std::uint32_t>(le(4))))); return false;
            case 0x8a: {  // LONG1: numbers of 2^31 and more, and the legacy format's 80-bit magic number
                const std::size_t len = static_cast<std::size_t>(le(1));
                const std::uint8_t* b = take(len);
                if (len > 8) {
                    PickleObject o;
                    o.kind = K::big_integer, o.text.assign(reinterpret_cast<const char*>(b), len);
                    push(make(std::move(o)));
                    return false;
                }
                std::uint64_t u = 0;
                for (std::size_t i = len; i-- > 0;) u = u << 8 | b[i];
                if (len > 0 && len < 8 && (b[len - 1] & 0x80)) u |= ~std::uint64_t(0) << (8 * len);  // sign-extend
                std::int64_t v;
                std::memcpy(&v, &u, 8);
                push(integer(v));
                return false;
            }
            case 0x88: case 0x89: {  // NEWTRUE, NEWFALSE: requires_grad, sys_info's little_endian
                PickleObject o;
                o.kind = K::boolean, o.integer = op == 0x88;
                push(make(std::move(o)));
                return false;
            }
            case 'N': push(make(K::none)); return false;  // NONE: the legacy persistent id's view_metadata
            case 'R': reduce(); return false;            // REDUCE: OrderedDict(), _rebuild_tensor_v2(...)
            case 'Q': push(persistent_load(pop())); return false;  // BINPERSID: a storage
            case 's': {  // SETITEM, SETITEMS: the state dict's entries (one entry: SETITEM)
                const std::size_t v = pop(), k = pop();
                set_items(top(), {k, v});
                return false;
            }
            case 'u': {
                const std::vector<std::size_t> kv = pop_mark();
                set_items(top(), kv);
                return false;
            }
            case 'a': {  // APPEND, APPENDS: the legacy format's storage keys (one key: APPEND)
                const std::size_t v = pop();
                if (obj(top()).kind != K::list) malformed("appends to something that is not a list");
                obj(top()).items.push_back(v);
                return false;
            }
            case 'e': {
                const std::vector<std::size_t> v = pop_mark();
                if (obj(top()).kind != K::list) malformed("appends to something that is not a list");
                auto& items = obj(top()).items;
                items.insert(items.end(), v.begin(), v.end());
                return false;
            }
            case 'b': {  // BUILD: the state dict's _metadata attribute ({"_metadata": {...}}), set on the OrderedDict
                const std::size_t state = pop(), target = top();
                if (!obj(target).ordered_dict || obj(state).kind != K::dict) malformed("builds an object other than a state dict");
                return false;
            }
            default: {
                const char* name = opcode_name(op);
                refuse(name ? "uses opcode " + std::string(name) + " at byte " + std::to_string(op_at_)
                            : "uses byte " + hex_byte(op) + " at byte " + std::to_string(op_at_) + " as an opcode");
            }
        }
    }
};

}  // namespace

Pickle read_torch_pickle(const std::uint8_t* data, std::size_t size, const std::string& path) {
    return Interpreter(data, size, path).run();
}

}  // namespace attn
