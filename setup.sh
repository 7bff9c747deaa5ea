#!/usr/bin/env bash
# Installs everything synthpriv_report needs on a fresh Debian machine: system packages for the PDF and
# browser checks (Chromium and its driver, poppler, qpdf, pango), a C++ compiler (the GPU kernels' run on the CPU
# in the tests) and the package with all its extras. Safe to run twice.
set -euo pipefail
cd "$(dirname "$0")"
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)  # Selenium checks in tests/hostile
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
command -v qpdf >/dev/null 2>&1 || need+=(qpdf)  # qpdf --check on the PDF report (tests/integration/test_dossier.py)
ldconfig -p 2>/dev/null | grep -q libpango-1.0 || need+=(libpango-1.0-0 libpangoft2-1.0-0)
fc-list 2>/dev/null | grep -qi dejavu || need+=(fonts-dejavu-core)
command -v npm >/dev/null 2>&1 || need+=(npm)  # fetches Pyodide's core for the offline in-browser test
command -v unshare >/dev/null 2>&1 || need+=(util-linux)  # that test's network namespace (unshare -n) ...
command -v ip >/dev/null 2>&1 || need+=(iproute2)  # ... and its loopback device (ip link set lo up)
command -v g++ >/dev/null 2>&1 || need+=(g++)  # runs the GPU kernels' CUDA C on the CPU in tests/cuda_host.py
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -e ".[all]"  # with selenium, pdfplumber, jupyterlab (layout tests)
# compile the numba kernels once now, into numba's on-disk cache beside the package, so that a student's first
# notebook run loads them instead of waiting for the compiler (about 5 minutes on 2 cores, once; seconds after)
python3 -m synthpriv_report.tools.warmup --quiet
