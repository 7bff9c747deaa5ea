"""From numbers to words a reader acts on: the risk levels of each metric (:mod:`.levels`) and the verdict built
from the checks that drive it (:mod:`.verdict`).
"""
