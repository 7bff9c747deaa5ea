"""Models the metrics train (not metrics themselves): the compiled multilayer perceptron behind the detection
classifier (:mod:`.mlp`)."""
