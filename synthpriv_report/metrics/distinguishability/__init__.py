"""Classifier-based detection: a classifier trained to tell real from synthetic records (D-MLP) and the
membership inference risk (MIR), with the compiled multilayer perceptron behind both (:mod:`.mlp`).
"""
