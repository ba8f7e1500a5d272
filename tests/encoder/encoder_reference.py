"""A plain PyTorch forward of BERT, RoBERTa and DistilBERT written from Hugging Face's modeling code
(modeling_bert, modeling_roberta, modeling_distilbert), eager attention, float32: every layer's and
head's attention weights and the masked-LM head's probabilities. Weights are keyed by the names
make_encoder.py uses (without the base prefix)."""
import math

import numpy as np
import torch
import torch.nn.functional as F


def act_fn(name):
    return {"gelu": F.gelu, "relu": F.relu,
            "gelu_new": lambda x: F.gelu(x, approximate="tanh"),
            "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh")}[name]


def forward(values, config, ids, type_ids=None, qk=None):
    """Returns (weights: list over layers of (H, T, T) numpy arrays, hidden state (T, C) torch tensor).
    qk: a list that receives each layer's (q (H, T, d), k (H, T, d), scale) as the scores' product reads
    them (after the bias; DistilBERT's q already divided by √d, scale 1), scores = q·kᵀ · scale."""
    W = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in values.items()}
    fam = config["model_type"]
    distil = fam == "distilbert"
    C = config["dim"] if distil else config["hidden_size"]
    H = config["n_heads"] if distil else config["num_attention_heads"]
    L = config["n_layers"] if distil else config["num_hidden_layers"]
    eps = 1e-12 if distil else config.get("layer_norm_eps", 1e-12)
    act = act_fn(config.get("activation" if distil else "hidden_act", "gelu"))
    d = C // H
    ids_t = torch.tensor(ids, dtype=torch.long)
    T = len(ids)
    # embeddings
    x = W["embeddings.word_embeddings.weight"][ids_t]
    if fam == "roberta":
        pad = config.get("pad_token_id", 1)
        mask = (ids_t != pad).long()
        pos = torch.cumsum(mask, 0) * mask + pad
    else:
        pos = torch.arange(T)
    if not distil:
        tt = torch.tensor(type_ids if type_ids is not None else [0] * T, dtype=torch.long)
        x = x + W["embeddings.token_type_embeddings.weight"][tt]
    x = x + W["embeddings.position_embeddings.weight"][pos]
    x = F.layer_norm(x, (C,), W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], eps)
    names = {"q": "attention.q_lin", "k": "attention.k_lin", "v": "attention.v_lin", "o": "attention.out_lin",
             "ln1": "sa_layer_norm", "up": "ffn.lin1", "down": "ffn.lin2", "ln2": "output_layer_norm"} if distil else \
        {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value", "o": "attention.output.dense",
         "ln1": "attention.output.LayerNorm", "up": "intermediate.dense", "down": "output.dense", "ln2": "output.LayerNorm"}
    base = "transformer.layer." if distil else "encoder.layer."
    weights = []
    for l in range(L):
        def lin(role, inp):
            n = base + str(l) + "." + names[role]
            return F.linear(inp, W[n + ".weight"], W[n + ".bias"])

        def ln(role, inp):
            n = base + str(l) + "." + names[role]
            return F.layer_norm(inp, (C,), W[n + ".weight"], W[n + ".bias"], eps)
        q = lin("q", x).view(T, H, d).transpose(0, 1)  # (H, T, d)
        k = lin("k", x).view(T, H, d).transpose(0, 1)
        v = lin("v", x).view(T, H, d).transpose(0, 1)
        if qk is not None:
            qk.append(((q / math.sqrt(d) if distil else q).numpy().copy(), k.numpy().copy(), 1.0 if distil else 1 / math.sqrt(d)))
        if distil:
            scores = (q / math.sqrt(d)) @ k.transpose(1, 2)
        else:
            scores = (q @ k.transpose(1, 2)) / math.sqrt(d)
        p = torch.softmax(scores, dim=-1)  # (H, T, T)
        weights.append(p.numpy().copy())
        ctx = (p @ v).transpose(0, 1).reshape(T, C)
        x = ln("ln1", lin("o", ctx) + x)
        x = ln("ln2", lin("down", act(lin("up", x))) + x)
    return weights, x


def mlm_probs(values, config, x, positions):
    """The masked-LM head's softmax (len(positions), V) at the given rows of the last hidden state."""
    W = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in values.items()}
    fam = config["model_type"]
    distil = fam == "distilbert"
    C = x.shape[1]
    eps = 1e-12 if distil else config.get("layer_norm_eps", 1e-12)
    h = x[positions]
    if fam == "bert":
        h = F.linear(h, W["cls.predictions.transform.dense.weight"], W["cls.predictions.transform.dense.bias"])
        h = act_fn(config.get("hidden_act", "gelu"))(h)
        h = F.layer_norm(h, (C,), W["cls.predictions.transform.LayerNorm.weight"], W["cls.predictions.transform.LayerNorm.bias"], eps)
        logits = F.linear(h, W["embeddings.word_embeddings.weight"], W["cls.predictions.bias"])
    elif fam == "roberta":
        h = F.linear(h, W["lm_head.dense.weight"], W["lm_head.dense.bias"])
        h = F.gelu(h)
        h = F.layer_norm(h, (C,), W["lm_head.layer_norm.weight"], W["lm_head.layer_norm.bias"], eps)
        logits = F.linear(h, W["embeddings.word_embeddings.weight"], W["lm_head.bias"])
    else:
        h = F.linear(h, W["vocab_transform.weight"], W["vocab_transform.bias"])
        h = act_fn(config.get("activation", "gelu"))(h)
        h = F.layer_norm(h, (C,), W["vocab_layer_norm.weight"], W["vocab_layer_norm.bias"], eps)
        logits = F.linear(h, W["embeddings.word_embeddings.weight"], W["vocab_projector.bias"])
    return torch.softmax(logits, dim=-1).numpy()
