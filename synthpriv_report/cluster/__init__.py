"""Evaluations whose sets live on Dask workers: sets held on the workers (:mod:`.held`), inputs prepared
partition by partition (:mod:`.partitioned`), the searches run there (:mod:`.distributed`) and joins on key columns
(:mod:`.joins`). Imported only when an evaluation is given a Dask client.
"""
