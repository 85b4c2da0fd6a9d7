"""Atlas plots of a sweep: where a network is proved stable, proved unstable, or neither.

A 1-D sweep is drawn as a strip of cells, a 2-D sweep as a map, each cell
coloured by its verdict; the legend spells out what each colour means.  Where a
known theorem of :mod:`certify.exact.theory` applies to the swept networks, the set
where its verdict changes (stable on one side, unstable on the other) is drawn
over the cells: exactly located (bisection in exact arithmetic) for 1-D, as the
level line between a fine grid's stable and unstable points for 2-D.  Callers
may draw further curves (``overlays``), e.g. an exact boundary known for one
example.

Public: :func:`plot_atlas`, :func:`theorem_sign`, :data:`VERDICT_STYLE`, :class:`Overlay`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NotRequired, Protocol, TypeAlias, TypedDict

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.artist import Artist
    from numpy.typing import NDArray

__all__ = ["VERDICT_STYLE", "Overlay", "plot_atlas", "theorem_sign"]

# verdict -> (colour, legend text); dark = proved, light = evidence only, grey = neither.
VERDICT_STYLE: dict[str, tuple[str, str]] = {
    "stable": ("#2166ac", "proved stable (exactly checked certificate or theorem)"),
    "likely-stable": ("#92c5de", "likely stable (simulation evidence only, no proof)"),
    "undecided": ("#bdbdbd", "undecided (no proof within the per-point budget)"),
    "likely-unstable": ("#f4a582", "likely unstable (simulation evidence only, no proof)"),
    "unstable": ("#b2182b", "proved unstable (exactly checked certificate or theorem)"),
}
"""Each verdict's cell colour and legend text, in legend order."""
_ORDER = list(VERDICT_STYLE)
_FINE_1D = 201
_FINE_2D = 61


class _Point(Protocol):
    """What the atlas reads of a point of a sweep."""

    @property
    def values(self) -> tuple[Fraction, ...]: ...

    @property
    def verdict(self) -> str: ...


class _Sweep(Protocol):
    """What the atlas reads of a sweep: :class:`~certify.workflows.sweep_result.SweepResult` has it (no import of it here)."""

    @property
    def network(self) -> str: ...

    @property
    def paths(self) -> tuple[str, ...]: ...

    @property
    def values(self) -> tuple[tuple[Fraction, ...], ...]: ...

    @property
    def points(self) -> Sequence[_Point]: ...

    @property
    def time_limit(self) -> float: ...

    @property
    def sim_budget(self) -> float: ...

    def counts(self) -> dict[str, int]: ...

    def network_at(self, values: Sequence[Fraction]) -> object: ...


class Overlay(TypedDict):
    """A curve :func:`plot_atlas` draws over the cells, in data coordinates.

    Keys: ``x`` (the abscissae; on a 1-D strip, where the vertical lines go), ``y`` (the ordinates; a 2-D
    map only), ``label`` (its legend entry; none when absent or None) and ``style`` (keyword arguments of
    ``Axes.plot`` or ``Axes.axvline``, over the default ``color="k", lw=2.0``).

    Examples
    --------
    >>> Overlay(x=[1.0, 2.0], y=[0.5, 1.5], label="exact boundary", style={"ls": ":"})["label"]
    'exact boundary'
    """

    x: Sequence[float]
    y: NotRequired[Sequence[float]]
    label: NotRequired[str | None]
    style: NotRequired[Mapping[str, Any]]  # matplotlib's own keyword arguments (it types them **kwargs: Any)


def theorem_sign(result: _Sweep, values: tuple[Fraction, ...]) -> tuple[int | None, str | None]:
    """The known theorem's verdict at a point of a sweep, as a sign, with the theorem's name.

    Parameters
    ----------
    result : SweepResult
        The sweep (its network and paths).
    values : tuple of Fraction
        One value per swept path.

    Returns
    -------
    tuple of (int or None, str or None)
        -1 (stable), 0 (critical) or +1 (unstable) and the theorem's name;
        ``(None, None)`` where no theorem of :mod:`certify.exact.theory`
        applies (or the network is invalid there).

    Examples
    --------
    >>> import certify
    >>> from fractions import Fraction
    >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 1}}, '
    ...                     '"streams": [{"choice": ["1", "2"], "rate": 1}]}')
    >>> res = certify.sweep(net, [("streams[0].rate", [1])], workers=1)
    >>> [theorem_sign(res, (Fraction(x),))[0] for x in (1, 2, 3)]
    [-1, 0, 1]
    """
    from ..core.errors import NetworkError
    from ..core.model import Network
    from ..exact.theory import theorem_verdicts
    from ..markov.chain import compile_chain

    try:
        net = result.network_at(values)
    except (NetworkError, TypeError):
        return None, None
    if not isinstance(net, Network) or net.has_capacities:
        return None, None
    found = theorem_verdicts(compile_chain(net))
    if not found:
        return None, None
    tv = found[0]
    return {"stable": -1, "critical": 0, "unstable": 1}[tv.verdict], tv.theorem


def _edges(vals: list[float]) -> list[float]:
    """Cell edges around sorted centres (midpoints; half a step beyond the ends)."""
    if len(vals) == 1:
        w = abs(vals[0]) * 0.05 or 0.5
        return [vals[0] - w, vals[0] + w]
    mids = [(a + b) / 2 for a, b in zip(vals, vals[1:])]
    return [vals[0] - (mids[0] - vals[0]), *mids, vals[-1] + (vals[-1] - mids[-1])]


def _fine(lo: Fraction, hi: Fraction, n: int) -> list[Fraction]:
    if lo == hi:
        return [lo]
    return [lo + (hi - lo) * k / (n - 1) for k in range(n)]


def _boundary_1d(result: _Sweep) -> tuple[list[float], set[str]]:
    """Exact-arithmetic bisection of the points where the theorem's verdict changes along the one axis."""
    xs = result.values[0]
    lo, hi = min(xs), max(xs)
    if lo == hi:
        return [], set()
    grid = _fine(lo, hi, _FINE_1D)
    signs = [theorem_sign(result, (x,)) for x in grid]
    out: list[float] = []
    names: set[str] = set()
    for (a, (sa, na)), (b, (sb, nb)) in zip(zip(grid, signs), zip(grid[1:], signs[1:])):
        if sa is None or sb is None or sa == sb:
            continue
        if sa == 0:
            out.append(float(a))
            if na:
                names.add(str(na))
            continue
        if sb == 0:
            continue  # b is the critical point itself: recorded as the next pair's a
        for _ in range(40):
            m = (a + b) / 2
            sm, nm = theorem_sign(result, (m,))
            if sm is None or sm == 0:
                a = b = m
                break
            if sm == sa:
                a = m
            else:
                b = m
        out.append(float((a + b) / 2))
        names.update(str(n) for n in (na, nb) if n)
    return out, names


_Masked: TypeAlias = "np.ma.MaskedArray[tuple[int, int], np.dtype[np.float64]]"  # the theorem's sign on the grid


def _boundary_2d(result: _Sweep) -> tuple[NDArray[np.float64], NDArray[np.float64], _Masked, set[str]] | None:
    """The theorem's sign on a fine grid (masked where no theorem applies); None when none applies anywhere."""
    import numpy as np

    (xv, yv) = result.values
    xlo, xhi, ylo, yhi = min(xv), max(xv), min(yv), max(yv)
    probe = [(x, y) for x in (xlo, xhi) for y in (ylo, yhi)] + [((xlo + xhi) / 2, (ylo + yhi) / 2)]
    if all(theorem_sign(result, p)[0] is None for p in probe):
        return None
    nx = _FINE_2D if xlo != xhi else 1
    ny = _FINE_2D if ylo != yhi else 1
    fx, fy = _fine(xlo, xhi, nx), _fine(ylo, yhi, ny)
    Z = np.full((len(fy), len(fx)), np.nan)
    names: set[str] = set()
    for i, y in enumerate(fy):
        for j, x in enumerate(fx):
            s, name = theorem_sign(result, (x, y))
            if s is not None:
                Z[i, j] = s
                if name is not None:  # it is not: theorem_sign names the theorem whenever it gives a sign
                    names.add(name)
    if np.all(np.isnan(Z)) or np.nanmin(Z) == np.nanmax(Z):
        return None  # no theorem, or it says the same everywhere: no boundary inside the map
    X, Y = np.meshgrid([float(x) for x in fx], [float(y) for y in fy])
    return X, Y, np.ma.masked_invalid(Z), names


def plot_atlas(
    result: _Sweep,
    path: str | os.PathLike[str],
    *,
    overlays: list[Overlay] | None = None,
    theorem: bool = True,
    title: str | None = None,
) -> None:
    """Draw the verdict strip (1-D) or map (2-D) of a sweep to an image file (matplotlib, Agg).

    Parameters
    ----------
    result : SweepResult
        From :func:`certify.sweep`.
    path : path
        The image file (the extension chooses the format: .png, .pdf, .svg).
    overlays : list of Overlay, optional
        Extra curves in data coordinates: ``{"x": [...], "y": [...], "label": str}``
        for a 2-D map (``"style"``: keyword arguments of ``Axes.plot``), or
        ``{"x": [x0, ...], "label": str}`` for vertical lines on a 1-D strip.
    theorem : bool
        Draw the boundary of a known theorem of :mod:`certify.exact.theory` where one
        applies (default True).
    title : str, optional
        Default: the network, the number of points and the per-point budget.

    Examples
    --------
    >>> import certify, pathlib, tempfile
    >>> net = certify.loads('{"format": "jsq-network/1", "stations": {"1": {"mu": 1}, "2": {"mu": 1}}, '
    ...                     '"streams": [{"choice": ["1", "2"], "rate": 1}]}')
    >>> res = certify.sweep(net, [("streams[0].rate", "1:3:3")], workers=1)
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "atlas.svg"
    >>> plot_atlas(res, f, overlays=[{"x": [2], "label": "mu_1 + mu_2"}], theorem=False)
    >>> f.read_text()[:5]
    '<?xml'
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    cmap = ListedColormap([VERDICT_STYLE[v][0] for v in _ORDER]).with_extremes(bad="white")
    norm = BoundaryNorm(np.arange(-0.5, len(_ORDER)), len(_ORDER))
    counts = result.counts()
    code = {v: k for k, v in enumerate(_ORDER)}
    handles: list[Artist] = [Patch(facecolor=VERDICT_STYLE[v][0], edgecolor="0.3", label=f"{VERDICT_STYLE[v][1]}: {counts.get(v, 0)}")
                             for v in _ORDER]
    overlays = overlays or []
    two_d = len(result.paths) == 2
    fig, ax = plt.subplots(figsize=(7.5, 6.2) if two_d else (8, 1.6))
    if two_d:
        xs = sorted(float(v) for v in result.values[0])
        ys = sorted(float(v) for v in result.values[1])
        ix = {v: k for k, v in enumerate(xs)}
        iy = {v: k for k, v in enumerate(ys)}
        C = np.full((len(ys), len(xs)), np.nan)
        for p in result.points:
            C[iy[float(p.values[1])], ix[float(p.values[0])]] = code.get(p.verdict, code["undecided"])
        ax.pcolormesh(_edges(xs), _edges(ys), np.ma.masked_invalid(C), cmap=cmap, norm=norm, edgecolors="white",
                      linewidth=0.3)
        ax.set_xlabel(result.paths[0])
        ax.set_ylabel(result.paths[1])
        if theorem:
            b = _boundary_2d(result)
            if b is not None:
                X, Y, Z, names = b
                ax.contour(X, Y, Z, levels=[0], colors="k", linewidths=2.0, linestyles="--")
                handles.append(Line2D([], [], color="k", lw=2.0, ls="--",
                                      label=f"theorem boundary ({'; '.join(sorted(names))}): its verdict changes here"))
        for ov in overlays:
            style = {"color": "k", "lw": 2.0, **ov.get("style", {})}
            (line,) = ax.plot(ov["x"], ov["y"], label=ov.get("label"), **style)
            if ov.get("label"):
                handles.append(line)
        ax.set_xlim(_edges(xs)[0], _edges(xs)[-1])
        ax.set_ylim(_edges(ys)[0], _edges(ys)[-1])
    else:
        xs = sorted(float(v) for v in result.values[0])
        ix = {v: k for k, v in enumerate(xs)}
        C = np.full((1, len(xs)), np.nan)
        for p in result.points:
            C[0, ix[float(p.values[0])]] = code.get(p.verdict, code["undecided"])
        ax.pcolormesh(_edges(xs), [0, 1], np.ma.masked_invalid(C), cmap=cmap, norm=norm, edgecolors="white", linewidth=0.3)
        ax.set_yticks([])
        ax.set_xlabel(result.paths[0])
        if theorem:
            bx, names = _boundary_1d(result)
            for x in bx:
                ax.axvline(x, color="k", lw=2.0, ls="--")
            if bx:
                handles.append(Line2D([], [], color="k", lw=2.0, ls="--",
                                      label=f"theorem boundary ({'; '.join(sorted(names))}): its verdict changes here"))
        for ov in overlays:
            style = {"color": "k", "lw": 2.0, **ov.get("style", {})}
            for k, x in enumerate(ov["x"]):
                line = ax.axvline(x, label=ov.get("label") if k == 0 else None, **style)
                if k == 0 and ov.get("label"):
                    handles.append(line)
        ax.set_xlim(_edges(xs)[0], _edges(xs)[-1])
    n = len(result.points)
    budget = f"{result.time_limit:g} s search" + (f" + {result.sim_budget:g} s simulation" if result.sim_budget else "")
    ax.set_title(title or f"{result.network}: stability atlas, {n} points ({budget} per point)", fontsize="medium")
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.13 if two_d else -0.5), ncol=1,
              fontsize="small", frameon=False, title="cell colour = verdict of certify.prove at that point",
              title_fontsize="small")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
