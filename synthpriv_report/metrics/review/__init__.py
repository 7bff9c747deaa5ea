"""The metrics of the review of synthetic-data privacy measures: the review's DCR and NNDR, nearest-neighbour
adversarial accuracy, hidden rate, the rescaled measures and authenticity.
"""
