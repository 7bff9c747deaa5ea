"""Tests of synthpriv_report.stats: tie rule, win share, Wilson, round-half-up, binomial p, bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthpriv_report import stats


def test_ties_less_leq() -> None:
    # |a - b| <= 1e-9 max(|a|, |b|) + 1e-12
    assert stats.ties([1.0, 1.0, 0.0, 0.0], [1.0 + 5e-10, 1.0 + 2e-9, 5e-13, 2e-12]).tolist() == [
        True, False, True, False]
    assert stats.ties([2.0, 3.0], [2.0, 3.0 + 1e-15], exact=True).tolist() == [True, False]
    assert stats.less([0.5, 1.0, 1.0], [1.0, 1.0 + 1e-12, 2.0]).tolist() == [True, False, True]
    assert stats.leq([0.2 + 1e-16, 0.21], 0.2).tolist() == [True, False]


def test_ties_infinite_equal_only_to_itself() -> None:
    """Regression: the docstring (and the tie rule of docs/metrics.md) make inf equal only to inf;
    |inf - 1| <= 1e-9 * inf + 1e-12 is True in floating point, so inf tied with every finite distance and
    less(1.0, inf) was False."""
    assert stats.ties([np.inf, np.inf, 1.0], [np.inf, 1.0, np.inf]).tolist() == [True, False, False]
    assert stats.less([1.0], [np.inf]).tolist() == [True]
    assert stats.win_share([1.0, 2.0], [np.inf, 1.0]) == (0.5, 1, 0, 2)


@pytest.mark.parametrize("block", [1, 7, 1 << 17])
def test_comparisons_made_a_block_at_a_time_are_the_rule_element_by_element(monkeypatch, block) -> None:
    """Long arrays are compared a block of rows at a time (no whole-length float temporaries); every element is
    the tie rule of the docstring, written out here for each pair: in one dimension, against a scalar (broadcast)
    and in two dimensions, with ties, infinities and NaN."""
    from synthpriv_report.stats import comparisons

    monkeypatch.setattr(comparisons, "BLOCK", block)
    rng = np.random.default_rng(0)
    a = rng.choice([0.0, 0.1, 0.5, 1.0, np.inf, -np.inf, np.nan], 300)
    b = a + rng.choice([0.0, 1e-13, -1e-13, 1e-3, -1e-3], 300)

    def tied(x: float, y: float) -> bool:
        if x == y:
            return True
        if not (math.isfinite(x) and math.isfinite(y)):
            return False
        return abs(x - y) <= 1e-9 * max(abs(x), abs(y)) + 1e-12

    for x, y in ((a, b), (a, np.float64(0.5)), (a.reshape(60, 5), b.reshape(60, 5))):
        xs, ys = np.broadcast_arrays(x, y)
        want_t = [tied(float(u), float(v)) for u, v in zip(xs.ravel(), ys.ravel())]
        want_l = [bool(u < v) and not t for u, v, t in zip(xs.ravel(), ys.ravel(), want_t)]
        assert stats.ties(x, y).ravel().tolist() == want_t
        assert stats.less(x, y).ravel().tolist() == want_l
        assert stats.leq(x, y).ravel().tolist() == [t or w for t, w in zip(want_t, want_l)]
        assert stats.ties(x, y).shape == xs.shape


def test_win_share_with_ties_by_hand() -> None:
    # a < b: (0.1, 0.2) win, (0.5, 0.5) tie, (0.3, 0.1) loss, (0.4, 0.4 + 1e-13) tie, (0, 1) win
    # share = (2 + 0.5 * 2) / 5 = 0.6
    share, wins, nties, n = stats.win_share([0.1, 0.5, 0.3, 0.4, 0.0], [0.2, 0.5, 0.1, 0.4 + 1e-13, 1.0])
    assert (share, wins, nties, n) == (0.6, 2, 2, 5)
    # integer distances compared exactly
    assert stats.win_share([1, 2, 3], [1, 3, 2], exact=True) == (0.5, 1, 1, 3)


def test_wilson_by_hand() -> None:
    # p = 0.2, n = 10, z = 1.959964: z^2 = 3.841459; denom = 1 + 0.3841459 = 1.3841459
    # centre = (0.2 + 3.841459 / 20) / denom = 0.3920729 / 1.3841459 = 0.2832598
    # half = z sqrt(0.016 + 3.841459 / 400) / denom = 1.959964 * sqrt(0.02560365) / 1.3841459
    #      = 1.959964 * 0.1600114 / 1.3841459 = 0.2265777
    # interval = (0.2832598 - 0.2265777, 0.2832598 + 0.2265777) = (0.0566821, 0.5098375)
    lo, hi = stats.wilson(0.2, 10)
    assert lo == pytest.approx(0.0566821, abs=1e-6)
    assert hi == pytest.approx(0.5098375, abs=1e-6)
    # p = 0: lower bound 0; upper = z^2 / (n + z^2) = 3.841459 / 103.841459 = 0.0369935
    lo, hi = stats.wilson(0.0, 100)
    assert lo == 0.0 and hi == pytest.approx(0.0369935, abs=1e-6)
    # p = 1 mirrors p = 0
    lo, hi = stats.wilson(1.0, 100)
    assert hi == 1.0 and lo == pytest.approx(1 - 0.0369935, abs=1e-6)
    assert all(math.isnan(v) for v in stats.wilson(0.5, 0))


def test_round_half_up() -> None:
    assert [stats.round_half_up(x) for x in (0.5, 1.5, 2.5, 2.4999, 3.0, 0.0)] == [1, 2, 3, 2, 3, 0]


def test_binomial_p_by_hand() -> None:
    # P(X >= 8), X ~ Bin(10, 0.5) = (C(10,8) + C(10,9) + C(10,10)) / 2^10 = (45 + 10 + 1) / 1024
    assert stats.binomial_p_greater(8, 10) == pytest.approx(56 / 1024)
    # P(X >= 3), n = 3 = 1/8; k = 0 -> 1
    assert stats.binomial_p_greater(3, 3) == pytest.approx(0.125)
    assert stats.binomial_p_greater(0, 5) == 1.0
    # P(X >= 5) with n = 10: (252 + 210 + 120 + 45 + 10 + 1) / 1024 = 638 / 1024
    assert stats.binomial_p_greater(5, 10) == pytest.approx(638 / 1024)


def test_summary_by_hand() -> None:
    # values 0, 1, 2, 3, 10 (inf dropped): mean 16/5 = 3.2, median 2, p5 at rank 0.05 * 4 = 0.2 -> 0.2
    s = stats.summary([3.0, 0.0, np.inf, 10.0, 1.0, 2.0])
    assert s == {"mean": 3.2, "median": 2.0, "p5": pytest.approx(0.2), "n": 5}


def test_subsample_is_sorted_choice() -> None:
    rng1, rng2 = np.random.default_rng(5), np.random.default_rng(5)
    assert stats.subsample(20, 7, rng1).tolist() == np.sort(rng2.choice(20, 7, replace=False)).tolist()


def test_bootstrap_matches_direct_resampling() -> None:
    """Independent reproduction: the same draws from default_rng(seed), statistics by numpy directly."""
    x = np.array([5.0, 1.0, 3.0, 2.0, 8.0, 13.0, 0.5])
    v = np.sort(x)
    B = 300
    draws = np.random.default_rng(11).integers(0, v.size, size=(B, v.size))
    means = v[draws].mean(axis=1)
    medians = np.median(v[draws], axis=1)
    p5 = np.percentile(v[draws], 5, axis=1)
    ci = stats.bootstrap_stats(x, n_resamples=B, random_state=11)
    np.testing.assert_allclose(ci["mean"], np.quantile(means, [0.025, 0.975]))
    np.testing.assert_allclose(ci["q0.5"], np.quantile(medians, [0.025, 0.975]))
    np.testing.assert_allclose(ci["q0.05"], np.quantile(p5, [0.025, 0.975]))
    rep = stats.bootstrap_replicates(x, statistic="median", n_resamples=B, random_state=11)
    np.testing.assert_allclose(rep, medians)
    rep = stats.bootstrap_replicates(x, statistic="mean", n_resamples=B, random_state=11)
    np.testing.assert_allclose(rep, means)


def test_bootstrap_determinism_and_seed_sensitivity() -> None:
    x = np.random.default_rng(0).exponential(size=200)
    a = stats.bootstrap_stats(x, n_resamples=200, random_state=3)
    b = stats.bootstrap_stats(x, n_resamples=200, random_state=3)
    c = stats.bootstrap_stats(x, n_resamples=200, random_state=4)
    assert a == b and a != c
    with pytest.raises(ValueError, match="statistic"):
        stats.bootstrap_replicates(x, statistic="mode")


def test_bootstrap_coverage_sanity() -> None:
    # the percentile interval of the mean of n = 100 standard normals covers 0 in most of 60 samples and has
    # about the width 2 * 1.96 / sqrt(100) = 0.392
    rng = np.random.default_rng(123)
    hits, widths = 0, []
    for i in range(60):
        x = rng.normal(size=100)
        lo, hi = stats.bootstrap_stats(x, n_resamples=300, random_state=i)["mean"]
        hits += lo <= 0.0 <= hi
        widths.append(hi - lo)
    assert 48 <= hits <= 60
    assert np.mean(widths) == pytest.approx(0.392, rel=0.15)


def test_percentile_interval() -> None:
    assert stats.percentile_interval(np.arange(101.0)) == pytest.approx((2.5, 97.5))
    assert stats.percentile_interval([np.nan, 1.0, 1.0]) == (1.0, 1.0)


@pytest.mark.slow  # every k for n up to 3000: 4.5 million intervals
def test_wilson_holds_its_point_and_is_exact_at_the_ends():
    """Regression: in floating point the lower bound at k = 0 came out as 8.7e-19 for 186 sizes and the upper
    bound at k = n below 1 for 932 sizes; every k for n = 1..3000 now keeps lower <= k/n <= upper."""
    from synthpriv_report.stats import wilson

    for n in range(1, 3001):
        assert wilson(0.0, n)[0] == 0.0 and wilson(1.0, n)[1] == 1.0
        for k in range(n + 1):
            p = k / n
            lo, hi = wilson(p, n)
            assert 0.0 <= lo <= p <= hi <= 1.0, (k, n)


# ---------------------------------------------------------------------------------------------------------------
# the grouped bootstrap scheme (large n)


def _endpoint_and_se(rep: np.ndarray, p: float) -> tuple[float, float]:
    """The p-quantile of bootstrap replicates and its Monte-Carlo standard error, from the order statistics:
    the rank of the sample p-quantile among B replicates has binomial sd sqrt(B p (1 - p)), so the replicates
    that far either side of it span about two standard errors of the endpoint."""
    r = np.sort(rep)
    B = r.size
    k = p * (B - 1)
    d = math.sqrt(B * p * (1 - p))
    lo, hi = r[int(math.floor(k - d))], r[int(math.ceil(k + d))]
    return float(np.quantile(rep, p)), float(hi - lo) / 2.0


@pytest.mark.slow  # about a second
def test_grouped_intervals_match_plain_bootstrap_at_10k() -> None:
    """At n = 10,000 the grouped scheme's interval ends agree with the plain bootstrap's within the two runs'
    own Monte-Carlo error: |difference| <= 4 sd of the difference (each end's sd from its order statistics; a
    4-sd miss has probability 6e-5 when both estimate the same end)."""
    x = np.random.default_rng(5).exponential(size=10_000) ** 1.5  # skewed, like distances
    B = 2000
    m_rec, q_rec = stats.resample_stats(x, (0.5, 0.05), n_resamples=B, random_state=1, method="records")
    m_grp, q_grp = stats.resample_stats(x, (0.5, 0.05), n_resamples=B, random_state=2, method="grouped")
    for a, b in ((m_rec, m_grp), (q_rec[:, 0], q_grp[:, 0]), (q_rec[:, 1], q_grp[:, 1])):
        for p in (0.025, 0.975):
            ea, sa = _endpoint_and_se(a, p)
            eb, sb = _endpoint_and_se(b, p)
            assert abs(ea - eb) <= 4.0 * math.hypot(sa, sb), (p, ea, eb, sa, sb)
        # and the replicates' spread (the interval width's scale) agrees: sd of a sd estimate ~ sd / sqrt(2B)
        assert abs(a.std() - b.std()) <= 4.0 * math.hypot(a.std(), b.std()) / math.sqrt(2 * B)


def test_grouped_median_is_exact_in_distribution() -> None:
    """n = 4 values in 2 runs: the median of a resample (mean of ranks 1 and 2, linear interpolation) has an exact
    distribution over the 4^4 equally likely resamples; the grouped scheme's frequencies match it within 4
    binomial sd at B = 20,000."""
    import itertools

    v = np.array([1.0, 2.0, 4.0, 8.0])
    exact: dict[float, float] = {}
    for draw in itertools.product(range(4), repeat=4):
        med = float(np.median(v[list(draw)]))
        exact[med] = exact.get(med, 0.0) + 1.0 / 256
    B = 20_000
    _, q = stats.grouped_resamples(v, (0.5,), n_resamples=B, rng=np.random.default_rng(0), groups=2)
    vals, counts = np.unique(q[:, 0], return_counts=True)
    assert set(vals.tolist()) <= set(exact)
    for val, p in exact.items():
        got = counts[vals == val].sum() / B if (vals == val).any() else 0.0
        assert abs(got - p) <= 4.0 * math.sqrt(p * (1 - p) / B), (val, got, p)


def test_grouped_mean_with_one_value_per_run_has_no_normal_term() -> None:
    # groups >= n: every run holds one value, its variance is 0, so each replicate is sum(C_i v_i) / n exactly,
    # a mean of n of the values: n * replicate is a sum of integers here
    v = np.array([1.0, 2.0, 3.0, 5.0, 7.0])
    means, _ = stats.grouped_resamples(v, (), n_resamples=500, rng=np.random.default_rng(3), groups=10)
    np.testing.assert_allclose(means * 5, np.round(means * 5), atol=1e-9)
    assert means.min() >= 1.0 and means.max() <= 7.0


def test_bootstrap_scheme_auto_and_determinism() -> None:
    x = np.random.default_rng(2).exponential(size=stats.GROUPED_MIN_N + 1)
    auto = stats.bootstrap_stats(x, n_resamples=100, random_state=4)
    assert auto == stats.bootstrap_stats(x, n_resamples=100, random_state=4, method="grouped")
    assert auto == stats.bootstrap_stats(x, n_resamples=100, random_state=4)
    assert auto != stats.bootstrap_stats(x, n_resamples=100, random_state=5)
    np.testing.assert_array_equal(
        stats.bootstrap_replicates(x, statistic="median", n_resamples=50, random_state=1),
        stats.bootstrap_replicates(x, statistic="median", n_resamples=50, random_state=1, method="grouped"))
    with pytest.raises(ValueError, match="method"):
        stats.bootstrap_stats(x, method="fast")


@pytest.mark.slow
def test_grouped_ratio_matches_plain_bootstrap_at_10k() -> None:
    """The grouped sums scheme against the plain bootstrap of sum(num) / sum(den) at n = 10,000: interval ends
    within 4 sd of their difference (each end's Monte-Carlo sd from the order statistics of its replicates)."""
    rng = np.random.default_rng(8)
    den = rng.exponential(size=10_000)                      # weights, like AIR's entropy weights
    num = den * (rng.random(10_000) < 0.3)                  # weighted hits
    B = 2000

    def replicates(method: str, seed: int) -> np.ndarray:
        if method == "records":
            draws = np.random.default_rng(seed).integers(0, num.size, size=(B, num.size))
            return num[draws].sum(axis=1) / den[draws].sum(axis=1)
        a, b = stats.grouped_sums(num, den, n_resamples=B, rng=np.random.default_rng(seed))
        return a / b

    rec, grp = replicates("records", 1), replicates("grouped", 2)
    for p in (0.025, 0.975):
        ea, sa = _endpoint_and_se(rec, p)
        eb, sb = _endpoint_and_se(grp, p)
        assert abs(ea - eb) <= 4.0 * math.hypot(sa, sb), (p, ea, eb)
    # the public function with the grouped scheme gives those ends (same stream for the same seed)
    lo, hi = stats.bootstrap_ratio(num, den, n_resamples=B, random_state=2, method="grouped")
    assert (lo, hi) == pytest.approx(tuple(np.quantile(grp, [0.025, 0.975])))


def test_grouped_sums_one_record_per_run_is_the_plain_bootstrap_in_law() -> None:
    # groups >= n: no normal term; every replicate is sum(C_i x_i) with integer counts summing to n
    x = np.array([1.0, 10.0, 100.0])
    a, b = stats.grouped_sums(x, np.ones(3), n_resamples=300, rng=np.random.default_rng(0), groups=8)
    assert (b == 3).all()
    assert set(np.round(a).tolist()) <= {float(i + 10 * j + 100 * k) for i in range(4) for j in range(4)
                                         for k in range(4) if i + j + k == 3}


@pytest.mark.slow
def test_paired_median_kernel_matches_numpy_bootstrap_at_10k() -> None:
    """The compiled paired-median bootstrap (large n) against numpy's plain bootstrap at n = 10,000: the ends
    of the interval of median(a) / median(b) agree within 4 sd of their difference (Monte-Carlo sds from the
    order statistics of the replicates); same seed, same numbers."""
    rng = np.random.default_rng(4)
    a = rng.exponential(size=10_000)
    b = 0.5 * a + rng.exponential(size=10_000)              # paired, correlated
    B = 1000
    draws = np.random.default_rng(9).integers(0, a.size, size=(B, a.size))
    rec = np.median(a[draws], axis=1) / np.median(b[draws], axis=1)
    ratio = lambda x, y: x / y  # noqa: E731
    fast = stats.paired_median_bootstrap(a, b, statistic=ratio, n_resamples=B, random_state=2, method="grouped")
    assert fast == stats.paired_median_bootstrap(a, b, statistic=ratio, n_resamples=B, random_state=2,
                                                 method="grouped")
    # the kernel's replicates are not returned; compare its ends with the plain ones, each end's sd estimated
    # from the plain replicates (the two estimate the same quantity with the same B)
    for p, end in zip((0.025, 0.975), fast):
        e, se = _endpoint_and_se(rec, p)
        assert abs(end - e) <= 4.0 * math.sqrt(2.0) * se, (p, end, e, se)


@pytest.mark.slow  # about half a second
@pytest.mark.parametrize("window", [None, 0])
def test_paired_median_replicates_are_exact_in_distribution(window) -> None:
    """Five records: the exact joint law of (median of a, median of b) over the 5^5 equally likely resamples,
    against the frequencies of 20,000 replicates of the large-n scheme, each within 4.5 sd. With the default
    window every record is counted one by one; with a window of the middle rank alone most resamples put a
    median outside it and are drawn again in full, and the law is still the plain bootstrap's."""
    import itertools
    from collections import Counter

    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    b = np.array([30.0, 10.0, 50.0, 20.0, 40.0])
    exact = Counter()
    for draw in itertools.product(range(5), repeat=5):
        idx = list(draw)
        exact[(float(np.median(a[idx])), float(np.median(b[idx])))] += 1
    B = 20_000
    ma, mb = stats.paired_median_replicates(a, b, n_resamples=B, rng=np.random.default_rng(7), window=window)
    seen = Counter(zip(ma.tolist(), mb.tolist()))
    assert set(seen) <= set(exact)
    for pair, ways in exact.items():
        p = ways / 5 ** 5
        assert abs(seen[pair] / B - p) <= 4.5 * math.sqrt(p * (1 - p) / B), (pair, seen[pair] / B, p)


@pytest.mark.parametrize("method", ["records", "grouped"])
def test_resamples_drop_non_finite_values_and_nothing_else(method: str) -> None:
    rng = np.random.default_rng(4)
    finite = rng.exponential(size=3_000)
    dirty = np.concatenate([finite, [np.nan, np.inf, -np.inf, np.nan, np.inf]])
    rng.shuffle(dirty)
    for q in ((), (0.5, 0.05)):
        want = stats.resample_stats(finite, q, n_resamples=50, random_state=3, method=method)
        got = stats.resample_stats(dirty, q, n_resamples=50, random_state=3, method=method)
        for a, b in zip(got, want):
            assert np.array_equal(a.view(np.int64), b.view(np.int64))
    # only non-finite values: no replicate, not an error
    means, qvals = stats.resample_stats([np.nan, np.inf, -np.inf], (0.5,), n_resamples=4, random_state=0, method=method)
    assert np.isnan(means).all() and qvals.shape == (4, 1) and np.isnan(qvals).all()


def test_grouped_running_sums_are_those_of_one_cumsum_across_block_borders(monkeypatch) -> None:
    from synthpriv_report.stats import bootstrap as bootstrap_module

    v = np.sort(np.random.default_rng(9).lognormal(size=10_007))
    bounds = (np.arange(1025, dtype=np.int64) * v.size) // 1024
    want_s = np.concatenate([[0.0], np.cumsum(v)])[bounds]
    want_q = np.concatenate([[0.0], np.cumsum((v - v.mean()) ** 2)])[bounds]
    for block in (1, 7, 1000, 1 << 20):
        monkeypatch.setattr(bootstrap_module, "_SUM_BLOCK", block)
        s, q = bootstrap_module._sums_at(v, bounds)
        assert np.array_equal(s.view(np.int64), want_s.view(np.int64)), block
        assert np.array_equal(q.view(np.int64), want_q.view(np.int64)), block


@pytest.mark.parametrize("compiled, width", [(True, None), (True, 1), (True, 3), (False, None)])
def test_clustered_variance_by_hand_and_the_same_with_either_grouping(monkeypatch, compiled: bool,
                                                                      width: int | None) -> None:
    """The cluster-robust variance sum_g (sum_{i in g} (y_i - c))^2 / n^2, by hand on six records, and bit for bit
    the same whether the groups' sums come from the compiled passes over ranges of group numbers (of every width:
    one number, three, all) or from sorting the groups (groups past 2n, negative or not integers take the sorting
    path)."""
    from synthpriv_report.stats import evidence

    monkeypatch.setattr(evidence, "COMPILED", compiled)
    if width is not None:
        monkeypatch.setattr(evidence, "group_range", lambda top: width)
    y = [1.0, 0.0, 0.5, 1.0, 0.0, 1.0]  # mean 0.58333...
    c = sum(y) / 6
    groups = [4, 0, 4, 2, 0, 9]  # groups 0: (0, 0), 2: (1), 4: (1, 0.5), 9: (1)
    want = ((0 - c) + (0 - c)) ** 2 + (1 - c) ** 2 + ((1 - c) + (0.5 - c)) ** 2 + (1 - c) ** 2
    assert evidence.clustered_variance(y, groups) == pytest.approx(want / 36, rel=1e-12)
    rng = np.random.default_rng(11)
    for n in (1, 7, 1000):
        v = rng.choice([0.0, 0.5, 1.0], size=n)
        for g in (rng.integers(0, 2 * n + 1, n).astype(np.int32), rng.integers(0, max(n // 3, 1), n),
                  rng.integers(0, 2 * n + 1, n).astype(np.uint32),
                  rng.integers(0, 5 * n + 2, n), rng.integers(-3, n, n), rng.integers(0, n, n).astype(float)):
            sorted_path = np.bincount(np.unique(g, return_inverse=True)[1].ravel(), weights=v - v.mean())
            assert evidence.clustered_variance(v, g) == float(np.sum(sorted_path * sorted_path)) / (n * n)


def test_histogram_by_blocks_counts_as_one_pass_and_finite_values_copy_only_when_needed(monkeypatch) -> None:
    """The evidence histograms clip and count a block at a time: the counts and edges of one np.histogram over the
    clipped values, across block borders (blocks of 7 here), values outside the range counted in the end bins and
    non-finite values dropped. ``finite_values`` hands back the caller's array itself where every value is finite
    (no per-record copy), and a copy without the others otherwise."""
    from synthpriv_report.stats import summaries

    monkeypatch.setattr(summaries, "HISTOGRAM_BLOCK", 7)
    rng = np.random.default_rng(2)
    for n in (0, 1, 7, 50, 701):
        v = rng.normal(0.5, 0.6, n)
        v[rng.random(n) < 0.05] = np.inf
        for upper, bins in ((1.0, 20), (2.5, 30), (0.0, 3)):
            got = stats.histogram(v, upper=upper, bins=bins)
            hi = upper if upper > 0 else 1.0
            fin = v[np.isfinite(v)]
            counts, edges = np.histogram(np.clip(fin, 0.0, hi), bins=bins, range=(0.0, hi))
            assert got == {"edges": edges.tolist(), "counts": counts.tolist()}
            assert sum(got["counts"]) == fin.size
    a = rng.random(20)
    assert np.shares_memory(stats.finite_values(a), a)
    b = a.copy()
    b[3] = np.nan
    got = stats.finite_values(b)
    assert not np.shares_memory(got, b) and got.tolist() == np.delete(b, 3).tolist()
    strided = np.column_stack([a, a])[:, 0]  # a column of a table: made contiguous, as the masked copy was
    assert stats.finite_values(strided).flags.c_contiguous


@pytest.mark.parametrize("method", ["records", "grouped"])
def test_kept_draws_give_the_replicates_of_fresh_draws(method: str) -> None:
    """A bootstrap that reads kept draws (``plans=``) gives, bit for bit, the replicates it gives drawing afresh,
    for other values of the same size; another seed, other quantiles or another size draw their own."""
    from synthpriv_report.stats.bootstrap import ResamplePlans

    rng = np.random.default_rng(11)
    n = 3_000 if method == "records" else 25_000
    a, b = rng.exponential(size=n), rng.normal(size=n)
    plans = ResamplePlans()

    def same(x, y) -> bool:
        return all(np.array_equal(p.view(np.int64), q.view(np.int64)) for p, q in zip(x, y))

    for values in (a, b, a):
        for quantiles, seed in (((0.5, 0.05), 0), ((), 0), ((0.5, 0.05), 1)):
            fresh = stats.resample_stats(values, quantiles, n_resamples=200, random_state=seed, method=method)
            kept = stats.resample_stats(values, quantiles, n_resamples=200, random_state=seed, method=method,
                                        plans=plans)
            assert same(fresh, kept)
    assert len(plans) == 3  # one set of draws per (quantiles, seed); the other values read them
    assert plans.reused == 6
    shorter = a[:-1]
    assert same(stats.resample_stats(shorter, (0.5,), n_resamples=200, random_state=0, method=method, plans=plans),
                stats.resample_stats(shorter, (0.5,), n_resamples=200, random_state=0, method=method))
    assert len(plans) == 4
    # without a seed nothing is kept; over the budget, draws are used once and not kept
    stats.resample_stats(a, (), n_resamples=50, random_state=None, method=method, plans=plans)
    assert len(plans) == 4
    tight = ResamplePlans(max_bytes=0)
    assert same(stats.resample_stats(a, (0.5,), n_resamples=100, random_state=3, method=method, plans=tight),
                stats.resample_stats(a, (0.5,), n_resamples=100, random_state=3, method=method))
    assert len(tight) == 0


def test_kept_draws_reach_the_interval_and_replicate_functions() -> None:
    """``bootstrap_stats`` and ``bootstrap_replicates`` pass ``plans`` on: the same intervals and replicates."""
    from synthpriv_report.stats.bootstrap import ResamplePlans

    x = np.random.default_rng(2).exponential(size=500)
    plans = ResamplePlans()
    assert stats.bootstrap_stats(x, random_state=4, plans=plans) == stats.bootstrap_stats(x, random_state=4)
    assert stats.bootstrap_stats(x * 3, random_state=4, plans=plans) == stats.bootstrap_stats(x * 3, random_state=4)
    r = stats.bootstrap_replicates(x, statistic="median", random_state=4, plans=plans)
    assert np.array_equal(r, stats.bootstrap_replicates(x, statistic="median", random_state=4))
    assert plans.reused == 1 and len(plans) == 2
