"""A reference set given by the user (``Evaluation(reference=...)``, issue 54): the membership attacks then attack
the whole holdout and take their reference data from it; it is validated as the holdout is, held in a canonical
order, fingerprinted, counted as real data where the holdout is, and refused without a holdout or on partitioned
inputs (docs/metrics.md, section mia_distance_ratio, "Threat model and sets")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _support.attacks import distance_ratio_flagged_above_every_nonmember
from _support.golden.numbers import numbers

from synthpriv_report import Evaluation
from synthpriv_report.cluster.partitioned import partitioned_inputs
from synthpriv_report.data.sources import read_inputs
from synthpriv_report.metrics.attacks.mia_common import (
    MIN_RECORDS,
    REFERENCE_GIVEN,
    REFERENCE_HALF,
    attack_split,
    split_positions,
)

ATTACKS = ["mia_distance_ratio", "mia_density_ratio", "mia_local_lr", "mia_worst_case"]


def _frames(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """T (12), S (12: six near copies of T), H (12) and R (10), one numeric column."""
    rng = np.random.default_rng(seed)
    T = pd.DataFrame({"x": rng.normal(size=12).round(3)})
    H = pd.DataFrame({"x": rng.normal(size=12).round(3)})
    R = pd.DataFrame({"x": rng.normal(size=10).round(3)})
    S = pd.concat([T.iloc[:6] + 0.001, pd.DataFrame({"x": rng.normal(size=6).round(3)})], ignore_index=True)
    return T, S, H, R


def _mixed(seed: int = 0, n: int = 60) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """T, S (a third copied from T), H and R with a number, a whole number and a category."""
    rng = np.random.default_rng(seed)

    def draw(k: int) -> pd.DataFrame:
        return pd.DataFrame({"x": rng.normal(size=k).round(2), "n": rng.integers(0, 6, k),
                             "c": rng.choice(list("abc"), k)})

    T, H, R = draw(n), draw(n), draw(n // 2 + 7)
    S = pd.concat([T.iloc[: n // 3], draw(n - n // 3)], ignore_index=True)
    return T, S, H, R


def _attacks(ev: Evaluation) -> dict:
    res = ev.results(metrics=ATTACKS)
    return {m: numbers(res[m].to_dict()) for m in ATTACKS}


# ---------------------------------------------------------------------------------------------------------------
# the attacks' sets


def test_distance_ratio_by_hand_with_a_reference_set() -> None:
    """Every holdout record is a target and the reference is R: the distance-ratio attack derived by hand on one
    column (the gower distance is |a - b| over the real range, a constant factor that the ratio cancels)."""
    T, S, H, R = _frames()
    ev = Evaluation(T, S, holdout=H, reference=R, row_order="as_given", progress=False, calibrate=False)
    r = ev.results(metrics=["mia_distance_ratio"])["mia_distance_ratio"]
    t, s, h, ref = T.x.to_numpy(), S.x.to_numpy(), H.x.to_numpy(), R.x.to_numpy()
    # 12 non-members: no rate below 1/12 lets one be flagged, so a member is flagged above every non-member
    expected = distance_ratio_flagged_above_every_nonmember(t, s, h, ref)
    one = r.details["tpr_at"]["0.01"]
    assert (r.details["n_members"], r.details["n_nonmembers"], r.details["n_reference"]) == (12, 12, 10)
    assert r.details["reference_set"] == REFERENCE_GIVEN
    assert one["flagged_members"] == expected and one["flagged_nonmembers"] == 0
    assert r.value == expected / 12


@pytest.mark.slow  # about a second
def test_with_a_reference_set_the_whole_holdout_is_the_targets() -> None:
    T, S, H, R = _mixed()
    ev = Evaluation(T, S, H, reference=R, progress=False, calibrate=False)
    targets, reference = attack_split(ev.context)
    assert (targets.base, targets.rows, reference.base, reference.rows) == ("H", None, "R", None)
    res = ev.results(metrics=ATTACKS)
    for m in ATTACKS:
        d = res[m].details
        assert res[m].computed, res[m].reason_not_computed
        assert (d["n_members"], d["n_nonmembers"], d["n_reference"]) == (len(T), len(H), len(R))
        assert d["reference_set"] == REFERENCE_GIVEN


@pytest.mark.slow  # about a second
def test_without_a_reference_set_the_holdout_is_split_as_before() -> None:
    T, S, H, _ = _mixed()
    ev = Evaluation(T, S, H, progress=False, calibrate=False, random_state=4)
    targets, reference = attack_split(ev.context)
    t, r = split_positions(len(H), 4)
    assert targets.rows.tolist() == t.tolist() and reference.rows.tolist() == r.tolist()
    d = ev.results(metrics=["mia_worst_case"])["mia_worst_case"].details
    assert (d["n_nonmembers"], d["n_reference"], d["reference_set"]) == (len(t), len(r), REFERENCE_HALF)


@pytest.mark.slow  # about a second
def test_each_search_runs_once_and_none_splits_the_holdout() -> None:
    T, S, H, R = _mixed()
    ev = Evaluation(T, S, H, reference=R, progress=False, calibrate=False)
    ev.results(metrics=["membership_inference", *ATTACKS])
    pairs = sorted((s.query, s.ref) for s in ev.searches)
    # members and the holdout against the synthetic data (shared with membership_inference), the members, the
    # targets (the whole holdout) and the synthetic records against the reference set, and the members against
    # the other members (how atypical each is, for the worst case's per-record counts)
    assert pairs == sorted([("T", "S"), ("H", "S"), ("T", "R"), ("H", "R"), ("S", "R"), ("T", "T")])
    before = ev.search_count
    for alpha in (0.01, 0.1, 0.2):
        ev.results(metrics=ATTACKS, alpha=alpha)
    assert ev.search_count == before


@pytest.mark.slow  # about 1 s
def test_an_explicit_reference_equal_to_the_default_half_gives_the_default_numbers() -> None:
    """The same setting by hand: the holdout's default targets as the holdout and its default reference half as
    ``reference=`` give every attack number to the last bit (the numeric ranges, fixed by the real data, are
    those of the same records; the canonical order of a part keeps the order its records had in the whole)."""
    T, S, H, _ = _mixed(seed=2)
    seed = 5
    default = Evaluation(T, S, H, progress=False, calibrate=False, random_state=seed)
    t, r = split_positions(len(H), seed)
    as_given_t = default.data.caller_rows("H", t)
    as_given_r = default.data.caller_rows("H", r)
    explicit = Evaluation(T, S, H.iloc[as_given_t], reference=H.iloc[as_given_r], progress=False, calibrate=False,
                          random_state=seed)
    a, b = _attacks(default), _attacks(explicit)
    assert a == b
    assert default.results(metrics=ATTACKS)["mia_worst_case"].details["reference_set"] == REFERENCE_HALF


@pytest.mark.slow  # about 1 s
def test_shuffled_reference_rows_give_identical_numbers() -> None:
    T, S, H, R = _mixed(seed=3)
    ev = Evaluation(T, S, H, reference=R, progress=False, calibrate=False)
    shuffled = R.sample(frac=1.0, random_state=11).reset_index(drop=True)
    ev2 = Evaluation(T, S, H, reference=shuffled, progress=False, calibrate=False)
    assert _attacks(ev) == _attacks(ev2)


@pytest.mark.slow  # about 1 s
def test_the_seed_does_not_move_the_attacks_with_a_reference_set() -> None:
    """Nothing is drawn at random when the user gives the reference set: every seed gives the same attacks."""
    T, S, H, R = _mixed(seed=6)
    a = _attacks(Evaluation(T, S, H, reference=R, progress=False, calibrate=False, random_state=0))
    b = _attacks(Evaluation(T, S, H, reference=R, progress=False, calibrate=False, random_state=99))
    assert a == b


def test_sizes_each_part_needs() -> None:
    T, S, H, R = _mixed()
    small_h = Evaluation(T, S, H.head(MIN_RECORDS - 1), reference=R, progress=False, calibrate=False)
    small_r = Evaluation(T, S, H, reference=R.head(MIN_RECORDS - 1), progress=False, calibrate=False)
    for ev in (small_h, small_r):
        res = ev.results(metrics=ATTACKS)
        for m in ATTACKS:
            assert not res[m].computed and "reference set (reference=)" in res[m].reason_not_computed
    # with a reference set, a holdout of 10 is enough (without one the attacks need 20)
    ok = Evaluation(T, S, H.head(MIN_RECORDS), reference=R.head(MIN_RECORDS), progress=False, calibrate=False)
    assert all(r.computed for r in ok.results(metrics=ATTACKS).values())
    split = Evaluation(T, S, H.head(MIN_RECORDS), progress=False, calibrate=False)
    assert not any(r.computed for r in split.results(metrics=ATTACKS).values())


@pytest.mark.slow  # about 1 s
def test_the_other_metrics_never_read_the_reference_records() -> None:
    """The reference set reaches the other metrics only through the numeric ranges it helps fix: a reference set
    inside the real data's ranges leaves a holdout metric's numbers as they are without it."""
    T, S, H, R = _mixed(seed=7)
    lo, hi = pd.concat([T, H]).x.agg(["min", "max"])
    inside = R.assign(x=R.x.clip(lo, hi), n=R.n.clip(min(T.n.min(), H.n.min()), max(T.n.max(), H.n.max())))
    names = ["holdout_dcr_share", "dcr", "membership_inference"]
    a = Evaluation(T, S, H, progress=False).results(metrics=names)
    b = Evaluation(T, S, H, reference=inside, progress=False).results(metrics=names)
    assert {m: numbers(a[m].to_dict()) for m in names} == {m: numbers(b[m].to_dict()) for m in names}


def test_the_reference_set_joins_the_real_data_that_fix_the_numeric_ranges() -> None:
    T, S, H, R = _mixed()
    wide = R.assign(x=R.x * 10.0)
    ev = Evaluation(T, S, H, reference=wide, progress=False, calibrate=False)
    j = ev.data.numeric_columns.index("x")
    xs = pd.concat([T.x, H.x, wide.x])
    assert ev.context.fitted.num_range[j] == xs.max() - xs.min()


def test_the_calibration_context_has_no_reference_set() -> None:
    T, S, H, R = _mixed()
    ev = Evaluation(T, S, H, reference=R, progress=False)
    assert ev.context.R == "R" and ev.context.calibration().R is None


# ---------------------------------------------------------------------------------------------------------------
# validation


def test_a_reference_set_without_a_holdout_is_refused() -> None:
    T, S, _, R = _mixed()
    with pytest.raises(ValueError, match=r"reference= was given without a holdout"):
        Evaluation(T, S, reference=R, progress=False)


@pytest.mark.parametrize("bad, error, fragment", [
    (lambda R: R.drop(columns="c"), ValueError, r"missing from the reference \(reference=\) data"),
    (lambda R: R.assign(extra=1), ValueError, r"of the reference \(reference=\) data are not in the real data"),
    (lambda R: R.iloc[:0], ValueError, r"the reference \(reference=\) data is empty"),
    (lambda R: R.assign(x=R.x.astype(object).where(R.index != 3, "forty")), ValueError,
     r"column 'x' .*reference \(reference=\) data at row 3"),
    (lambda R: R.assign(x=R.x.where(R.index != 2, np.inf)), ValueError, r"column 'x'.*reference \(reference=\)"),
    (lambda R: R.values, TypeError, r"the reference \(reference=\) data must be a pandas DataFrame"),
])
def test_bad_reference_sets_are_errors_naming_reference(bad, error, fragment) -> None:
    T, S, H, R = _mixed()
    with pytest.raises(error, match=fragment):
        Evaluation(T, S, H, reference=bad(R), progress=False)


def test_a_bad_real_value_of_the_reference_set_is_not_quoted() -> None:
    T, S, H, R = _mixed()
    bad = R.assign(x=R.x.astype(object).where(R.index != 3, "secret-value"))
    with pytest.raises(ValueError) as info:
        Evaluation(T, S, H, reference=bad, progress=False)
    assert "secret-value" not in str(info.value) and "withheld" in str(info.value)


def test_a_column_missing_throughout_the_reference_set_is_a_note() -> None:
    T, S, H, R = _mixed()
    ev = Evaluation(T, S, H, reference=R.assign(x=np.nan), progress=False, calibrate=False)
    assert any("column 'x' is entirely missing in the reference (reference=) data" in n for n in ev.data_notes())
    assert ev.data.sizes["R"] == len(R)


@pytest.mark.slow  # about half a second
def test_categories_unseen_in_the_real_data_are_ordinary_categories() -> None:
    T, S, H, R = _mixed()
    R2 = R.assign(c=["z"] * len(R))
    ev = Evaluation(T, S, H, reference=R2, progress=False, calibrate=False)
    res = ev.results(metrics=["mia_distance_ratio"])
    assert res["mia_distance_ratio"].computed
    note = "column 'c': 1 value(s) of the reference (reference=) data appear in no training record"
    assert sum(note in n for n in ev.data_notes()) == 1
    assert not any("'z'" in n for n in ev.data_notes())  # a real value, never quoted
    assert not any("reference" in n for n in Evaluation(T, S, H, reference=R, progress=False).data_notes())


def test_the_callers_reference_frame_is_never_modified_and_no_row_is_dropped() -> None:
    T, S, H, R = _mixed()
    R = R.assign(flag=[True, False] * (len(R) // 2) + [True] * (len(R) % 2))
    R.loc[0, "x"] = np.nan
    T, S, H = (f.assign(flag=True) for f in (T, S, H))
    before = R.copy(deep=True)
    ev = Evaluation(T, S, H, reference=R, progress=False, calibrate=False)
    ev.results(metrics=ATTACKS)
    pd.testing.assert_frame_equal(R, before)
    assert ev.data.sizes["R"] == len(R)


# ---------------------------------------------------------------------------------------------------------------
# what the report records


@pytest.mark.slow  # about a second
def test_fingerprint_provenance_and_words_are_recorded() -> None:
    T, S, H, R = _mixed()
    ev = Evaluation(T, S, H, reference=R, progress=False, calibrate=False, names={"reference": "ref.csv"})
    assert set(ev.fingerprints) == {"T", "S", "H", "R"} and len(ev.fingerprints["R"]) == 64
    meta = ev.meta()
    row = next(s for s in meta["sets"] if s["role"] == "reference")
    assert row == {"role": "reference", "name": "ref.csv", "rows": len(R), "columns": 3,
                   "fingerprint": ev.fingerprints["R"]}
    assert [r["role"] for r in meta["provenance"]["inputs"]] == ["real", "synthetic", "holdout", "reference"]
    assert "reference=reference" in meta["provenance"]["python_call"]
    assert ev.to_dict(metrics=["mia_worst_case"])["fingerprints"]["R"] == ev.fingerprints["R"]
    res = ev.results(metrics=ATTACKS)
    doc = res.to_dict()
    for m in ATTACKS:
        finding = res[m].to_dict()["details"]["reference_set"]
        assert finding == REFERENCE_GIVEN
    from synthpriv_report.core.registry import get_spec

    text = get_spec("mia_worst_case").finding(doc["metrics"]["mia_worst_case"])
    assert f"a reference set of {len(R)} records given by the user" in text
    assert text.count(". ") == 0 and text.endswith(".")  # still the cover's one sentence
    default = Evaluation(T, S, H, progress=False, calibrate=False).results(metrics=["mia_distance_ratio"])
    text = get_spec("mia_distance_ratio").finding(default.to_dict()["metrics"]["mia_distance_ratio"])
    assert "half of the holdout" in text


# ---------------------------------------------------------------------------------------------------------------
# inputs other than DataFrames


@pytest.mark.slow  # about 1 s
def test_a_parquet_reference_set_is_read_for_the_analysed_columns(tmp_path) -> None:
    pytest.importorskip("pyarrow")
    T, S, H, R = _mixed()
    path = tmp_path / "reference.parquet"
    R.to_parquet(path)
    inputs = read_inputs(T, S, H, reference=str(path), exclude=["n"])
    assert list(inputs.reference.columns) == ["x", "c"] and len(inputs.reference) == len(R)
    a = _attacks(Evaluation(T, S, H, reference=str(path), progress=False, calibrate=False))
    b = _attacks(Evaluation(T, S, H, reference=R, progress=False, calibrate=False))
    assert a == b


def test_partitioned_inputs_refuse_a_reference_set_naming_the_option(tmp_path) -> None:
    pytest.importorskip("pyarrow")
    T, S, H, R = _mixed()
    path = tmp_path / "real.parquet"
    T.to_parquet(path)
    with pytest.raises(ValueError, match=r"reference= cannot be used with partitioned inputs"):
        partitioned_inputs(str(path), S, H, reference=R)
    assert partitioned_inputs(T, S, H, reference=R) is None  # DataFrames only: read here, as without a client


@pytest.mark.slow  # about 1 s
def test_the_reproducibility_section_lists_the_reference_set_with_its_fingerprint() -> None:
    from synthpriv_report.export import dossier, report_data

    T, S, H, R = _mixed()
    ev = Evaluation(T, S, H, reference=R, progress=False, calibrate=False, metrics=["mia_worst_case"])
    doc = report_data(ev).document
    rows = dossier.reproducibility_context(doc, "0" * 64)["inputs"]
    ref = next(r for r in rows if r["role"] == "reference")
    assert ref["fingerprint"] == ev.fingerprints["R"] and doc["fingerprints"]["R"] == ev.fingerprints["R"]
    assert doc["inputs"]["reference"] == "reference data"
    # without a reference set the documents name none
    plain = report_data(Evaluation(T, S, H, progress=False, calibrate=False, metrics=["mia_worst_case"])).document
    assert "reference" not in plain["inputs"] and "R" not in plain["fingerprints"]
    assert all(r["role"] != "reference" for r in plain["provenance"]["inputs"])


@pytest.mark.slow  # about 1 s
def test_with_a_dask_client_and_dataframes_the_numbers_are_the_same() -> None:
    """The sets prepared here, the searches on the workers: a reference set is supported, the same numbers."""
    distributed = pytest.importorskip("distributed")
    T, S, H, R = _mixed(seed=3)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cl, \
            distributed.Client(cl, set_as_default=False) as client:
        on_cluster = _attacks(Evaluation(T, S, H, reference=R, progress=False, calibrate=False, client=client))
    assert on_cluster == _attacks(Evaluation(T, S, H, reference=R, progress=False, calibrate=False))


@pytest.mark.slow  # about a second
def test_a_report_with_a_reference_set_is_read_back_from_json(tmp_path) -> None:
    T, S, H, R = _mixed()
    ev = Evaluation(T, S, H, reference=R, progress=False, calibrate=False, metrics=["mia_worst_case"])
    ev.to_json(tmp_path / "r.json")
    back = Evaluation.from_json(tmp_path / "r.json")["mia_worst_case"]
    assert back.details["reference_set"] == REFERENCE_GIVEN and back.details["n_reference"] == len(R)
