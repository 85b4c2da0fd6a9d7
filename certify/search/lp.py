"""The LP search for the coefficients of a template with linear rows.

The search is generic over :class:`certify.templates.linear.LinearTemplate`: it
stacks the template's rows into sparse float matrices and maximises the drift
margin delta, adding the drift rows by constraint generation.  What comes out
is only a *candidate*; the template rounds it (``candidates``) and
:mod:`certify.exact` decides.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..core.clock import remaining
from ..templates.linear import LinearTemplate, SideRow
from .linprog import solve_lp
from .solvers import TIME_LIMIT, default_solver

__all__ = ["LPResult", "solve_template", "CHUNK", "BINDING"]

# Rows added per round of constraint generation.
CHUNK = 2000
# Drift rows reported as binding (the dual's heaviest) when no certificate exists.
BINDING = 5


@dataclass
class LPResult:
    """A solved (or failed) template search: the LP of :func:`solve_template` or the SDP of the quartic.

    Attributes
    ----------
    status : str
        The solver's status (``"optimal"``, ``"infeasible"``, ...), ``"solver-error"``,
        ``"time-limit"`` (:data:`certify.search.solvers.TIME_LIMIT`: stopped by the time limit),
        or ``"no-rows"`` / ``"too-large"`` when nothing was solved.
    delta : float or None
        The best drift margin (None without a solution).
    theta : numpy.ndarray or None
        The float coefficients, in the template's ``variables()`` order.
    rows, variables : int
        The problem's size.
    solve_s : float
        Seconds spent.
    solver : str
        The solver used.
    notes : list of str
        What the search and the solver said (on a solver failure its message first).
    binding : list of int
        Drift rows with the largest duals (where no V decreases), when no certificate exists.
    binding_generators : list of tuple of int
        The cone generators of those rows (``row_keys()[r].generator``), in the same order.

    Examples
    --------
    >>> LPResult("infeasible", None, None, 7, 4, 0.01, "CLARABEL").found
    False
    """

    status: str
    delta: float | None
    theta: np.ndarray | None
    rows: int
    variables: int
    solve_s: float
    solver: str
    notes: list[str] = field(default_factory=list)
    binding: list[int] = field(default_factory=list)
    binding_generators: list[tuple[int, ...]] = field(default_factory=list)

    @property
    def found(self) -> bool:
        """True when the margin is positive (delta > 1e-9): a candidate worth rounding."""
        return self.delta is not None and self.delta > 1e-9

    @property
    def timed_out(self) -> bool:
        """True when the time limit stopped the search (no verdict, no failure: nothing is concluded from it)."""
        return self.status == TIME_LIMIT


def _tying(groups: list[int] | None, nv: int, n: int) -> sp.csr_matrix | None:
    """The n x g 0/1 matrix E with x = E y for the template's tied variables, or None (nothing tied).

    The coefficients' groups must come first (0 .. g_c - 1), the auxiliary variables' after them.
    """
    if groups is None:
        return None
    if len(groups) != n or (nv < n and max(groups[:nv]) >= min(groups[nv:])):
        raise ValueError(f"tied(): {len(groups)} groups for {n} variables, coefficient groups first")
    g = max(groups) + 1
    return sp.csr_matrix((np.ones(n), (np.arange(n), np.asarray(groups))), shape=(n, g))


def _matrix(rows: Sequence[SideRow], n: int) -> sp.csr_matrix:
    data, ri, ci = [], [], []
    for r, row in enumerate(rows):
        for k, c in row.coeffs:
            data.append(float(c))
            ri.append(r)
            ci.append(k)
    return sp.csr_matrix((data, (ri, ci)), shape=(len(rows), n))


def solve_template(
    tmpl: LinearTemplate, solver: str | None = None, margin: float = 1e-6, deadline: float | None = None
) -> LPResult:
    """Maximise delta subject to the template's drift and side rows.

    The drift rows enter by constraint generation: solve on a subset, add the
    (at most :data:`CHUNK`) most violated rows, repeat until the float solution
    satisfies every row.  Coefficients are boxed by the template's
    ``variable_bounds()`` and delta <= 1.

    Parameters
    ----------
    tmpl : LinearTemplate
        The template, built on the chain's region drifts.
    solver : str, optional
        A solver name (default :func:`certify.search.solvers.default_solver`).
    margin : float
        Slack kept on the side rows marked ``margin``.
    deadline : float, optional
        A ``time.perf_counter()`` value: each LP gets the time left before it
        (and before the deadline in force); past it the search stops with the
        status ``time-limit``.

    Returns
    -------
    LPResult
        The float solution (a candidate only), or the status that stopped the search.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from certify.core.model import Network, Station, Stream
    >>> from certify.markov.chain import compile_chain
    >>> from certify.markov.drift import compile_drifts
    >>> from certify.templates import Quadratic
    >>> net = Network("jsq2", (Station("1", F(1)), Station("2", F(1))), (Stream(F(3, 2), choice=("1", "2")),))
    >>> chain = compile_chain(net)
    >>> tmpl = Quadratic(chain, compile_drifts(chain))
    >>> res = solve_template(tmpl)
    >>> res.status, res.found, round(res.delta, 3), res.rows, res.variables
    ('optimal', True, 0.714, 7, 4)
    >>> theta = next(tmpl.candidates(res.theta))
    >>> tmpl.exact_drift(theta, {})[1].delta
    Fraction(5851, 8192)
    """
    nv = len(tmpl.variables())
    n = nv + len(tmpl.aux_variables())
    keys = tmpl.row_keys()
    solver = solver or default_solver()
    if not keys:
        return LPResult("no-rows", None, None, 0, n, 0.0, solver, notes=["no unbounded region"])
    tied = tmpl.tied()
    full, E = n, _tying(tied, nv, n)
    A = tmpl.lp_matrix() if E is None else tmpl.tied_lp_matrix(E)
    w = np.array([row.weight for row in keys], dtype=float)
    side = tmpl.side_rows()
    S = _matrix(side, n) if side else None
    rhs = np.array([float(r.rhs) - (margin if r.margin else 0.0) for r in side])
    bounds = np.array([float(b) for b in tmpl.variable_bounds()])
    if E is not None and tied is not None:  # an invariant parametrisation: solve for one value per orbit of variables, x = E y
        S = sp.csr_matrix(S @ E) if S is not None else None
        groups = np.asarray(tied)
        nv = int(groups[:nv].max()) + 1
        n = E.shape[1]
        gb = np.full(nv, np.inf)
        np.minimum.at(gb, groups[: len(bounds)], bounds)
        bounds = gb
    # Variables (x, delta): |x_k| <= bounds on the template's own, the auxiliaries free, delta <= 1; maximise delta.
    lo = np.concatenate([-bounds, np.full(n - nv, -np.inf), [-np.inf]])
    hi = np.concatenate([bounds, np.full(n - nv, np.inf), [1.0]])
    cost = np.zeros(n + 1)
    cost[n] = -1.0
    Sd = sp.hstack([S, sp.csr_matrix((S.shape[0], 1))], format="csr") if S is not None else None
    Aw = sp.hstack([A, sp.csr_matrix(w.reshape(-1, 1))], format="csr")
    # Constraint generation: solve on a subset of the drift rows, add the most
    # violated rows, repeat until the float solution satisfies every row.
    m = A.shape[0]
    active = np.zeros(m, dtype=bool)
    active[np.linspace(0, m - 1, min(m, CHUNK)).astype(int)] = True
    t0 = time.perf_counter()
    rounds = 0
    solver_notes: list[str] = []
    while True:
        rounds += 1
        idx = np.flatnonzero(active)
        rows = Aw[idx] if Sd is None else sp.vstack([Aw[idx], Sd], format="csr")
        b = np.concatenate([np.zeros(idx.size), rhs])
        res = solve_lp(cost, rows, b, bounds=(lo, hi), solver=solver, time_limit=remaining(deadline))
        if res.failed:  # reported, never a verdict
            return LPResult(res.status, None, None, m, n, time.perf_counter() - t0, solver, notes=res.notes + solver_notes)
        solver_notes += [s for s in res.notes if s not in solver_notes]
        if not res.ok:
            return LPResult(res.status, None, None, m, n, time.perf_counter() - t0, solver, notes=solver_notes)
        assert res.x is not None  # res.ok: the solution is set
        xv, d = res.x[:n], float(res.x[n])
        viol = A @ xv + w * max(d, 0.0)
        viol[active] = -np.inf
        bad = np.flatnonzero(viol > 1e-9 * max(1.0, abs(d)))
        if bad.size == 0 or d <= 1e-9:
            break
        worst = bad[np.argsort(-viol[bad])[:CHUNK]]
        active[worst] = True
    notes = [f"{rounds} rounds of constraint generation, {int(active.sum())} of {m} rows active", *solver_notes]
    binding: list[int] = []
    if res.y_ub is not None:
        duals = res.y_ub[: idx.size]  # the drift rows' multipliers (>= 0)
        order = np.argsort(-duals)
        binding = [int(idx[k]) for k in order[:BINDING] if float(duals[k]) > 1e-9]
    if E is not None:
        xv = E @ xv
        notes.insert(0, f"{n} orbit variables for the {full} of an invariant V")
    return LPResult(
        res.status, d, np.asarray(xv[: len(tmpl.variables())]), m, n, time.perf_counter() - t0, solver, notes=notes,
        binding=binding,
        binding_generators=[keys[r].generator for r in binding],
    )
