"""What several metric families read: the distance arrays and their reductions (:mod:`.arrays`) and the
holdout shift check (:mod:`.shift`).
"""
