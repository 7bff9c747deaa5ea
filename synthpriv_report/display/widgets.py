"""Live sliders over reduction parameters (ipywidgets).

Every slider move calls ``ev.results(**params)``, which re-reduces cached per-record arrays (no neighbour search),
then re-renders the summary HTML widget and only the figures that depend on the moved parameter. Sliders use
``continuous_update=False`` so a drag triggers one update, on release.
"""

from __future__ import annotations

import contextlib
import gc
import math
import time
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ..core.formats import fmt_value
from ..core.registry import LevelSpec, get_spec, graded_direction
from ..evaluation.comparison import Comparison
from ..grading.levels import on_headline
from ..text import templating

#: Which side of a level threshold is the riskier one, by the direction of the quantity the threshold is on (a
#: threshold slider's label).
_RISKIER_SIDE = {"higher_is_riskier": "above", "higher_is_safer": "below"}

#: The small HTML pieces of the widgets: every string goes through the one autoescaping Jinja environment.
_HEADING = "<b>{{ text }}</b>"
_STATUS = ("<span style='color:var(--jp-ui-font-color2, #57606a);font-size:0.85em'>updated in {{ ms }} ms, from "
           "the distances already computed (nothing searched again)</span>{% for n in notes %}<div class='spr-note' "
           "style='font-size:0.85em'>{{ n }}</div>{% endfor %}")
_TIMING = "<span style='color:var(--jp-ui-font-color2, #57606a);font-size:0.85em'>updated in {{ ms }} ms</span>"
_PROBLEM = ("<div role='alert' style='color:var(--jp-error-color1, #b42318);font-size:0.85em'>{{ text }} The "
            "panel shows the last settings that worked; every control still responds.</div>")


@contextlib.contextmanager
def no_collection_pause() -> Any:
    """Hold Python's cyclic garbage collector off during one widget update.

    A full collection walks every object the kernel holds (about 250 ms with the teaching notebook's evaluations
    loaded, most of the time a slider may take); held off, it runs after the update, while the student reads,
    instead of in the middle of one. Nothing is left uncollected.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def html(template: str, **values: Any) -> str:
    """A piece of widget HTML: ``template`` rendered by the package's one Jinja environment (autoescaping on), so
    a label, file name or message holding markup shows as text.

    >>> html(_HEADING, text="<img src=x onerror=alert(1)>")
    '<b>&lt;img src=x onerror=alert(1)&gt;</b>'
    """
    return templating.environment(__package__).from_string(template).render(**values)


#: The plain-text form of an interactive view, for a notebook shown without its kernel (widget-less viewers).
SNAPSHOT_TEXT = ("An interactive view (sliders and figures). Run the notebook's cells to use it; a static copy "
                 "of how it first looked is kept for viewers that show HTML.")
_SNAPSHOT_IMAGE = ("<img alt='{{ alt }}' src='data:image/{{ fmt }};base64,{{ data }}' "
                   "style='max-width:100%;height:auto'>")
_SNAPSHOT_CONTROL = "<p class='spr-muted'>{{ label }}: {{ value }}</p>"


def snapshot_html(widget: Any) -> str:
    """A static copy of a widget tree as HTML: each HTML piece as the package rendered it (every string in it
    escaped by the template engine), each figure as an image, each control as its label and value (escaped).

    A notebook opened again without its kernel, or by a viewer that draws no widgets, has no widget state to draw
    the view from; it shows this copy instead of the widget's class name.
    """
    import base64

    import ipywidgets as w

    parts: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, w.Box):
            for child in x.children:
                walk(child)
        elif isinstance(x, w.HTML):
            parts.append(str(x.value))
        elif isinstance(x, w.Image):
            if x.value:
                alt = getattr(x, "description", None) or "figure"
                parts.append(html(_SNAPSHOT_IMAGE, alt=alt, fmt=x.format or "png",
                                  data=base64.b64encode(bytes(x.value)).decode("ascii")))
        elif hasattr(x, "description") and hasattr(x, "value"):
            label = x.description or getattr(x, "tooltip", None) or "setting"
            parts.append(html(_SNAPSHOT_CONTROL, label=label, value=x.value))

    walk(widget)
    return "<div class='spr-snapshot'>" + "".join(parts) + "</div>"


def with_snapshot(box: Any) -> Any:
    """``box`` (an ipywidgets container) shown with a static copy beside the live view: its display bundle gains
    ``text/html`` (:func:`snapshot_html`, taken when it is displayed) and a readable ``text/plain``
    (:data:`SNAPSHOT_TEXT`) in place of the class name. A live notebook draws the widget as before."""
    live = box._repr_mimebundle_

    def bundle(include: Any = None, exclude: Any = None, **kwargs: Any) -> Any:
        data = live(include=include, exclude=exclude, **kwargs)
        if isinstance(data, dict):
            data = {**data, "text/plain": SNAPSHOT_TEXT, "text/html": snapshot_html(box)}
        return data

    box._repr_mimebundle_ = bundle
    return box


def crossed(direction: str, which: str, value: float, partner: float) -> bool:
    """Whether a level threshold ``which`` moved to ``value`` has passed its partner threshold.

    ``direction`` is that of the quantity the thresholds are on (a rule's graded quantity, which may run against
    its metric's value): where higher is riskier the high-risk threshold must not be below the medium one; where
    higher is safer, not above it.

    >>> crossed("higher_is_riskier", "medium", 0.7, 0.6), crossed("higher_is_safer", "medium", 40.0, 50.0)
    (True, True)
    >>> crossed("higher_is_riskier", "high", 0.7, 0.6)
    False
    """
    high, medium = (value, partner) if which == "high" else (partner, value)
    return high < medium if direction == "higher_is_riskier" else high > medium


def readout_format(step: float) -> str:
    """A slider's readout format: as many decimals as its step has (at most six), so that every position it can
    take reads differently.

    >>> readout_format(0.001), readout_format(0.05), readout_format(1.0), readout_format(2.5)
    ('.3f', '.2f', '.0f', '.1f')
    """
    exponent = Decimal(repr(float(step))).normalize().as_tuple().exponent
    return f".{min(6, max(0, -int(exponent)))}f"


def param_sliders(metric_names: list[str]) -> list[Any]:
    """The declared parameters of these metrics that have a slider, in declaration order, each once."""
    out: dict[str, Any] = {}
    for name in metric_names:
        for p in get_spec(name).params:
            if p.slider is not None and p.name not in out:
                out[p.name] = p
    return list(out.values())


def level_sliders(metric_names: list[str]) -> list[tuple[str, str, str, float, float, float, float]]:
    """``(metric, which, label, min, max, step, start)`` for the level thresholds of these metrics whose declared
    rule is a pair of numbers, on a finite value range.

    The sliders move the rule's own thresholds (a moved slider sets ``levels={metric: {"medium": m, "high": h,
    "on": "rule"}}``): they start at the rule's thresholds and read in the direction of the quantity the rule
    grades (:func:`~synthpriv_report.core.registry.graded_direction`), which may differ from the metric's: the holdout
    tests' value is a score where higher is safer, their rule grades D, where higher is riskier.

    >>> [s[:3] for s in level_sliders(["dcr_test"])]
    [('dcr_test', 'high', 'dcr_test: high risk above'), ('dcr_test', 'medium', 'dcr_test: medium risk above')]
    """
    out = []
    for name in metric_names:
        spec = get_spec(name)
        ls = spec.level
        lo, hi = spec.value_range
        if not isinstance(ls, LevelSpec) or not (math.isfinite(lo) and math.isfinite(hi)):
            continue
        if ls.rule is not None or ls.medium is None or ls.high is None:
            continue
        step = (hi - lo) / 100.0
        side = _RISKIER_SIDE[graded_direction(spec)]
        for which in ("high", "medium"):
            start = float(getattr(ls, which))
            out.append((name, which, f"{name}: {which} risk {side}", lo, hi, step, min(hi, max(lo, start))))
    return out


class Explorer:
    """The widget tree of :func:`explore` and its update logic (usable headlessly).

    Sliders are built from the metric declarations: every declared parameter with a slider range of the
    evaluation's metrics, and the level thresholds of the metrics whose rule is a pair of numbers (on the quantity
    the rule grades, in its direction; see :func:`level_sliders`). Each slider's readout shows as many decimals as
    its step has.

    Attributes
    ----------
    widget : ipywidgets.VBox
        What to display.
    sliders : dict
        Parameter name (or ``"levels:metric:which"``) -> slider.
    summary : ipywidgets.HTML
        The re-rendered result summary.
    images : dict
        Metric name -> ``ipywidgets.Image`` of its first figure.
    timings : list of float
        Seconds taken by each update (results + rendering).
    """

    def __init__(self, ev: Any, **params: Any):
        import ipywidgets as w

        self.ev = ev
        names = list(ev.metric_names)
        self.params: dict[str, Any] = {k: v for k, v in ev.default_params.items() if k != "levels"}
        self.params.update({k: v for k, v in params.items() if k != "levels"})
        self.levels: dict[str, dict[str, Any]] = {}
        for name, spec in (params.get("levels") or ev.default_params.get("levels") or {}).items():
            self.levels[name] = dict(spec)
        ruled = {m for m, *_ in level_sliders(names)}
        for name in ruled & set(self.levels):
            # thresholds given on the value are the rule's own where the rule grades the value (or a bound of it)
            # in its direction: they start the sliders; others stay as given until a slider of theirs moves
            if self.levels[name].get("on", "value") == "rule" or on_headline(get_spec(name).level, get_spec(name)):
                self.levels[name]["on"] = "rule"
        self.timings: list[float] = []
        style = {"description_width": "260px"}
        layout = w.Layout(width="520px")
        self.sliders: dict[str, Any] = {}
        self._syncing = False
        self._notes: list[str] = []
        self._start: dict[str, float] = {}
        self._param_keys: list[str] = []
        for p in param_sliders(names):
            lo, hi, step = p.slider
            s = w.FloatSlider(value=float(self.params[p.name]), min=lo, max=hi, step=step,
                              description=p.label or p.name, continuous_update=False, style=style, layout=layout,
                              readout_format=readout_format(step), tooltip=p.doc)
            s.observe(self._on_change(p.name), names="value")
            self.sliders[p.name] = s
            self._param_keys.append(p.name)
        self._level_keys: list[str] = []
        for metric, which, label, lo, hi, step, start in level_sliders(names):
            given = self.levels.get(metric, {})
            default = given.get(which, start) if given.get("on") == "rule" else start
            default = start if default is None else default  # a level switched off: the slider at the rule's
            s = w.FloatSlider(value=float(default), min=lo, max=hi, step=step, description=label,
                              continuous_update=False, style=style, layout=layout,
                              readout_format=readout_format(step))
            s.observe(self._on_level(metric, which), names="value")
            key = f"levels:{metric}:{which}"
            self._start[key] = float(default)
            self.sliders[key] = s
            self._level_keys.append(key)
        # the summary's tables may be wider than the cell: scroll them rather than cut them off
        self.summary = w.HTML(layout=w.Layout(width="100%", max_width="100%", overflow="auto"))
        for cls in ("spr-report", "spr-fit"):  # its text wraps to the cell's width; only a wide table scrolls
            self.summary.add_class(cls)
        self.status = w.HTML()
        self.images: dict[str, Any] = {}
        self.figures: dict[str, Any] = {}
        rs = self._results()
        from .figures import LiveFigure

        for name in names:
            if name in rs and rs[name].computed and get_spec(name).figures:
                # full size: the figure's own width (at most the cell's), never a thumbnail
                self.images[name] = w.Image(format="png", layout=w.Layout(max_width="100%", height="auto"))
                self.images[name].add_class("spr-fig")
                self.figures[name] = LiveFigure(name)
        self._refresh(rs, figures=tuple(self.images))
        self._good = (dict(self.params), {m: dict(v) for m, v in self.levels.items()})
        controls = w.VBox([w.HTML(html(_HEADING, text="Reduction parameters"))]
                          + [self.sliders[k] for k in self._param_keys]
                          + [w.HTML(html(_HEADING, text="Level thresholds"))]
                          + [self.sliders[k] for k in self._level_keys] + [self.status])
        figs = w.VBox(list(self.images.values()), layout=w.Layout(width="100%"))
        figs.add_class("spr-report")  # the views' style sheet turns its figures dark on a dark theme
        self.widget = with_snapshot(w.VBox([controls, figs, self.summary]))

    # ---------------------------------------------------------------------------------------------------------
    def _results(self):
        """``ev.results`` at the current settings (levels are re-graded only; nothing is recomputed for them)."""
        levels = {m: self._both(m, v) for m, v in self.levels.items()} or None
        return self.ev.results(**self.params, levels=levels)

    def _both(self, metric: str, given: Mapping[str, Any]) -> dict[str, Any]:
        """Both thresholds of ``metric``: those given, the other from its slider (None without one); a slider's
        number is on the rule's quantity, so only thresholds on the rule take one."""
        out = dict(given)
        if out.get("on") != "rule" and any(k not in out for k in ("medium", "high")):
            return out  # thresholds on the value given by the caller: checked (and refused) as given
        for which in ("medium", "high"):
            if which not in out:
                slider = self.sliders.get(f"levels:{metric}:{which}")
                out[which] = None if slider is None else float(slider.value)
        return out

    def _on_change(self, key: str):
        def handler(change: Mapping[str, Any]) -> None:
            if self._syncing:
                return
            self.params[key] = float(change["new"])
            self.update(changed=key)
        return handler

    def _on_level(self, metric: str, which: str):
        def handler(change: Mapping[str, Any]) -> None:
            if self._syncing:
                return
            value = float(change["new"])
            partner = "medium" if which == "high" else "high"
            key = f"levels:{metric}:{partner}"
            mine = self.levels.get(metric, {})
            if mine.get("on") != "rule":  # the sliders take over from thresholds given on the value
                mine = {partner: float(self.sliders[key].value)} if key in self.sliders else {}
            self.levels[metric] = {**mine, which: value, "on": "rule"}
            current = self.levels[metric].get(partner)
            if current is None and key in self.sliders:
                current = float(self.sliders[key].value)
            # the pair stays in order on the rule's own quantity, in its direction (not the metric's)
            if current is not None and crossed(graded_direction(get_spec(metric)), which, value, current):
                # a threshold moved past its partner takes the partner along (the pair stays in order)
                self.levels[metric][partner] = value
                if key in self.sliders:
                    self._set_quietly(key, value)
                self._notes.append(f"{metric}: the {partner}-risk threshold moved with the {which}-risk one "
                                   f"(to {value:g}), so that they stay in order.")
            self.update(changed=f"levels:{metric}")
        return handler

    def _set_quietly(self, key: str, value: float) -> None:
        """Move a slider without running its handler."""
        self._syncing = True
        try:
            self.sliders[key].value = value
        finally:
            self._syncing = False

    def update(self, changed: str | None = None) -> None:
        """Re-reduce and re-render after a parameter changed (figures that depend on it only).

        A setting the evaluation refuses never breaks the panel: the message is shown under the sliders, the
        sliders go back to the last settings that worked, and every control keeps working.
        """
        with no_collection_pause():
            self._update(changed)

    def _update(self, changed: str | None) -> None:
        t0 = time.perf_counter()
        notes, self._notes = self._notes, []
        try:
            rs = self._results()
            # only the figures that changed: a level threshold moves its own metric's figure (where it draws
            # the thresholds), a parameter the figures of the metrics that declare it
            figs = tuple(n for n in self.images if changed is None or changed == f"levels:{n}"
                         or changed in get_spec(n).param_names)
            self._refresh(rs, figures=figs)
        except Exception as exc:  # noqa: BLE001 - a callback must not die: say what happened in the panel
            self._restore()
            self.status.value = html(_PROBLEM, text=f"This setting was not applied: {exc}")
            return
        self._good = (dict(self.params), {m: dict(v) for m, v in self.levels.items()})
        self.timings.append(time.perf_counter() - t0)
        self.status.value = html(_STATUS, ms=f"{self.timings[-1] * 1000:.0f}",
                                 notes=notes)

    def _restore(self) -> None:
        """Back to the last settings that worked, sliders included."""
        params, levels = self._good
        self.params = dict(params)
        self.levels = {m: dict(v) for m, v in levels.items()}
        for key in self._param_keys:
            if key in self.params:
                self._set_quietly(key, float(self.params[key]))
        for key in self._level_keys:
            _, metric, which = key.split(":", 2)
            mine = self.levels.get(metric, {})
            value = mine.get(which, self._start.get(key)) if mine.get("on") == "rule" else self._start.get(key)
            if value is not None:
                self._set_quietly(key, float(value))

    def _refresh(self, rs: Any, *, figures: tuple[str, ...]) -> None:
        from .views import render_view, resultset_view

        view = resultset_view(rs, figures=False, compact=True)
        self.summary.value = render_view("resultset", view, "Results at these settings", "html")
        for name in figures:
            self.images[name].value = self.figures[name].draw([rs[name]])

    def _ipython_display_(self) -> None:  # pragma: no cover - exercised in the browser test
        from IPython.display import display

        display(self.widget)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)


def explore(ev: Any, **params: Any) -> Explorer:
    """Sliders for alpha, the NNDR, CVP and DVP thresholds, the HitR divisor and the level thresholds of the
    privacy score and the holdout share; each move re-reduces cached arrays and updates the views.

    A level slider moves its metric's rule's own threshold, on the quantity the rule grades and in its direction
    (D for the holdout tests: "high risk above 50"), as ``levels={metric: {..., "on": "rule"}}`` would.

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


#: The table of :func:`compare`: the notebook views' style (borders, text left, numbers right with tabular figures,
#: level badges with word and symbol), every string autoescaped.
_COMPARE_TABLE = """<div class="spr-report"><style>{% include "style.css.j2" %}</style>
<table><caption>{{ metric|wbr }} at {{ param|wbr }} = {{ at }}</caption>
<thead><tr><th scope="col">Data</th><th scope="col" class="spr-num">Value</th><th scope="col">Level</th>
<th scope="col" class="spr-num">Holdout as synthetic</th></tr></thead>
<tbody>{% for l, v, lv, c in rows %}<tr><th scope="row">{{ l }}</th><td class="spr-num">{{ v }}</td>
<td><span class="spr-badge spr-{{ lv or 'none' }}">{{ (lv ~ ' risk') if lv else 'no level' }}</span></td>
<td class="spr-num">{{ c }}</td></tr>{% endfor %}</tbody></table></div>"""


def compare(evaluations: Mapping[str, Any] | Comparison, metric: str, param: str, *, min: float, max: float,
            step: float, value: float | None = None, figure: bool = True) -> Any:
    """One slider moving ``param`` for several evaluations side by side (teaching notebooks).

    The figure shows every evaluation in one image, panels side by side on shared axis ranges; it is kept
    between moves (:class:`~synthpriv_report.display.figures.LiveFigure`) and redrawn only when the metric's
    figure depends on ``param``.

    Parameters
    ----------
    evaluations : mapping of label -> Evaluation, or Comparison
        The evaluations side by side; a :class:`~synthpriv_report.evaluation.comparison.Comparison` shows its releases'
        evaluations, under the releases' names.
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
        ``.children[0]`` is the slider, ``.children[1]`` the HTML table of values, ``.children[2]`` (with
        ``figure``) the figure; ``.timings`` holds the seconds each update took (results, table and figure).
    """
    import ipywidgets as w

    from .figures import LiveFigure

    if isinstance(evaluations, Comparison):
        evaluations = evaluations.evaluations
    first = next(iter(evaluations.values()))
    start = float(first.default_params[param] if value is None else value)
    declared = next((p for name in evaluations_metrics(evaluations) for p in get_spec(name).params
                     if p.name == param), None)
    slider = w.FloatSlider(value=start, min=min, max=max, step=step,
                           description=(declared.label if declared is not None and declared.label else param),
                           tooltip=None if declared is None else declared.doc, continuous_update=False,
                           readout_format=readout_format(step), style={"description_width": "200px"},
                           layout=w.Layout(width="560px"))
    table = w.HTML()
    status = w.HTML()
    draws = figure and bool(get_spec(metric).figures)
    live = LiveFigure(metric, panels=tuple(str(label) for label in evaluations)) if draws else None
    image = w.Image(format="png", layout=w.Layout(max_width="100%", height="auto"))
    image.add_class("spr-fig")
    redraw = param in get_spec(metric).param_names
    kind = get_spec(metric).kind()  # a share as a percentage, a score with 3 significant digits
    timings: list[float] = []

    def refresh(v: float, *, first: bool = False) -> None:
        t0 = time.perf_counter()
        rows, results = [], []
        for label, ev in evaluations.items():
            r = ev.results(metrics=[metric], **{param: v})[metric]
            results.append(r)
            rows.append((label, fmt_value(r.value, kind), r.level,
                         fmt_value(r.calibration, kind) if r.calibration is not None else "—"))
        table.value = templating.environment(__package__).from_string(_COMPARE_TABLE).render(
            rows=rows, metric=metric, param=param, at=f"{v:g}")
        if live is not None and (first or redraw):
            image.value = live.draw(results)
        timings.append(time.perf_counter() - t0)
        status.value = html(_TIMING, ms=f"{timings[-1] * 1000:.0f}")

    def moved(change: Mapping[str, Any]) -> None:
        with no_collection_pause():
            refresh(float(change["new"]))

    slider.observe(moved, names="value")
    refresh(start, first=True)
    children = [slider, table]
    if live is not None:
        children.append(image)
    children.append(status)
    box = w.VBox(children)
    box.add_class("spr-report")  # the views' style sheet turns its figure dark on a dark theme
    box.timings = timings
    return with_snapshot(box)


def side_by_side(results: Mapping[str, Any], *, index: int = 0) -> Any:
    """One metric's declared figure for several results, panels side by side on shared axis ranges.

    Parameters
    ----------
    results : mapping of label -> MetricResult
        Results of the same metric (honest and leaky data, say), drawn in this order.
    index : int
        Which of the metric's declared figures.

    Returns
    -------
    ipywidgets.VBox
        The figure (an ``ipywidgets.Image``, turned dark on a dark theme) and its caption.
    """
    import ipywidgets as w

    from .figures import LiveFigure

    labels = tuple(str(label) for label in results)
    first = next(iter(results.values()))
    live = LiveFigure(first.name, index, panels=labels)
    image = w.Image(value=live.draw(list(results.values())), format="png",
                    layout=w.Layout(max_width="100%", height="auto"))
    image.add_class("spr-fig")
    caption = w.HTML(html("<div class='spr-report'><style>{% include 'style.css.j2' %}</style>"
                          "<p class='spr-muted'>{{ caption }}</p></div>", caption=live.caption))
    box = w.VBox([image, caption])
    box.add_class("spr-report")
    return with_snapshot(box)


#: The table of :func:`leak_explorer`: one row per measure, its value and level at the chosen leak, and the
#: smallest leak (of those computed) at which its level is no longer low.
_LEAK_TABLE = """<div class="spr-report"><style>{% include "style.css.j2" %}</style>
<div style="overflow-x:auto;max-width:100%"><table><caption>{{ caption }}</caption>
<thead><tr><th scope="col">Measure</th><th scope="col" class="spr-num">Value</th>
<th scope="col">Interval</th><th scope="col">Level</th>
<th scope="col" class="spr-num">First leak above low</th></tr></thead>
<tbody>{% for r in rows %}<tr><th scope="row">{{ r.title }}<br><code>{{ r.name|wbr }}</code></th>
<td class="spr-num">{{ r.value }}</td>
<td style="white-space:normal;overflow-wrap:anywhere;max-width:16em">{{ r.interval }}</td>
<td><span class="spr-badge spr-{{ r.level or 'none' }}">{{ (r.level ~ ' risk') if r.level else 'no level' }}</span></td>
<td class="spr-num">{{ r.first }}</td></tr>{% endfor %}</tbody></table></div>
<p class="spr-muted">Verdict at this leak: {{ verdict }}.</p></div>"""


def evaluations_metrics(evaluations: Mapping[str, Any]) -> list[str]:
    """The metrics any of ``evaluations`` computes, in the order of the first (a parameter's label is looked up
    among them)."""
    return list(dict.fromkeys(name for ev in evaluations.values() for name in ev.metric_names))


def first_reactions(results: Mapping[float, Any]) -> dict[str, float | None]:
    """For each metric of the result sets, the smallest leak share whose level is medium or high (None: none).

    Parameters
    ----------
    results : mapping of share -> ResultSet
        The same metrics computed on synthetic sets with a growing share of leaked records.

    Returns
    -------
    dict
        Metric name -> the smallest share at which its level is above low, in the result sets' metric order.

    >>> from synthpriv_report.core.results import MetricResult
    >>> rs = {0.0: {"m": MetricResult("m", 0.1, level="low")}, 0.1: {"m": MetricResult("m", 0.5, level="high")}}
    >>> first_reactions(rs)
    {'m': 0.1}
    """
    shares = sorted(results)
    names = list(results[shares[0]].keys())
    return {n: next((s for s in shares if n in results[s] and results[s][n].level in ("medium", "high")), None)
            for n in names}


def leak_explorer(results: Mapping[str, Mapping[float, Any]]) -> Any:
    """Which measure reacts first to a leak: a choice of leak kind and a slider over its share.

    Every position was computed beforehand (the caller evaluates one synthetic set per kind and share, for
    instance with :func:`synthpriv_report.datasets.synthetic_with_copies`), so a move only renders a table.

    Parameters
    ----------
    results : mapping of kind -> (mapping of share -> ResultSet)
        ``{"exact copies": {0.0: rs, 0.02: rs, ...}, "near copies": {...}}``: the result sets of each kind of
        leak at each share (a share of the synthetic records).

    Returns
    -------
    ipywidgets.VBox
        ``.children[0]`` the kind (toggle buttons), ``.children[1]`` the share (a selection slider),
        ``.children[2]`` the table; ``.timings`` holds the seconds each update took.
    """
    import ipywidgets as w

    from ..core.formats import fmt_share as fmt_percent
    from ..text import wording

    kinds = list(results)
    firsts = {k: first_reactions(results[k]) for k in kinds}
    kind = w.ToggleButtons(options=kinds, value=kinds[0], description="leak")
    shares = sorted(results[kinds[0]])
    share = w.SelectionSlider(options=[(fmt_percent(s), s) for s in shares], value=shares[0],
                              description="share", continuous_update=False, layout=w.Layout(width="520px"))
    table = w.HTML()
    timings: list[float] = []

    def refresh(*_: Any) -> None:
        t0 = time.perf_counter()
        k, s = kind.value, share.value
        rs = results[k][s]
        rows = []
        for name, r in rs.items():
            first = firsts[k].get(name)
            row = wording.metric_row(r.to_dict(), ())
            rows.append({"name": name, "title": r.title or name, "value": row["value"], "interval": row["interval"],
                         "level": r.level,
                         "first": "not at any share computed" if first is None else fmt_percent(first)})
        verdict = getattr(getattr(rs, "verdict", None), "level", None)
        table.value = templating.environment(__package__).from_string(_LEAK_TABLE).render(
            rows=rows, caption=f"{k}: {fmt_percent(s)} of the synthetic records",
            verdict=(verdict or "not given").replace("_", " "))
        timings.append(time.perf_counter() - t0)

    kind.observe(refresh, names="value")
    share.observe(refresh, names="value")
    refresh()
    box = w.VBox([kind, share, table])
    box.timings = timings
    return with_snapshot(box)


#: The rates :func:`attack_explorer`'s slider stops at (a log scale a reader can name).
EXPLORER_FPRS: tuple[float, ...] = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)

#: The table of :func:`attack_explorer`: one row per release, the attack read at the chosen rate.
_ATTACK_TABLE = """<div class="spr-report" style="white-space:normal"><style>{% include "style.css.j2" %}</style>
<div style="overflow-x:auto;max-width:100%"><table><caption>{{ caption }}</caption>
<thead><tr><th scope="col">Release</th><th scope="col" class="spr-num">Members found</th>
<th scope="col" class="spr-num">Outsiders accused</th><th scope="col" class="spr-num">Chance would find</th>
<th scope="col" class="spr-num">ε at least</th><th scope="col" class="spr-num">Most atypical 1%</th></tr></thead>
<tbody>{% for r in rows %}<tr><th scope="row" style="white-space:normal">{{ r.label }}</th>
<td class="spr-num">{{ r.tpr }}<br><span class="spr-muted">{{ r.count }}</span><br>
<span class="spr-muted">{{ r.interval }}</span></td>
<td class="spr-num">{{ r.fpr }}<br><span class="spr-muted">{{ r.accused }}</span></td>
<td class="spr-num">{{ r.chance }}</td><td class="spr-num">{{ r.epsilon }}</td>
<td class="spr-num">{{ r.atypical }}<br><span class="spr-muted">{{ r.atypical_chance }}</span></td></tr>{% endfor %}
</tbody></table></div>
{% for n in notes %}<p class="spr-muted" style="white-space:normal;max-width:60em">{{ n }}</p>{% endfor %}</div>"""


def _draw_operating_points(ax: Any, points: Mapping[str, Any], fpr: float, promise: float | None) -> None:
    """Every release's ROC curve on log axes, the chance line, the chosen rate and each release's point there;
    with ``promise``, the curve no attack on an ε-DP generator can pass: ``TPR <= min(e^ε FPR,
    1 - e^-ε (1 - FPR))`` (P. Kairouz, S. Oh, P. Viswanath, ICML 2015)."""
    import numpy as np

    from ..core import plotting as plot

    n_n = max(p.n_nonmembers for p in points.values())
    n_m = max(p.n_members for p in points.values())
    floor = min(1.0 / n_n, 1.0 / n_m) / 2.0
    for i, (label, p) in enumerate(points.items()):
        colour = plot.PALETTE[i % len(plot.PALETTE)]
        xs, ys = np.asarray(p.curve_fpr), np.asarray(p.curve_tpr)
        keep = ys > 0  # the origin and the thresholds that flag no member lie off the log axes
        ax.step(np.maximum(xs[keep], floor), ys[keep], where="post", color=colour, label=label)
        if p.tpr > 0:
            mark = ax.plot([max(p.fpr, floor)], [p.tpr], "o", color=colour, markersize=6,
                           markeredgecolor=plot.COLORS["line"])
            mark[0].set_clip_on(False)
    ax.plot([floor, 1.0], [floor, 1.0], color=plot.COLORS["line"], linestyle=":", linewidth=1,
            label="chance (TPR = FPR)")
    if promise is not None:
        bound = np.geomspace(floor, 1.0, 50)
        # both inequalities of an ε-DP test (Kairouz et al.): TPR <= e^ε FPR and 1 - FPR <= e^ε (1 - TPR)
        limit = np.minimum(math.exp(promise) * bound, 1.0 - (1.0 - bound) * math.exp(-promise))
        ax.plot(bound, limit, color=plot.COLORS["line"], linestyle="-.", linewidth=1,
                label=f"the most any attack reaches under ε = {promise:g}")
    ax.axvline(fpr, color=plot.COLORS["T"], linewidth=1, linestyle="--")
    plot.log_rate_axes(ax, floor)
    ax.set_xlabel("false-positive rate (outsiders wrongly accused)")
    ax.set_ylabel("true-positive rate (training people found)")
    ax.set_title(f"The attack read at {fpr * 100:.3g}% false positives (dashed line)")
    ax.legend(fontsize=8, loc="lower right")


def attack_explorer(evaluations: Any, *, attack: str | None = None, fpr: float = 0.01,
                    promise: float | None = None) -> Any:
    """A slider over the false-positive rate at which a membership attack is read, for one or several releases
    (teaching: how many people an attacker finds when they accept to accuse 0.1%, 1% or 10% of outsiders).

    Each move reads the attack's cached scores again (:func:`~synthpriv_report.analysis.vulnerable.operating_point`):
    no search, no attack run again. The table gives, for each release, the training people found (TPR, with its
    exact 95% interval), the outsiders accused (FPR), how many an attacker who cannot tell them apart would find
    at that rate, the ε that point proves and how many of the most atypical 1% are flagged; the figure draws every
    release's ROC curve on log axes with the chosen rate and each release's point on it.

    Parameters
    ----------
    evaluations : Evaluation, mapping of label -> Evaluation, or Comparison
        The releases (each evaluated with a holdout).
    attack : str, optional
        One of the attacks of ``mia_worst_case``; default each release's strongest, the one its report gives.
    fpr : float, default 0.01
        The starting rate; one of :data:`EXPLORER_FPRS`.
    promise : float, optional
        A declared ε: the figure draws the limit ``TPR <= min(e^ε FPR, 1 - e^-ε (1 - FPR))`` that no attack on an
        ε-differentially private generator passes (beyond its sampling error).

    Returns
    -------
    ipywidgets.VBox
        ``.children[0]`` the rate (a selection slider), ``.children[1]`` the table, ``.children[2]`` the figure,
        ``.children[3]`` the time the update took; ``.timings`` holds the seconds of each update.

    Raises
    ------
    ValueError
        When ``fpr`` is not one of the slider's rates, ``promise`` is not a non-negative number, or an
        evaluation's attacks cannot run (the reason is the metric's).
    """
    import ipywidgets as w

    from ..analysis.vulnerable import operating_point
    from ..core.formats import fmt_count, fmt_share
    from .figures import render_png

    if isinstance(evaluations, Comparison):
        evaluations = evaluations.evaluations
    elif not isinstance(evaluations, Mapping):
        evaluations = {"release": evaluations}
    if not evaluations:
        raise ValueError("attack_explorer needs at least one evaluation")
    if not any(math.isclose(float(fpr), f) for f in EXPLORER_FPRS):
        raise ValueError(f"fpr must be one of the slider's rates {EXPLORER_FPRS}, got {fpr!r}")
    if promise is not None and (isinstance(promise, bool) or not isinstance(promise, (int, float))
                                or not math.isfinite(promise) or promise < 0):
        raise ValueError(f"promise must be a declared ε (a non-negative number), got {promise!r}")
    start = next(f for f in EXPLORER_FPRS if math.isclose(float(fpr), f))
    slider = w.SelectionSlider(options=[(fmt_share(f), f) for f in EXPLORER_FPRS], value=start,
                               description="false-positive rate", continuous_update=False,
                               style={"description_width": "140px"}, layout=w.Layout(width="560px"))
    table = w.HTML(layout=w.Layout(width="100%"))  # bounded by the output, so a wide table scrolls in place
    image = w.Image(format="png", layout=w.Layout(max_width="100%", height="auto"))
    image.add_class("spr-fig")
    status = w.HTML()
    timings: list[float] = []
    drawn: dict[float, bytes] = {}  # a position's figure, drawn at its first visit (the slider has nine)

    def refresh(f: float) -> None:
        t0 = time.perf_counter()
        points = {str(label): operating_point(ev, f, attack=attack) for label, ev in evaluations.items()}
        rows, unreadable = [], []
        for label, p in points.items():
            if not p.readable:
                unreadable.append(label)
            rows.append({
                "label": label, "tpr": f"TPR {fmt_share(p.tpr)}",
                "count": f"{fmt_count(p.flagged_members)} of {fmt_count(p.n_members)}",
                "interval": f"95%: {fmt_share(p.tpr_interval[0])} to {fmt_share(p.tpr_interval[1])}",
                "fpr": f"FPR {fmt_share(p.fpr)}",
                "accused": f"{fmt_count(p.flagged_nonmembers)} of {fmt_count(p.n_nonmembers)}",
                "chance": f"{p.chance:,.1f}",
                "epsilon": "0 (no bound)" if p.epsilon_lower_bound == 0 else f"{p.epsilon_lower_bound:.2f}",
                "atypical": f"{p.atypical_flagged} of {p.atypical_n}",
                "atypical_chance": f"chance {p.atypical_chance:.1f}"})
        notes = [f"Read at {fmt_share(f)} false positives: the attacker flags everyone whose score passes the "
                 f"threshold that wrongly accuses at most {fmt_share(f)} of the outsiders (real people not in the "
                 "training data). Members found: the training people flagged (TPR, with its exact 95% interval); "
                 "chance would find: how many an attacker who cannot tell members from outsiders would flag at the "
                 "same rate; ε at least: what this one point proves; most atypical 1%: how many of the training "
                 "people farthest from all others are flagged. The reports read every "
                 "attack at 0.1%, 1% and 10%, fixed before looking, and print the largest ε of the three; the "
                 "largest ε over rates picked after looking at the curve would overstate it, so the column here "
                 "is for reading."]
        if unreadable:
            notes.append(f"Below one outsider in the holdout's share ({', '.join(unreadable)}), no outsider may be "
                         "accused at this rate, so it cannot be read from these records: only the people scored "
                         "above every outsider are counted.")
        table.value = html(_ATTACK_TABLE, rows=rows, notes=notes,
                           caption=f"The strongest membership attack at {fmt_share(f)} false positives"
                           if attack is None else f"{attack} at {fmt_share(f)} false positives")
        if f not in drawn:
            drawn[f] = render_png(lambda ax: _draw_operating_points(ax, points, f, promise), size=(6.0, 3.8))
        image.value = drawn[f]
        timings.append(time.perf_counter() - t0)
        status.value = html(_TIMING, ms=f"{timings[-1] * 1000:.0f}")

    def moved(change: Mapping[str, Any]) -> None:
        with no_collection_pause():
            refresh(float(change["new"]))

    slider.observe(moved, names="value")
    refresh(start)
    box = w.VBox([slider, table, image, status])
    box.add_class("spr-report")
    box.timings = timings
    return with_snapshot(box)
