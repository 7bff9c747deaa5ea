"""Attack simulations: attribute inference (CAP, AIR), common rows, hitting rate, the disclosure of training
uniques, and the membership attacks (distance, density and local likelihood ratios, and the strongest of them).
"""
