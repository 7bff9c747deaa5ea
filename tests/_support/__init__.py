"""Helpers shared by the test suite: data frames, a fast evaluation, reading text out of PDFs and pages, the
repository's paths, and the browser, JupyterLab and CUDA-on-the-CPU harnesses.

``tests/`` is on ``sys.path`` while the suite runs (the root ``tests/conftest.py`` puts it there), so every test,
whether under ``tests/unit``, ``tests/integration`` or ``tests/browser``, imports these as ``_support.<module>``.
"""
