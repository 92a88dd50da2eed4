"""Models: building and loading checkpoints, tokenizers and subword codecs, GGUF files, the fairseq
environment, and model names resolved through the Hugging Face cache."""
