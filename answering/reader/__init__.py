"""The reader: the wheel's encoder fine-tuned on reading comprehension,
reading a question and a passage together (``windows.py`` puts them in
front of it, ``model.py`` runs it on ONNX Runtime, ``training.py`` trains
it with PyTorch, which only ``manage.py train_reader`` needs)."""
