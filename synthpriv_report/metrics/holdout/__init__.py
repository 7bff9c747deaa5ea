"""The same distances measured against a holdout of real records never trained on: the holdout share and the
holdout tests.
"""
