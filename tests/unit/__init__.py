"""Unit tests, in folders that mirror the package's subpackages (``tests/unit/metrics/closeness`` tests
``synthpriv_report/metrics/closeness``); whole-package checks and the top-level modules' tests sit here.

The folders are packages so that test files of the same name in two folders import as two modules
(``unit.display.test_dask`` beside a future ``unit.cluster.test_dask``) under pytest's default import mode."""
