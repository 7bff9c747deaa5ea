"""Matching records by value: identical records and shared key combinations (:mod:`.identity`) and the joins on
key columns behind them (:mod:`.joins`).
"""
