"""Live sliders over reduction parameters (ipywidgets).

Every slider move calls ``ev.results(**params)``, which re-reduces cached per-record arrays (no neighbour search),
then re-renders the summary HTML widget and only the figures that depend on the moved parameter. Sliders use
``continuous_update=False`` so a drag triggers one update, on release.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..params import LEVEL_THRESHOLDS
from .views import remember

#: (parameter, label, min, max, step) of the reduction sliders.
PARAM_SLIDERS: tuple[tuple[str, str, float, float, float], ...] = (
    ("alpha", "alpha (privacy score quantile)", 0.01, 0.5, 0.01),
    ("nndr_threshold", "NNDR threshold", 0.05, 1.0, 0.05),
    ("cvp_threshold", "CVP threshold u ≤", 0.05, 0.5, 0.05),
    ("dvp_threshold", "DVP threshold u ≥", 0.5, 0.95, 0.05),
    ("hitr_divisor", "HitR tolerance divisor", 5.0, 100.0, 1.0),
)

#: (metric, which threshold, label, min, max, step) of the level sliders (passed as ``levels={...}``).
LEVEL_SLIDERS: tuple[tuple[str, str, str, float, float, float], ...] = (
    ("privacy_score", "high", "privacy score: high risk below", 0.0, 100.0, 1.0),
    ("privacy_score", "medium", "privacy score: medium risk below", 0.0, 100.0, 1.0),
    ("holdout_dcr_share", "high", "holdout share: high risk above", 0.5, 1.0, 0.01),
    ("holdout_dcr_share", "medium", "holdout share: medium risk above", 0.5, 1.0, 0.01),
)

#: Which figure depends on which parameter.
FIGURE_PARAMS = {"privacy_score": ("alpha",), "nndr": ("nndr_threshold",), "holdout_dcr_share": ("levels",),
                 "dcr": ()}


class Explorer:
    """The widget tree of :func:`explore` and its update logic (usable headlessly).

    Attributes
    ----------
    widget : ipywidgets.VBox
        What to display.
    sliders : dict
        Parameter name (or ``"levels:metric:which"``) -> slider.
    summary : ipywidgets.HTML
        The re-rendered result summary.
    images : dict
        Metric name -> ``ipywidgets.Image`` of its figure.
    timings : list of float
        Seconds taken by each update (results + rendering).
    """

    def __init__(self, ev: Any, **params: Any):
        import ipywidgets as w

        remember(ev)
        self.ev = ev
        self.params: dict[str, Any] = {k: v for k, v in ev.default_params.items() if k != "levels"}
        self.params.update({k: v for k, v in params.items() if k != "levels"})
        self.levels: dict[str, dict[str, float]] = {}
        for name, spec in (params.get("levels") or ev.default_params.get("levels") or {}).items():
            self.levels[name] = dict(spec)
        self.timings: list[float] = []
        style = {"description_width": "260px"}
        layout = w.Layout(width="520px")
        self.sliders: dict[str, Any] = {}
        for key, label, lo, hi, step in PARAM_SLIDERS:
            s = w.FloatSlider(value=float(self.params[key]), min=lo, max=hi, step=step, description=label,
                              continuous_update=False, style=style, layout=layout, readout_format=".2f")
            s.observe(self._on_change(key), names="value")
            self.sliders[key] = s
        for metric, which, label, lo, hi, step in LEVEL_SLIDERS:
            default = self.levels.get(metric, {}).get(which, LEVEL_THRESHOLDS[metric][which])
            s = w.FloatSlider(value=float(default), min=lo, max=hi, step=step, description=label,
                              continuous_update=False, style=style, layout=layout, readout_format=".2f")
            s.observe(self._on_level(metric, which), names="value")
            self.sliders[f"levels:{metric}:{which}"] = s
        self.summary = w.HTML()
        self.status = w.HTML()
        self.images: dict[str, Any] = {}
        rs = self._results()
        for name in FIGURE_PARAMS:
            if name in rs and rs[name].computed:
                self.images[name] = w.Image(format="png", layout=w.Layout(max_width="640px"))
        self._refresh(rs, figures=tuple(self.images))
        controls = w.VBox([w.HTML("<b>Reduction parameters</b>")] + [self.sliders[k] for k, *_ in PARAM_SLIDERS]
                          + [w.HTML("<b>Level thresholds</b>")]
                          + [self.sliders[f"levels:{m}:{x}"] for m, x, *_ in LEVEL_SLIDERS] + [self.status])
        figs = w.VBox(list(self.images.values()))
        self.widget = w.VBox([controls, w.HBox([self.summary, figs])])

    # ---------------------------------------------------------------------------------------------------------
    def _results(self):
        """``ev.results`` at the current settings.

        Level overrides only change the metrics they name, but the evaluation's result cache keys every metric on
        the whole ``levels`` dict; so the named metrics are re-reduced with the overrides and the rest are read
        from the cache at the same reduction parameters, and the verdict is recomputed over the union (the same
        numbers as ``ev.results(**params, levels=levels)``, without re-reducing unaffected metrics).
        """
        from ..results import ResultSet
        from ..verdict import compute_verdict

        base = self.ev.results(**self.params)
        levels = {m: dict(v) for m, v in self.levels.items()}
        named = [m for m in levels if m in base]
        if not named:
            return base
        changed = self.ev.results(metrics=named, **self.params, levels=levels)
        merged = {n: (changed[n] if n in changed else r) for n, r in base.items()}
        params = dict(base.params)
        params["levels"] = levels
        return ResultSet(merged, compute_verdict(merged, self.ev.verdict_metrics), params)

    def _on_change(self, key: str):
        def handler(change: Mapping[str, Any]) -> None:
            self.params[key] = float(change["new"])
            self.update(changed=key)
        return handler

    def _on_level(self, metric: str, which: str):
        def handler(change: Mapping[str, Any]) -> None:
            self.levels.setdefault(metric, {})[which] = float(change["new"])
            self.update(changed="levels")
        return handler

    def update(self, changed: str | None = None) -> None:
        """Re-reduce and re-render after a parameter changed (figures that depend on it only)."""
        t0 = time.perf_counter()
        rs = self._results()
        figs = tuple(n for n, deps in FIGURE_PARAMS.items() if n in self.images and (changed is None
                                                                                     or changed in deps))
        self._refresh(rs, figures=figs)
        self.timings.append(time.perf_counter() - t0)
        self.status.value = (f"<span style='color:#57606a;font-size:0.85em'>updated in "
                             f"{self.timings[-1] * 1000:.0f} ms; neighbour searches so far: "
                             f"{self.ev.search_count}</span>")

    def _refresh(self, rs: Any, *, figures: tuple[str, ...]) -> None:
        from . import _render
        from .figures import figures_for
        from .views import resultset_view

        view = resultset_view(rs, figures=False)
        self.summary.value = _render("resultset", view, "Results at these settings", "html")
        for name in figures:
            out = figures_for(rs[name], rs.params)
            if out:
                self.images[name].value = out[0][1]

    def _ipython_display_(self) -> None:  # pragma: no cover - exercised in the browser test
        from IPython.display import display

        display(self.widget)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)


def explore(ev: Any, **params: Any) -> Explorer:
    """Sliders for alpha, the NNDR, CVP and DVP thresholds, the HitR divisor and the level thresholds of the
    privacy score and the holdout share; each move re-reduces cached arrays and updates the views.

    Parameters
    ----------
    ev : Evaluation
    **params
        Starting values (``alpha=0.05``, ``levels={"privacy_score": {"high": 40}}``, ...).

    Returns
    -------
    Explorer
        Displays as its widget; ``.sliders``, ``.summary``, ``.images`` and ``.timings`` for scripting.
    """
    return Explorer(ev, **params)


def compare(evaluations: Mapping[str, Any], metric: str, param: str, *, min: float, max: float, step: float,
            value: float | None = None, figure: bool = True) -> Any:
    """One slider moving ``param`` for several evaluations side by side (teaching notebooks).

    Parameters
    ----------
    evaluations : mapping of label -> Evaluation
    metric : str
        The metric to show.
    param : str
        The reduction parameter the slider moves.
    min, max, step : float
        Slider range.
    value : float, optional
        Starting value (default the first evaluation's default).
    figure : bool
        Also show the metric's figure for each evaluation.

    Returns
    -------
    ipywidgets.VBox
        ``.children[0]`` is the slider, ``.children[1]`` the HTML table of values.
    """
    import ipywidgets as w

    from .figures import figures_for
    from .views import fmt

    first = next(iter(evaluations.values()))
    start = float(first.default_params[param] if value is None else value)
    slider = w.FloatSlider(value=start, min=min, max=max, step=step, description=param,
                           continuous_update=False, readout_format=".2f")
    table = w.HTML()
    images = {label: w.Image(format="png", layout=w.Layout(max_width="480px")) for label in evaluations}

    def refresh(v: float) -> None:
        rows = []
        for label, ev in evaluations.items():
            remember(ev)
            r = ev.results(metrics=[metric], **{param: v})[metric]
            rows.append((label, fmt(r.value), r.level or "—", fmt(r.calibration)))
            if figure:
                figs = figures_for(r, {param: v})
                if figs:
                    images[label].value = figs[0][1]
        from . import environment

        table.value = environment().from_string(
            "<table><tr><th>data</th><th>{{ metric }}</th><th>level</th><th>holdout as synthetic</th></tr>"
            "{% for l, v, lv, c in rows %}<tr><td>{{ l }}</td><td>{{ v }}</td><td>{{ lv }}</td><td>{{ c }}</td>"
            "</tr>{% endfor %}</table>").render(rows=rows, metric=f"{metric} at {param} = {v:g}")

    slider.observe(lambda ch: refresh(float(ch["new"])), names="value")
    refresh(start)
    children = [slider, table]
    if figure:
        children.append(w.HBox([w.VBox([w.HTML(f"<b>{label}</b>"), img]) for label, img in images.items()]))
    return w.VBox(children)
