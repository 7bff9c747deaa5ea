"""The notebooks under notebooks/ execute without error, and what their prose says is what they compute.

Each notebook runs once (nbclient, kernel python3, the worktree's package first on the path) in a temporary folder
that holds a copy of it, as JupyterLab runs a notebook in its own folder. After its last cell, one more cell runs
in the same kernel and evaluates every claim listed below against the notebook's own variables: each quantitative
statement of the prose (a number, a comparison, "rises", "below the holdout") is one claim, quoted by a snippet of
the prose it checks, so that a sentence changed without its claim fails (the snippet is gone), and a number added
to the prose without a claim fails too (every number of the prose must be covered by one).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from _support.paths import ROOT
from nbclient import NotebookClient

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@dataclass(frozen=True)
class Claim:
    """A statement of a notebook's prose: ``quote`` (a snippet of a Markdown cell), the numbers it states, and
    ``check``, a Python expression over the notebook's variables that is true when the statement is."""

    quote: str
    check: str
    numbers: tuple[str, ...] = ()


LAB = "02_teaching_the_metrics.ipynb"
CLAIMS: dict[str, list[Claim]] = {
    "01_quickstart.ipynb": [
        Claim("a 3,000-record sample", "len(demo.real) == 3000", ("3,000",)),
        Claim("an honest generator that copies no record",
              "ev.results()['exact_copies'].value == 0"),
        Claim("copies every record it outputs (half of them exactly, the other half with a small change",
              "leaky.results()['exact_copies'].value == 0.5 and "
              "len(demo.synthetic_leaky.merge(demo.real.drop_duplicates())) == 1500"),
        Claim("closeness to the training data rather than the holdout",
              "leaky.results()['holdout_dcr_share'].value > 0.5 and "
              "leaky.results()['holdout_dcr_share'].level == 'high'"),
        Claim("a low proximity-ratio score", "leaky.results()['privacy_score'].value < 50"),
        Claim("the cut-offs are set so that the same rule flags at most 1% of the holdout",
              "risk.attrs['risk_percentile'] == 1.0 and risk.attrs['reference_flagged_share'] <= 0.01", ("1%",)),
    ],
    LAB: [
        Claim("an **honest** one that copies nobody", "dcr['honest'].details['exact_copy_share'] == 0"),
        Claim("copies every record it outputs, half exactly and half with a small change",
              "dcr['leaky'].details['exact_copy_share'] == 0.5 and "
              "len(demo.synthetic_leaky.merge(demo.real.drop_duplicates())) == len(demo.synthetic_leaky) // 2"),
        Claim("the distance is the average over columns, between 0 (identical) and 1",
              "all(0 <= r.value <= 1 for r in dcr.values()) and "
              "all(0 <= d <= 1 for r in dcr.values() for d in (r.details['p5'], r.details['mean']))", ("0", "1")),
        Claim("covers the true value 95 times in 100",
              "all('95%' in get_spec(n).interval_kind for n in CHECKS)", ("95", "100", "95%")),
        Claim("A leaky generator's DCR piles up at 0",
              "dcr['leaky'].value < 1e-3 * dcr['honest'].value", ("0",)),
        Claim("records *farther* from any real person than real people are",
              "dcr['honest'].details['ratio_to_baseline'] > 1"),
        Claim("(a 17-year-old widow with a doctorate)",
              "len(demo.real[(demo.real['age'] == 17) & (demo.real['marital-status'] == 'Widowed') & "
              "(demo.real['education'] == 'Doctorate')]) == 0", ("17",)),
        Claim("The cell prints the ratio of the\nhonest median DCR to the holdout's median distance: it is above 1",
              "honest_ratio > 1", ("1",)),
        Claim("from 0.01 to 0.1",
              "[evs['honest'].results(metrics=['near_copies'], near_copy_quantile=q)['near_copies'].value "
              "for q in (0.01, 0.1)] == sorted([evs['honest'].results(metrics=['near_copies'], "
              "near_copy_quantile=q)['near_copies'].value for q in (0.01, 0.1)])", ("0.01", "0.1")),
        Claim("Both shares rise",
              "all(a <= b for a, b in zip(*[(r.value, r.calibration) for r in "
              "(evs['honest'].results(metrics=['near_copies'], near_copy_quantile=q)['near_copies'] "
              "for q in (0.01, 0.1))])) and evs['honest'].results(metrics=['near_copies'], "
              "near_copy_quantile=0.01)['near_copies'].calibration < evs['honest'].results("
              "metrics=['near_copies'], near_copy_quantile=0.1)['near_copies'].calibration"),
        Claim("The honest generator stays below the holdout at both settings, so its level stays low",
              "all(r.value < r.calibration and r.level == 'low' for r in "
              "(evs['honest'].results(metrics=['near_copies'], near_copy_quantile=q)['near_copies'] "
              "for q in (0.01, 0.1)))"),
        Claim("`fnlwgt` by up to 2%",
              "dict((c, s) for c, s, _ in __import__('synthpriv_report.datasets', fromlist=['x'])"
              ".NEAR_COPY_CHANGES) == {'age': 1, 'hours-per-week': 2, 'fnlwgt': 0.02}", ("2%",)),
        Claim("Exact copies are caught first by the\nexact-copy check, at the smallest share tried",
              "first['exact copies']['exact_copies'] == min(SHARES) and "
              "all(s is None or s >= min(SHARES) for s in first['exact copies'].values())"),
        Claim("Near copies need a larger share from the distance checks",
              "min(s for c, s in first['near copies'].items() if s is not None and c != 'mia_worst_case') > "
              "min(s for s in first['exact copies'].values() if s is not None)"),
        Claim("wrongly accusing 1% of real people who\n  were not in the training data: chance alone gives about 1%",
              "(lambda r: r.details['tpr_at']['0.01']['fpr'] <= 0.01 and abs(r.value - 0.01) < 0.01)"
              "(evs['honest'].results(metrics=['mia_distance_ratio'])['mia_distance_ratio'])", ("1%",)),
        Claim("The membership attack finds them at the smallest share too",
              "first['near copies']['mia_worst_case'] == min(SHARES)"),
        Claim("explain why the holdout share (`holdout_dcr_share`) reacts so late",
              "all((f['holdout_dcr_share'] is None or f['holdout_dcr_share'] > min(s for s in f.values() "
              "if s is not None)) for f in first.values())"),
        Claim("50% is ideal", "'50% is ideal' in get_spec('holdout_dcr_share').summary", ("50%",)),
        Claim("yet the share is not 100%", "hs.value < 1", ("100%",)),
        Claim("`subsampled: training`", "hs.details['subsampled'] == 'training'"),
        Claim("is at distance 0 from\nit", "dcr['leaky'].details['p5'] == 0", ("0",)),
        Claim("With half the training records in the\nsubsample, the expected share is ½ + ½ × ½ = 75%",
              "kept == 0.5 and expected == 0.75 and abs(hs.value - 0.75) < 0.02", ("75%",)),
        Claim("compares how many TSPR\n  fall below q with how many TTPR do (100: no excess closeness)",
              "get_spec('privacy_score').value_range == (0.0, 100.0) and "
              "evs['honest'].results(metrics=['privacy_score'])['privacy_score'].calibration == 100",
              ("100",)),
        Claim("(1 for a copy)", "get_spec('nndr_review').value_range[1] == 1 and "
              "evs['leaky'].results(metrics=['nndr_review'])['nndr_review'].value > "
              "evs['honest'].results(metrics=['nndr_review'])['nndr_review'].value", ("1",)),
        Claim("when `alpha` grows from 0.05 to 0.3", "set(a for _, a in ps) == {0.05, 0.3}", ("0.05", "0.3")),
        Claim("The leaky score rises and the honest one stays at 100",
              "ps['leaky', 0.3] > ps['leaky', 0.05] and ps['honest', 0.05] == ps['honest', 0.3] == 100",
              ("100",)),
        Claim("the honest generator's `nndr` at `nndr_threshold` = 1", "all(r.value is not None for r in nd.values())",
              ("1",)),
        Claim("Below. At threshold 1", "nd['honest'].value < nd['honest'].calibration", ("1",)),
        Claim("plenty of fresh real records are (the holdout's share is large)",
              "nd['honest'].calibration > 2 * nd['honest'].value"),
        Claim("A number computed from 3,000 records", "len(demo.synthetic) == 3000", ("3,000",)),
        Claim("A **95% confidence\ninterval**", "all('95%' in get_spec(n).interval_kind for n in CHECKS)", ("95%",)),
        Claim("the score is 100 − max(D, 0)",
              "evs['honest'].results(metrics=['dcr_test'])['dcr_test'].value == 100 and "
              "evs['leaky'].results(metrics=['dcr_test'])['dcr_test'].value < 100", ("100", "0")),
        Claim("its interval contains 50%",
              "(lambda r: r.interval[0] <= 0.5 <= r.interval[1])(evs['honest'].results(metrics=CHECKS)"
              "['holdout_dcr_share'])", ("50%",)),
        Claim("The leaky one's interval lies far above 50%: beyond chance",
              "evs['leaky'].results(metrics=CHECKS)['holdout_dcr_share'].interval[0] > 0.6", ("50%",)),
        Claim("a false alarm from any of the seven\nabout 5% of the time (Bonferroni's correction",
              "VERDICT_FALSE_ALARM == 0.05 and len(CHECKS) == 7 and abs(check_alpha(7) * 7 - 0.05) < 1e-12 "
              "and set(CHECKS) == set(verdict_metric_names())",
              ("5%",)),
        Claim("**key\nfields** (here age, sex, race and marital status) and wants their **sensitive** one (income)",
              "tuple(demo.key_fields) == ('age', 'sex', 'race', 'marital-status') and "
              "tuple(demo.sensitive_fields) == ('income',)"),
        Claim("Only somewhat better",
              "0 < zc['leaky'].value - zc['leaky'].calibration < 0.25 and "
              "zc['leaky'].value - zc['leaky'].calibration > zc['honest'].value - zc['honest'].calibration"),
        Claim("so the baseline is high", "zc['honest'].calibration > 0.5"),
        Claim("the distance checks, which see the copies directly, react\nfar more strongly",
              "evs['leaky'].results(metrics=CHECKS)['exact_copies'].level == 'high' and "
              "zc['leaky'].level in ('low', 'medium')"),
        Claim("about 5% of honest generators get a false alarm by\ndesign", "VERDICT_FALSE_ALARM == 0.05", ("5%",)),
        Claim('with near copies alone its row can read 0% exact copies and still leave "low"',
              "first['near copies']['exact_copies'] is not None and "
              "all(leaks['near copies'][s]['exact_copies'].value == 0 for s in SHARES)", ("0%",)),
        Claim("the most atypical 2% of the training records copied with a little\n  noise",
              "len(releases['atypical'].merge(demo.synthetic.astype({c: float for c in "
              "demo.synthetic.select_dtypes('number').columns}).drop_duplicates(), how='left', indicator=True)"
              ".query(\"_merge == 'left_only'\")) == round(0.02 * len(demo.real))", ("2%",)),
        Claim("(e^1 ≈ 2.7)", "abs(__import__('math').e - 2.7) < 0.05", ("1", "2.7")),
        Claim("The atypical release passes every distance check (low) and fails only the membership attack",
              "all(more['atypical'].results()[c].level == 'low' for c in CHECKS if c != 'mia_worst_case') and "
              "more['atypical'].results()['mia_worst_case'].level in ('medium', 'high')"),
        Claim("the attack flags every one of the most atypical 1%",
              "(lambda t: t['n_flagged'] == t['n'] == round(0.01 * len(demo.real)))"
              "(mia['atypical'].details['atypical']['0.01'])", ("1%",)),
        Claim("its attack finds about as many people as it wrongly accuses",
              "mia['private (ε = 1)'].level == 'low' and "
              "mia['private (ε = 1)'].details['tpr_at']['0.01']['tpr'] < __import__('math').e * 0.01"),
        Claim("could not find more than about 2.7 times as many, and its ε lower bound is 0",
              "mia['private (ε = 1)'].details['epsilon_lower_bound'] == 0", ("2.7", "0")),
        Claim("the copied atypical people score above every outsider, so at\nthe smallest rates the attack finds them "
              "while accusing nobody",
              "(lambda p: p.flagged_nonmembers == 0 and p.flagged_members > 0 and p.atypical_flagged == p.atypical_n)"
              "(operating_point(more['atypical'], EXPLORER_FPRS[0]))"),
        Claim("at the right end it finds\nbarely more than chance",
              "(lambda p: p.fpr < p.tpr < 1.1 * p.fpr)(operating_point(more['atypical'], EXPLORER_FPRS[-1]))"),
        Claim("The private release's ε lower bound is 0 at every rate",
              "all(operating_point(more['private (ε = 1)'], f).epsilon_lower_bound == 0 for f in EXPLORER_FPRS)",
              ("0",)),
        Claim("at the 16:9 shape of a slide",
              "(lambda p: abs(p['width_in'].default / p['height_in'].default - 16 / 9) < 1e-3)"
              "(__import__('inspect').signature(__import__('synthpriv_report.tools.teaching', fromlist=['x']).slides)"
              ".parameters)", ("16", "9")),
        Claim("The CART release copies\npeople wholesale: every check fails",
              "all(more['CART (memorises)'].results()[c].level == 'high' for c in CHECKS)"),
        Claim("\"High risk\" means at least one check found",
              "evs['leaky'].results(metrics=CHECKS).verdict.level == 'high' and "
              "evs['honest'].results(metrics=CHECKS).verdict.level == 'low'"),
    ],
    "03_compliance_report.ipynb": [
        Claim("a 3,000-record Adult census sample", "len(demo.real) == 3000", ("3,000",)),
        Claim("They go to a folder `reports/` beside this notebook",
              "all(p.resolve().parent == Path('reports').resolve() for p in (html_path, pdf_path, json_path))"),
    ],
}

#: Names the claims use that the notebook computes inline in a solution's printed cell; defined here for the
#: check cell when the notebook does not define them itself.
_PRELUDE = """
from synthpriv_report.analysis.vulnerable import operating_point
from synthpriv_report.display.widgets import EXPLORER_FPRS
from synthpriv_report.core.registry import get_spec, verdict_metric_names
from pathlib import Path
"""
_EXTRA = {
    LAB: """
zc = {label: ev.results(metrics=['zcap'])['zcap'] for label, ev in evs.items()}
""",
}


def _prose(nb: nbformat.NotebookNode) -> str:
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def _flat(text: str) -> str:
    """Text with every run of white space made one space (a quote may break where the prose does not)."""
    return " ".join(text.split())


def _numbers(prose: str) -> set[str]:
    """The numbers a reader takes as facts: outside code spans, headings, the plan's table and the sources
    appendix, leaving out exercise and section numbers and the years of citations."""
    prose = prose.split("## Appendix: sources")[0]
    prose = re.sub(r"`[^`]*`", "", prose)
    prose = re.sub(r"\([^()]*\d{4}\)", "", prose)  # (Gower, 1971), (correct ...; Taub et al., 2018)
    prose = re.sub(r"\b([Ee]xercises?|[Ss]ection|[Cc]ells?) \d+( and \d+)?", "", prose)
    lines = [ln for ln in prose.splitlines() if not ln.lstrip().startswith(("#", "|"))]
    found = re.findall(r"(?<![\w.])\d[\d,.]*%?", "\n".join(lines))
    return {n.rstrip(".,") for n in found}


_EXECUTED: dict[str, tuple[nbformat.NotebookNode, dict[str, object], dict[str, float]]] = {}


def _execute(path: Path, tmp: Path) -> tuple[nbformat.NotebookNode, dict[str, object], dict[str, float]]:
    """Run the notebook (once per session) beside a copy of itself and evaluate its claims in its kernel."""
    if path.name in _EXECUTED:
        return _EXECUTED[path.name]
    work = tmp / path.stem
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, work / path.name)
    nb = nbformat.read(work / path.name, as_version=4)
    claims = [c.check for c in CLAIMS.get(path.name, [])]
    check = (_PRELUDE + _EXTRA.get(path.name, "") +
             f"import json as _json\n_res = {{}}\nfor _i, _e in enumerate({claims!r}):\n"
             "    try:\n        _res[_i] = bool(eval(_e))\n    except Exception as _x:\n"
             "        _res[_i] = f'{type(_x).__name__}: {_x}'\n"
             "print('CLAIMS=' + _json.dumps(_res))\n")
    env_path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    os.environ["PYTHONPATH"] = env_path  # the kernel imports this checkout's package
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(work)}})
    times: dict[str, float] = {}
    with client.setup_kernel():
        t0 = time.perf_counter()
        first_figure = None
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            client.execute_cell(cell, i)
            if first_figure is None and any(
                    "image/png" in o.get("data", {}) or "application/vnd.jupyter.widget-view+json" in o.get("data", {})
                    or "<img" in o.get("data", {}).get("text/html", "") for o in cell.outputs):
                first_figure = time.perf_counter() - t0
        times["total"] = time.perf_counter() - t0
        times["first_figure"] = first_figure if first_figure is not None else float("nan")
        cell = nbformat.v4.new_code_cell(check)
        nb.cells.append(cell)
        client.execute_cell(cell, len(nb.cells) - 1)
        nb.cells.pop()
    text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    match = re.search(r"CLAIMS=(\{.*\})", text)
    assert match, f"the claim cell printed no result: {text[-2000:]} {cell.outputs}"
    results = {int(k): v for k, v in json.loads(match.group(1)).items()}
    _EXECUTED[path.name] = (nb, results, times)
    print(f"{path.name}: executed in {times['total']:.1f} s, first figure after {times['first_figure']:.1f} s")
    return _EXECUTED[path.name]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("notebooks")


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_and_its_prose_matches_its_numbers(path: Path, workdir: Path) -> None:
    nb, results, times = _execute(path, workdir)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    claims = CLAIMS.get(path.name, [])
    prose = _prose(nb)
    missing = [c.quote for c in claims if _flat(c.quote) not in _flat(prose)]
    assert not missing, f"claims whose sentence is no longer in the prose: {missing}"
    false = {claims[i].quote: v for i, v in results.items() if v is not True}
    assert not false, f"statements of the prose that the computed values contradict: {false}"
    covered = {n for c in claims for n in c.numbers}
    uncovered = _numbers(prose) - covered
    assert not uncovered, f"numbers in the prose of {path.name} that no claim checks: {sorted(uncovered)}"


@pytest.mark.slow
def test_the_lab_is_a_lab(workdir: Path) -> None:
    """Notebook 02 has a 90-minute plan, a glossary, at least five exercises with folded solutions, the story's
    sections in order, and every widget it shows answers a move in under a second (headless; the browser test
    measures the same moves in Chromium)."""
    nb, _, times = _execute(ROOT / "notebooks" / LAB, workdir)
    prose = _prose(nb)
    assert "Plan for a 90-minute session" in prose and "### Glossary" in prose
    for word in ("Gower distance", "Holdout", "Interval", "Baseline"):
        assert f"**{word}" in prose, word
    cells = [c.source for c in nb.cells if c.cell_type == "markdown"]
    exercises = [s for s in cells if s.startswith("**Exercise")]
    assert len(exercises) >= 5
    for s in exercises:
        assert "Predict" in s or "predict" in s
        assert "<details><summary>Solution</summary>" in s and "</details>" in s  # folded until clicked
    # each exercise's answer is printed by a cell (tagged "solution") whose output stays folded, before the next
    # exercise or section, so Run All does not reveal it
    for i, c in enumerate(nb.cells):
        if c.cell_type == "markdown" and c.source.startswith("**Exercise"):
            after = []
            for d in nb.cells[i + 1:]:
                if d.cell_type == "markdown" and d.source.startswith(("**Exercise", "#")):
                    break
                after.append(d)
            answers = [d for d in after if d.cell_type == "code" and "solution" in d.metadata.get("tags", [])]
            assert answers, c.source[:40]
            assert all(d.metadata.get("jupyter", {}).get("outputs_hidden") is True for d in answers), c.source[:40]
    order = ["## 1. Distances and DCR", "## 2. Exact and near copies", "## 3. Distance ratios",
             "## 4. Holdout tests", "## 5. Attacks", "## 6. The verdict"]
    at = [prose.index(h) for h in order]
    assert at == sorted(at)
    assert "spec section" not in prose.lower() and "seed 00" not in prose.lower()  # references a student can follow
    # the first cell shows something at once: a line of text, no computation
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert first.outputs and "Evaluation(" not in first.source
    assert not math.isnan(times["first_figure"]), times  # a figure appeared (its time is printed, not asserted)
