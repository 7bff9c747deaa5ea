"""Distances from each synthetic record to the closest training record: DCR, NNDR, exact and near copies, the
proximity-ratio privacy score.
"""
